"""What a misbehaving driver or a second run can cost the harness: bounded, stopped early, never a lost or mixed file."""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from deltacheck.driver.process import MAX_LINE_BYTES
from deltacheck.files import locked_for_writing
from deltacheck.running.runner import run_fixtures
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def chat_fixtures():
    corpus = load_corpus()
    return corpus, sorted((f for f in corpus.fixtures if f.protocol == "openai-chat"), key=lambda f: (len(f.chunks), f.id))


def fake(name: str, break_on: str) -> SubprocessAdapter:
    return SubprocessAdapter([sys.executable, "-m", f"tests.drivers.{name}"], cwd=str(REPO),
                             env={**os.environ, "BREAK_ON": break_on}, startup_timeout=20)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_reply_without_end_is_cut_at_the_line_limit_and_the_next_fixture_still_runs(chat_fixtures):
    corpus, fixtures = chat_fixtures
    before = peak_rss_mb()
    with fake("endless_line", fixtures[0].id) as adapter:
        broken, good = (r.verdict for r in run_fixtures(adapter, corpus, fixtures[:2], timeout=30))
    assert broken.verdict == "error" and f"more than {MAX_LINE_BYTES} bytes" in broken.message
    assert good.verdict == "pass"
    assert peak_rss_mb() - before < 4 * MAX_LINE_BYTES / 2**20  # the unbounded reader grew to gigabytes


def test_a_driver_flooding_stdout_blocks_on_its_own_pipe_instead_of_filling_memory(chat_fixtures):
    corpus, fixtures = chat_fixtures
    before = peak_rss_mb()
    with fake("flood", fixtures[0].id) as adapter:
        first, second, third = (r.verdict for r in run_fixtures(adapter, corpus, fixtures[:3], timeout=5))
        time.sleep(1.0)  # the flood goes on meanwhile in the killed driver's place: nothing must pile up
    assert first.verdict == "pass"
    assert second.verdict == "error" and "chatter" in second.message  # the next reply it read was chatter
    assert third.verdict == "pass"
    assert peak_rss_mb() - before < 100


def test_a_driver_that_hangs_on_everything_is_stopped_after_max_timeouts(tmp_path):
    root = make_corpus(tmp_path, {f"openai-chat/f{n}.json": {**(TEXT_FIXTURE if n % 2 else TOOL_FIXTURE), "id": f"DC-H00{n}"}
                                  for n in range(6)})
    results = tmp_path / "out.jsonl"
    command = f"{sys.executable} -m tests.drivers.hang_on_run"
    started = time.monotonic()
    outcome = CliRunner(env={"BREAK_ON": "*"}).invoke(main, [
        "run", "--adapter-cmd", command, "--corpus", str(root), "--results", str(results),
        "--timeout", "0.5", "--max-timeouts", "2"])
    elapsed = time.monotonic() - started
    records = [r for r in map(json.loads, results.read_text().splitlines()) if r["kind"] == "result"]
    assert [r["verdict"] for r in records] == ["timeout", "timeout", "skip", "skip", "skip", "skip"], outcome.output
    assert "timed out on 2 fixtures in a row" in records[2]["message"]
    assert elapsed < 20  # 6 fixtures x 0.5 s plus restarts would be the floor without the stop


def test_a_second_run_on_the_same_results_file_is_refused_and_the_first_keeps_its_file(tmp_path):
    results = tmp_path / "out.jsonl"
    with locked_for_writing(results) as first:
        first.write('{"kind": "header"}\n')
        first.flush()
        outcome = CliRunner().invoke(main, ["run", "--adapter", "reference", "--fixture", "DC-8499",
                                            "--results", str(results)])
        assert outcome.exit_code == 1
        assert "another deltacheck run is writing this file now" in outcome.output
        assert "Traceback" not in outcome.output
        assert results.read_text() == '{"kind": "header"}\n'
    again = CliRunner().invoke(main, ["run", "--adapter", "reference", "--fixture", "DC-8499", "--results", str(results)])
    assert again.exit_code == 0 and results.read_text().count('"kind": "result"') == 1


def test_check_driver_does_not_pass_the_stop_check_for_a_driver_that_died_before_stop(monkeypatch):
    monkeypatch.setenv("BREAK_ON", "*")
    outcome = CliRunner().invoke(main, ["check-driver", "--adapter-cmd", f"{sys.executable} -m tests.drivers.crash_on_run",
                                        "--timeout", "2"])
    assert outcome.exit_code == 1
    assert "PASS  exits with status 0" not in outcome.output
    assert "FAIL  exits with status 0 on `stop`: not checked: the driver had crashed or been killed" in outcome.output


def test_check_driver_says_how_long_it_waits_for_the_hello():
    outcome = CliRunner().invoke(main, ["check-driver", "--adapter-cmd", f"{sys.executable} -m tests.drivers.hang_on_start",
                                        "--startup-timeout", "1"])
    assert outcome.exit_code == 1
    assert "waiting up to 1 s for its hello" in outcome.output


def test_the_run_summary_counts_fixtures_skipped_as_broken(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/broken.json": "{not json"})
    outcome = CliRunner().invoke(main, ["run", "--adapter", "reference", "--corpus", str(root),
                                        "--results", str(tmp_path / "out.jsonl")])
    row = next(line for line in outcome.output.splitlines() if "openai-chat" in line and "│" in line)
    cells = [cell.strip() for cell in row.split("│") if cell.strip()]
    assert cells[1] == "1 / 1" and cells[-1] == "1", row


def test_report_of_named_files_writes_junit_only_where_asked(tmp_path):
    results = tmp_path / "runs" / "out.jsonl"
    CliRunner().invoke(main, ["run", "--adapter", "reference", "--fixture", "DC-8499", "--results", str(results)])
    outcome = CliRunner().invoke(main, ["report", str(results), "--output", str(tmp_path / "R.md")])
    assert outcome.exit_code == 0, outcome.output
    assert (tmp_path / "R.md").is_file() and not (tmp_path / "R.html").exists()
    assert not (tmp_path / "runs" / "junit.xml").exists()
    CliRunner().invoke(main, ["report", str(results), "--output", str(tmp_path / "R.md"), "--junit", str(tmp_path / "j.xml")])
    assert (tmp_path / "j.xml").read_text().startswith("<?xml")
