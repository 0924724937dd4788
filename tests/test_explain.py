"""`deltacheck explain ID --adapter ...` adds what the library did; `--format markdown` is ready for an issue."""

from __future__ import annotations

import json
import re
import sys

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus

CORPUS = load_corpus(check_reference=False)
FIXTURE = "DC-8499"  # two tool calls: the miniature below loses the second
CITATION = CORPUS.cite(FIXTURE)
DROPS = "tests.miniatures:DropsLastPart"


def invoke(args: list, exit_code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.exit_code == exit_code, result.output
    return result


def _fenced(markdown: str, heading: str) -> str:
    """The body of the first fenced block after `heading`."""
    after = markdown.split(heading, 1)[1]
    match = re.search(r"^(`{3,})\w*\n(.*?)\n\1$", after, re.MULTILINE | re.DOTALL)
    return match.group(2)


def test_explain_without_an_adapter_prints_the_fixture_and_no_run():
    text = invoke(["explain", FIXTURE]).stdout
    assert text.startswith(f"{CITATION}: ") and "expected result (CONTRACT.md 3):" in text
    assert "verdict:" not in text and "library:" not in text


def test_explain_with_a_failing_adapter_adds_library_version_verdict_observed_and_full_diff():
    text = invoke(["explain", FIXTURE, "--adapter", DROPS]).stdout
    assert text.startswith(f"{CITATION}: ")
    assert "library: tests.miniatures 0 (adapter miniature-drops-last-part)" in text
    assert "code path: a fake for the harness's own tests" in text
    assert "verdict: fail: /choices/0/parts/1: expected tool_call" in text
    assert "first divergence: /choices/0/parts/1: expected tool_call" in text
    observed = json.loads(text.split("observed result:\n\n", 1)[1].split("\n\ndiff", 1)[0])
    assert len(observed["choices"][0]["parts"]) == 1  # what the library returned, not the expected result
    diff = text.split("diff (expected -> observed, as compared):\n\n", 1)[1]
    assert diff.startswith("--- expected\n+++ observed\n") and "\n-" in diff


def test_explain_with_a_passing_adapter_says_pass():
    text = invoke(["explain", FIXTURE, "--adapter", "reference"]).stdout
    assert f"library: deltacheck " in text and "verdict: pass" in text and "first divergence" not in text


def test_explain_with_a_driver_command_names_the_library_from_its_hello():
    driver = f"{sys.executable} -m deltacheck.driver tests.miniatures:DropsLastPart"
    text = invoke(["explain", FIXTURE, "--adapter-cmd", driver]).stdout
    assert "library: tests.miniatures 0 (adapter miniature-drops-last-part)" in text and "verdict: fail" in text


def test_explain_reports_a_raising_library_with_its_traceback():
    result = CliRunner().invoke(main, ["explain", FIXTURE, "--adapter", "tests.miniatures:Raises"])
    assert result.exit_code == 0 and result.exception is None
    text = result.stdout  # the library's traceback is part of the report, printed as text
    assert "verdict: error: raised: RuntimeError: boom in the library" in text
    assert "traceback:" in text and "observed result:" not in text


def test_markdown_is_ready_for_an_issue_citation_first_fenced_json_and_the_raw_stream_collapsed():
    fixture = CORPUS.by_id()[FIXTURE]
    markdown = invoke(["explain", FIXTURE, "--adapter", DROPS, "--format", "markdown"]).stdout
    first = markdown.splitlines()[0]
    assert first.startswith(f"**{CITATION}**: ") and "tests.miniatures 0" in first and first.endswith(": fail)")
    for heading in ("### Library", "### Verdict", "### Observed result", "### Diff", "### Expected result", "### Stream"):
        assert f"\n{heading}" in markdown, heading
    assert json.loads(_fenced(markdown, "### Expected result")) == fixture.expected
    observed = json.loads(_fenced(markdown, "### Observed result"))
    assert len(observed["choices"][0]["parts"]) == 1
    assert _fenced(markdown, "### Diff").startswith("--- expected\n+++ observed")
    details = markdown.split("<details>", 1)[1]
    assert details.rstrip().endswith("</details>")
    assert _fenced(details, "</summary>") == fixture.request().sse.decode().rstrip()


def test_markdown_without_an_adapter_has_the_fixture_only():
    markdown = invoke(["explain", FIXTURE, "--format", "markdown"]).stdout
    assert markdown.startswith(f"**{CITATION}**: ") and "### Verdict" not in markdown and "<details>" in markdown


def test_markdown_keeps_fixture_text_from_being_read_as_markup(tmp_path):
    from tests.corpus_builder import TEXT_FIXTURE, make_corpus

    fixture = json.loads(json.dumps(TEXT_FIXTURE))
    fixture["title"] = "text with `ticks` and <b>tags</b> is kept"
    fixture["comment"] = "```\nnot a fence"
    root = make_corpus(tmp_path, {"openai-chat/text.json": fixture})
    markdown = invoke(["explain", fixture["id"], "--corpus", root, "--format", "markdown"]).stdout
    assert "<b>" not in markdown and r"\<b\>" in markdown and "\\`\\`\\`" in markdown


@pytest.mark.parametrize("args, exit_code, named", [
    (["explain", "DC-ZZZZ"], 2, "no fixture with id DC-ZZZZ"),  # a usage error, as in run and fuzz
    (["explain", FIXTURE, "--adapter", "no-such-adapter"], 2, "no-such-adapter"),
    (["explain", FIXTURE, "--adapter", "tests.miniatures:Nope"], 2, "Nope"),
    (["explain", FIXTURE, "--adapter", "reference", "--adapter-cmd", "x"], 2, "exactly one of --adapter"),
    (["explain", FIXTURE, "--adapter-cmd", "no-such-program-here"], 1, "no-such-program-here"),
    (["explain", FIXTURE, "--format", "html"], 2, "--format"),
    (["explain", FIXTURE, "--repro", "python", "--adapter", "reference"], 2, "deltacheck's own"),
    (["explain", FIXTURE, "--repro", "python", "--adapter", "openai-node-chat"], 2, "use --repro node"),
    (["explain", FIXTURE, "--repro", "python", "--adapter-cmd", "x"], 2, "--adapter-cmd"),
    (["explain", FIXTURE, "--repro", "rust"], 2, "--repro"),
    (["explain", "DC-Y4WJ", "--adapter", "tests.miniatures:RejectsPing"], 0, "verdict:"),
])
def test_bad_input_is_one_line_naming_the_option(args, exit_code, named):
    result = invoke(args, exit_code)
    assert named in result.output
    if exit_code:
        assert len([line for line in result.output.splitlines() if "Error" in line]) == 1


def test_an_adapter_that_does_not_speak_the_protocol_is_a_usage_error(tmp_path):
    module = tmp_path / "chat_only.py"
    module.write_text("from tests.miniatures import DropsLastPart\n"
                      "class ChatOnly(DropsLastPart):\n    name = 'chat-only'\n    protocols = frozenset({'openai-chat'})\n")
    result = invoke(["explain", "DC-Y4WJ", "--adapter", f"{module}:ChatOnly"], 2)
    assert "DC-Y4WJ is anthropic-messages" in result.output and "chat-only" in result.output
