"""`score -j N`: adapters run N at a time in worker processes; what is written never depends on N."""

from __future__ import annotations

import os
import signal

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.reference import assemble
from tests import miniatures
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus
from tests.test_protocol import repo_of_adapters  # noqa: F401 - the fixture: a registry of its own

IN_PROCESS = ["reference", "miniature-drops-last-part", "miniature-raises", "miniature-text-only"]
WRITTEN = ("REPORT.md", "results/junit.xml")


class KillsItsProcess(miniatures._Miniature):
    """Takes down the process it runs in, as a segfaulting C extension would."""

    name = "test-kills-its-process"

    def assemble(self, request):
        os.kill(os.getpid(), signal.SIGKILL)
        return assemble(request.protocol, request.chunks).result


@pytest.fixture
def workspace(repo_of_adapters):
    """A corpus, and a registry with a subprocess adapter (chatty@2) and one whose environment cannot be built."""
    corpus = make_corpus(repo_of_adapters / "corpus", {"openai-chat/text.json": TEXT_FIXTURE,
                                                       "openai-chat/tools.json": TOOL_FIXTURE})
    (repo_of_adapters / "corpus-path").write_text(str(corpus))
    return repo_of_adapters


def score(workspace, run_name: str, adapters: list[str], *options: str):
    out = workspace / run_name
    args = ["score", "--corpus", (workspace / "corpus-path").read_text(), "--results-dir", str(out / "results"),
            "--output", str(out / "REPORT.md"), "--examples", "2", *options]
    for name in adapters:
        args += ["--adapter", name]
    return CliRunner().invoke(main, args), out


def test_the_report_is_the_same_bytes_whatever_the_number_of_jobs_and_the_order_of_completion(workspace):
    adapters = [*IN_PROCESS, "chatty@2", "broken-node"]
    serial, serial_dir = score(workspace, "j1", adapters, "-j", "1")
    parallel, parallel_dir = score(workspace, "j2", adapters, "-j", "2")
    reversed_, reversed_dir = score(workspace, "j3", list(reversed(adapters)), "--jobs", "3")
    for outcome in (serial, parallel, reversed_):  # the adapter whose environment fails is not run, the others are
        assert outcome.exit_code == 1, outcome.output
        assert "not run broken-node: environment 'node-broken': `false` failed" in outcome.output
    assert "| [chatty@2](site/implementations/chatty_402.html) | tests.drivers |" in (serial_dir / "REPORT.md").read_text()
    for name in WRITTEN:
        expected = (serial_dir / name).read_bytes()
        assert (parallel_dir / name).read_bytes() == expected, name
        assert (reversed_dir / name).read_bytes() == expected, name
    for adapter in [*IN_PROCESS, "chatty@2"]:
        for prefix in ("", "fuzz-"):
            assert (parallel_dir / "results" / f"{prefix}{adapter}.jsonl").is_file()


def test_several_jobs_print_one_line_per_adapter_with_its_tallies(workspace):
    outcome, _ = score(workspace, "j2", ["reference", "miniature-raises", "chatty@2"], "-j", "2")
    assert outcome.exit_code == 0, outcome.output
    assert "running 3 adapters, 2 at a time" in outcome.output
    assert "done reference: 2 / 2 passed; fuzz: 0 failed;" in outcome.output
    assert "done miniature-raises: 0 / 2 passed (2 error); fuzz: 0 failed;" in outcome.output
    assert "done chatty@2: 2 / 2 passed; fuzz: 0 failed;" in outcome.output
    for name in ("reference", "miniature-raises", "chatty@2"):
        assert outcome.output.count(f"start {name}\n") == 1
    assert "DC-T00" not in outcome.output  # per-fixture lines stay in the results files and the report


def test_what_an_in_process_library_prints_reaches_the_terminal_in_whole_lines_named_by_its_adapter(workspace):
    outcome, _ = score(workspace, "j2", ["reference", "tests.drivers.chatty_adapter:PrintsToStdout"], "-j", "2")
    assert outcome.exit_code == 0, outcome.output
    lines = outcome.output.splitlines()
    assert lines.count("test-prints-to-stdout: chatty: assembling DC-T00K") >= 1  # print() from Python
    assert "test-prints-to-stdout: chatty: a C extension writes to fd 1" in lines  # a raw write to fd 1
    assert [line for line in lines if "chatty:" in line and not line.startswith("test-prints-to-stdout: ")] == []


def test_a_worker_that_dies_costs_only_the_adapter_it_was_running(workspace):
    outcome, out = score(workspace, "j2", ["reference", "tests.test_score_jobs:KillsItsProcess", "miniature-raises"],
                         "-j", "2")
    assert outcome.exit_code == 1, outcome.output
    assert "not run test-kills-its-process: its worker process died" in outcome.output
    report = (out / "REPORT.md").read_text()
    assert "| [reference](site/implementations/reference.html) | openai-chat | 2 / 2 |" in report
    assert "| [miniature-raises](site/implementations/miniature-raises.html) | openai-chat | 0 / 2 |" in report
