"""A user's mistake is one clear line naming the file, option or path: exit 2 for usage errors, no traceback."""

from __future__ import annotations

import json
import socket
import sys
import time
from contextlib import nullcontext
from unittest import mock

import pytest
from click.testing import CliRunner

import deltacheck.corpus.loader
from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus

DEEP = "[" * 100000 + "]" * 100000
ANTHROPIC_ONLY = "miniature-rejects-ping"  # tests/miniatures.py: speaks anthropic-messages only


def invoke(args: list, exit_code: int):
    """Run the CLI; the exit status is as given and no exception escaped as a traceback."""
    # Should `serve` ever start, its first sleep stops it instead of blocking the test suite.
    with mock.patch.object(time, "sleep", side_effect=KeyboardInterrupt) if args[0] == "serve" else nullcontext():
        result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.exit_code == exit_code, result.output
    return result


def error_line(result) -> str:
    """The one error line of a failed command."""
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    return line


def contained(command: list, tmp_path) -> list:
    """The command with its outputs in tmp_path (options given later override these), so that even a
    regression never writes into the checkout's results/ or REPORT.md, nor runs a full score."""
    outputs = {"run": ["--results", tmp_path / "out.jsonl"], "fuzz": ["--results", tmp_path / "fuzz.jsonl"],
               "mutants": ["--results", tmp_path / "mutants.jsonl"], "report": ["--output", tmp_path / "REPORT.md"],
               "score": ["--adapter", "reference", "--examples", "0", "--results-dir", tmp_path / "results",
                         "--output", tmp_path / "REPORT.md"]}
    return [*command, *outputs.get(command[0], [])]


@pytest.fixture
def corpus_dir(tmp_path):
    return make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/tools.json": TOOL_FIXTURE})


# -- 1. a fixture nested deeper than the recursion limit is a problem of that file only ----------


def test_a_deeply_nested_file_is_a_problem_of_that_file_and_the_rest_loads(tmp_path):
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/deep.json": DEEP, "openai-chat/text.json": TEXT_FIXTURE}))
    assert [f.id for f in corpus.fixtures] == ["DC-T3ST"]
    (problem,) = corpus.problems
    assert problem.path.endswith("deep.json") and "nested too deeply" in problem.message


def test_lint_names_the_deeply_nested_file_and_checks_the_others(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/deep.json": DEEP, "openai-chat/text.json": TEXT_FIXTURE})
    result = invoke(["lint", "--corpus", root], 1)
    assert "deep.json" in result.output and "nested too deeply" in result.output
    assert "1 problem(s) in 1 of 2 file(s)" in result.output


def test_run_skips_the_deeply_nested_file_and_scores_the_others(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/deep.json": DEEP, "openai-chat/text.json": TEXT_FIXTURE})
    results = tmp_path / "out.jsonl"
    invoke(["run", "--adapter", "reference", "--corpus", root, "--results", results], 0)
    records = [r for r in map(json.loads, results.read_text().splitlines()) if r["kind"] == "result"]
    verdicts = {(r["fixture"], r["path"].rsplit("/", 1)[-1]): r["verdict"] for r in records}
    assert verdicts == {(None, "deep.json"): "skip", ("DC-T3ST", "text.json"): "pass"}


def test_recursion_in_any_later_check_of_a_file_is_a_problem_of_that_file(corpus_dir, monkeypatch):
    real = deltacheck.corpus.loader.reference_problems

    def recurses_on_text(fixture, outcomes=None):
        if fixture.id == "DC-T3ST":
            raise RecursionError("maximum recursion depth exceeded")
        return real(fixture, outcomes)

    monkeypatch.setattr(deltacheck.corpus.loader, "reference_problems", recurses_on_text)
    corpus = load_corpus(corpus_dir)
    assert [f.id for f in corpus.fixtures] == ["DC-T00K"]
    (problem,) = corpus.problems
    assert problem.path.endswith("text.json") and "nested too deeply" in problem.message


# -- 2. a protocol or fixture the adapter does not speak ----------------------------------------


def test_run_refuses_a_protocol_the_adapter_does_not_speak_and_writes_nothing(corpus_dir, tmp_path):
    results = tmp_path / "out.jsonl"
    results.write_text("earlier results\n")
    result = invoke(["run", "--adapter", ANTHROPIC_ONLY, "--protocol", "openai-chat", "--corpus", corpus_dir,
                     "--results", results], 2)
    assert ANTHROPIC_ONLY in error_line(result) and "openai-chat" in error_line(result)
    assert results.read_text() == "earlier results\n"


def test_run_refuses_a_fixture_of_a_protocol_the_adapter_does_not_speak(corpus_dir, tmp_path):
    results = tmp_path / "out.jsonl"
    result = invoke(["run", "--adapter", ANTHROPIC_ONLY, "--fixture", "DC-T3ST", "--corpus", corpus_dir,
                     "--results", results, "--junit", tmp_path / "junit.xml"], 2)
    line = error_line(result)
    assert "DC-T3ST" in line and "openai-chat" in line and ANTHROPIC_ONLY in line
    assert not results.exists() and not (tmp_path / "junit.xml").exists()


def test_a_driver_s_protocols_are_checked_after_it_starts(corpus_dir, tmp_path):
    command = f"{sys.executable} -m deltacheck.driver tests.miniatures:RejectsPing"
    result = invoke(["run", "--adapter-cmd", command, "--protocol", "openai-chat", "--corpus", corpus_dir,
                     "--results", tmp_path / "out.jsonl"], 2)
    assert ANTHROPIC_ONLY in error_line(result) and "openai-chat" in error_line(result)
    assert not (tmp_path / "out.jsonl").exists()


def test_a_protocol_the_adapter_speaks_still_runs(corpus_dir, tmp_path):
    invoke(["run", "--adapter", "reference", "--protocol", "openai-chat", "--fixture", "DC-T3ST",
            "--corpus", corpus_dir, "--results", tmp_path / "out.jsonl"], 0)


# -- 3. --corpus must be a corpus directory ------------------------------------------------------

EVERY_CORPUS_COMMAND = [
    ["lint"], ["run", "--adapter", "reference"], ["explain", "DC-T3ST"], ["serve"], ["new-id"],
    ["fuzz", "--adapter", "reference"], ["mutants"], ["check-driver", "--adapter-cmd", "true"], ["report"], ["score"],
]


@pytest.mark.parametrize("command", EVERY_CORPUS_COMMAND, ids=lambda c: c[0])
def test_a_missing_corpus_directory_is_a_usage_error_naming_it(command, tmp_path):
    missing = tmp_path / "no-such-corpus"
    line = error_line(invoke([*contained(command, tmp_path), "--corpus", missing], 2))
    assert "--corpus" in line and str(missing) in line and "no such directory" in line


@pytest.mark.parametrize("command", EVERY_CORPUS_COMMAND, ids=lambda c: c[0])
def test_a_directory_without_fixtures_is_not_a_corpus(command, tmp_path):
    line = error_line(invoke([*contained(command, tmp_path), "--corpus", tmp_path], 2))
    assert "--corpus" in line and str(tmp_path) in line and "not a corpus directory" in line


# -- 4. serve --port -----------------------------------------------------------------------------


def test_serve_on_a_port_in_use_is_one_line_naming_the_port(corpus_dir):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke(["serve", "--corpus", corpus_dir, "--port", port], 1)
    assert f"--port {port}" in error_line(result)


@pytest.mark.parametrize("port", ["-1", "65536"])
def test_serve_refuses_a_port_out_of_range(port, corpus_dir):
    assert "--port" in error_line(invoke(["serve", "--corpus", corpus_dir, "--port", port], 2))


# -- 5. output paths that cannot be written ------------------------------------------------------


def unwritable_paths(tmp_path):
    (tmp_path / "a-file").write_text("")
    return ["/proc/nope/x.out", str(tmp_path / "a-file" / "x.out"), str(tmp_path / "a-file" / "sub" / "x.out")]


@pytest.mark.parametrize("option", ["--results", "--junit"])
def test_run_refuses_an_unwritable_output_path_before_running(option, corpus_dir, tmp_path):
    for path in unwritable_paths(tmp_path):
        line = error_line(invoke([*contained(["run", "--adapter", "reference"], tmp_path), "--corpus", corpus_dir,
                                  option, path], 2))
        assert option in line and path in line
        assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("command, option", [(["fuzz", "--adapter", "reference"], "--results"),
                                             (["mutants"], "--results"), (["report"], "--output"),
                                             (["score"], "--output")], ids=lambda c: c[0] if isinstance(c, list) else c)
def test_other_commands_refuse_an_unwritable_output_path(command, option, corpus_dir, tmp_path):
    for path in unwritable_paths(tmp_path):
        line = error_line(invoke([*contained(command, tmp_path), "--corpus", corpus_dir, option, path], 2))
        assert option in line and path in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "corpus"]  # nothing written


# -- 6. option values ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["run", "--adapter", "reference"], ["score"], ["fuzz", "--adapter", "reference"],
                                     ["check-driver", "--adapter-cmd", "true"]], ids=lambda c: c[0])
@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf"])
def test_a_timeout_must_be_a_positive_number_of_seconds(command, seconds, corpus_dir, tmp_path):
    line = error_line(invoke([*contained(command, tmp_path), "--corpus", corpus_dir, "--timeout", seconds], 2))
    assert "--timeout" in line and "must be a positive number of seconds" in line


@pytest.mark.parametrize("command", [["run", "--adapter", "reference"], ["fuzz", "--adapter", "reference"],
                                     ["check-driver", "--adapter-cmd", "true"]], ids=lambda c: c[0])
def test_a_startup_timeout_must_be_positive(command, corpus_dir, tmp_path):
    line = error_line(invoke([*contained(command, tmp_path), "--corpus", corpus_dir, "--startup-timeout", "0"], 2))
    assert "--startup-timeout" in line and "must be a positive number of seconds" in line


@pytest.mark.parametrize("examples", ["0", "-3"])
def test_fuzz_wants_at_least_one_example(examples, corpus_dir, tmp_path):
    command = contained(["fuzz", "--adapter", "reference"], tmp_path)
    assert "--examples" in error_line(invoke([*command, "--corpus", corpus_dir, "--examples", examples], 2))


def test_score_takes_zero_examples_as_no_fuzzing_but_refuses_negative(corpus_dir, tmp_path):
    command = contained(["score"], tmp_path)
    assert "--examples" in error_line(invoke([*command, "--corpus", corpus_dir, "--examples", "-1"], 2))
    context = main.commands["score"].make_context("score", ["--examples", "0", "--timeout", "0.5"])
    assert (context.params["examples"], context.params["timeout"]) == (0, 0.5)


# -- 7. symlinks out of the corpus ---------------------------------------------------------------


def test_a_symlink_to_a_file_outside_the_corpus_is_not_loaded(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE})
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(TOOL_FIXTURE))
    (root / "fixtures" / "openai-chat" / "link.json").symlink_to(outside)
    corpus = load_corpus(root)
    assert [f.id for f in corpus.fixtures] == ["DC-T3ST"]
    (problem,) = corpus.problems
    assert problem.path.endswith("link.json") and "symlink to a file outside the corpus" in problem.message
    assert "link.json" in invoke(["lint", "--corpus", root], 1).output


def test_a_symlink_inside_the_corpus_still_loads_and_a_dangling_one_is_unreadable(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE})
    (root / "shared").mkdir()
    (root / "shared" / "tools.json").write_text(json.dumps(TOOL_FIXTURE))
    (root / "fixtures" / "openai-chat" / "tools.json").symlink_to("../../shared/tools.json")
    (root / "fixtures" / "openai-chat" / "gone.json").symlink_to("../../shared/gone.json")
    corpus = load_corpus(root)
    assert sorted(f.id for f in corpus.fixtures) == ["DC-T00K", "DC-T3ST"]
    (problem,) = corpus.problems
    assert problem.path.endswith("gone.json") and problem.message.startswith("unreadable")


# -- text from libraries and fixtures is plain text, never terminal markup -----------------------

MARKUP = "bad [/choices] and [red]x[/red] and [bold"


def test_a_library_message_that_looks_like_markup_is_printed_verbatim_and_the_run_completes(tmp_path):
    adapter = tmp_path / "loud.py"
    adapter.write_text(
        "from deltacheck import Adapter\n"
        "class Loud(Adapter):\n"
        "    name, library, version, code_path = 'loud', 'loud', '0', 'raises'\n"
        "    protocols = frozenset({'openai-chat'})\n"
        "    capabilities = frozenset()\n"
        "    def assemble(self, request):\n"
        f"        raise ValueError({MARKUP!r})\n")
    results = tmp_path / "out.jsonl"
    outcome = CliRunner().invoke(main, ["run", "--adapter", f"{adapter}:Loud", "--protocol", "openai-chat",
                                        "--results", str(results)])
    assert outcome.exit_code == 1 and isinstance(outcome.exception, SystemExit), outcome.output
    assert "raised: ValueError: bad [/choices] and [red]x[/red] and [bold" in " ".join(outcome.output.split())
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    records = [line for line in lines if line["kind"] == "result"]
    assert lines[-1]["kind"] == "footer" and len(records) == len(load_corpus().select(["openai-chat"]))
    assert all(MARKUP in r["message"] for r in records if r["verdict"] == "error")
    report = CliRunner().invoke(main, ["report", str(results), "--output", str(tmp_path / "R.md")])
    assert report.exit_code == 0 and "| [loud](site/implementations/loud.html) |" in (tmp_path / "R.md").read_text()
    # each failure's message is on the implementation's page of the results site, as it was raised
    site = CliRunner().invoke(main, ["site", str(results), "--out", str(tmp_path / "site")])
    assert site.exit_code == 0, site.output
    assert f"raised: ValueError: {MARKUP}" in (tmp_path / "site" / "implementations" / "loud.html").read_text()


def test_a_fixture_tag_that_looks_like_markup_is_named_verbatim(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": {**TEXT_FIXTURE, "tags": ["text", "[/oops]"]}})
    lint = CliRunner().invoke(main, ["lint", "--corpus", str(root)])
    assert lint.exit_code == 1 and "[/oops]" in lint.output and "Traceback" not in lint.output
    run = CliRunner().invoke(main, ["run", "--adapter", "reference", "--corpus", str(root),
                                    "--results", str(tmp_path / "out.jsonl")])
    assert run.exception is None or isinstance(run.exception, SystemExit)
    assert "[/oops]" in run.output and (tmp_path / "out.jsonl").read_text().count('"kind": "footer"') == 1
