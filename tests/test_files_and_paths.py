"""Files, paths and JSON validity (issue 21): what the harness writes keeps the modes a plain write
would give, paths the user or an adapter names cannot lead it astray, and "valid JSON" means RFC 8259."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltacheck.corpus.loader import NotACorpus, load_corpus
from deltacheck.files import write_text_atomically
from deltacheck.json_spec import NotJson, _is_json_without_recursion, is_json
from deltacheck.json_spec import parse as parse_json
from deltacheck.judge.compare import arguments_equal
from deltacheck.locations import file_stem
from deltacheck.reference import assemble
from deltacheck.reference.fragments import JsonFragments
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus
from tests.test_bad_input import error_line, invoke


@pytest.fixture
def corpus_dir(tmp_path):
    return make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/tools.json": TOOL_FIXTURE})


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- files meant to be committed or published get the user's umask; an existing file keeps its mode --


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_document_gets_the_user_s_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        write_text_atomically(tmp_path / "REPORT.md", "x\n")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "REPORT.md") == 0o666 & ~umask


@pytest.mark.parametrize("existing", [0o644, 0o600, 0o664, 0o755])
def test_a_replaced_document_keeps_its_mode(tmp_path, existing):
    path = tmp_path / "deltacheck.toml"
    path.write_text("old\n")
    path.chmod(existing)
    write_text_atomically(path, "new\n")
    assert mode(path) == existing and path.read_text() == "new\n"


def test_report_junit_and_expectations_written_by_the_cli_are_readable_by_others(corpus_dir, tmp_path):
    previous = os.umask(0o022)
    try:
        expectations = tmp_path / "deltacheck.toml"
        expectations.write_text("")
        expectations.chmod(0o644)
        results = tmp_path / "results" / "reference.jsonl"
        invoke(["run", "--adapter", "reference", "--corpus", corpus_dir, "--results", results,
                "--junit", tmp_path / "junit.xml", "--expectations", expectations, "--update-expectations"], 0)
        invoke(["report", "--corpus", corpus_dir, results,
                "--output", tmp_path / "REPORT.md"], 0)
        invoke(["site", "--corpus", corpus_dir, results, "--out", tmp_path / "site"], 0)
    finally:
        os.umask(previous)
    assert expectations.read_text().strip()  # it was rewritten
    for name in ("deltacheck.toml", "junit.xml", "REPORT.md", "site/index.html", "site/data/index.json"):
        assert mode(tmp_path / name) == 0o644, name
    assert mode(tmp_path / "site") == 0o755  # a static host serves it as it is


# -- "valid JSON" is RFC 8259's, wherever the harness decides it -----------------------------------

NOT_JSON = ["NaN", "Infinity", "-Infinity", '{"x": NaN}', "[1, Infinity]", '{"a": -Infinity}', "{'a': 1}", "[1,]",
            "\ufeff{}", "01", "1.", '{"a":1} x']
JSON_PYTHON_WILL_NOT_READ = ["9" * 100_000, '{"n": ' + "7" * 5000 + "}", "[" * 5000 + "]" * 5000, "[1e400, -1e999]",
                             '{"deep": ' + "[" * 3000 + "{}" + "]" * 3000 + "}"]


@pytest.mark.parametrize("text", NOT_JSON, ids=lambda t: t[:14])
def test_words_json_loads_takes_are_not_json(text):
    assert not is_json(text) and not JsonFragments(text).is_complete
    with pytest.raises(NotJson):
        parse_json(text)


@pytest.mark.parametrize("text", JSON_PYTHON_WILL_NOT_READ, ids=lambda t: f"{t[:10]}...{len(t)}")
def test_json_python_will_not_read_is_still_json(text):
    fragments = JsonFragments()
    for start in range(0, len(text), 997):
        fragments.append(text[start:start + 997])
    assert is_json(text) and fragments.is_complete


def test_numbers_compare_exactly_however_long():
    assert arguments_equal('{"n": ' + "7" * 5000 + "}", '{ "n" : ' + "7" * 5000 + " }")
    assert not arguments_equal('{"n": ' + "7" * 5000 + "}", '{"n": ' + "7" * 4999 + "8}")
    assert arguments_equal('{"n": 1e400}', '{"n": 10e399}') and not arguments_equal('{"n": 1e400}', '{"n": 1e401}')
    assert arguments_equal("[" * 5000 + "]" * 5000, "[" * 5000 + "]" * 5000)


def test_nan_arguments_are_not_json_for_the_comparator():
    assert not arguments_equal('{"x": 1}', '{"x": NaN}')
    assert arguments_equal('{"x": NaN}', '{"x": NaN}')  # not JSON: the same bytes, as CONTRACT 4 says
    assert not arguments_equal('{"x": NaN}', '{"x":NaN}')


@given(st.text(alphabet='{}[]":,\\ \t\n0123456789-+.eEtrufalsnNIiy\u00e9\x00', max_size=40)
       | st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                      max_leaves=10).map(json.dumps))
@settings(max_examples=800, deadline=None)
def test_the_deep_value_check_agrees_with_the_parser(text):
    # The check used past the recursion limit is the grammar, like the one used below it.
    assert _is_json_without_recursion(text) == is_json(text)


def chat_call(arguments: str) -> list[dict]:
    return [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
        "finish_reason": "tool_calls"}]}]


@pytest.mark.parametrize("arguments, flagged", [('{"x": NaN}', True), ('{"x": Infinity}', True),
                                                ('{"n": ' + "9" * 100_000 + "}", False), ('{"x": 1}', False)],
                         ids=["nan", "infinity", "long-integer", "plain"])
def test_the_reference_flags_calls_by_rfc_8259(arguments, flagged):
    (part,) = assemble("openai-chat", chat_call(arguments)).result["choices"][0]["parts"]
    assert part.get("flagged", False) is flagged


def test_a_fixture_with_a_bare_nan_is_refused_by_lint_naming_the_file(tmp_path):
    text = json.dumps(TEXT_FIXTURE).replace('"usage": null', '"usage": NaN')
    root = make_corpus(tmp_path, {"openai-chat/text.json": TOOL_FIXTURE})
    (root / "fixtures" / "openai-chat" / "nan.json").write_text(text)
    corpus = load_corpus(root)
    (problem,) = corpus.problems
    assert problem.path.endswith("nan.json") and "not JSON" in problem.message and "NaN" in problem.message
    assert [f.id for f in corpus.fixtures] == ["DC-T00K"]
    output = invoke(["lint", "--corpus", root], 1).output
    assert "nan.json" in output and "not JSON" in output


@pytest.mark.parametrize("data", ['{"choices": [], "x": NaN}', "[" * 5000 + "]" * 5000])
def test_gateway_validity_names_an_event_that_is_not_json_or_too_deep(data):
    from deltacheck.gateways.validity import NotAStream, read_stream

    with pytest.raises(NotAStream, match="event 0: data is"):
        read_stream("openai-chat", f"data: {data}\n\n".encode())


# -- paths: a corpus is what its directory holds; outputs stay in results/ --------------------------


def test_a_corpus_without_a_schema_is_a_usage_error_naming_the_file(tmp_path):
    (tmp_path / "c" / "fixtures").mkdir(parents=True)
    for command in (["lint"], ["run", "--adapter", "reference", "--results", tmp_path / "r.jsonl"]):
        line = error_line(invoke([*command, "--corpus", tmp_path / "c"], 2))
        assert "--corpus" in line and "schema/fixture.schema.json" in line
    with pytest.raises(NotACorpus, match="schema/fixture.schema.json"):
        load_corpus(tmp_path / "c")


def test_a_broken_schema_file_is_a_usage_error_naming_it(corpus_dir, tmp_path):
    (corpus_dir / "schema" / "chunks.schema.json").write_text("{not json")
    line = error_line(invoke(["lint", "--corpus", corpus_dir], 2))
    assert "schema/chunks.schema.json is not JSON" in line


def test_fixtures_linked_outside_the_corpus_are_refused_without_reading_them(tmp_path, monkeypatch):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE})
    elsewhere = tmp_path / "elsewhere"
    (root / "fixtures").rename(elsewhere)
    (root / "fixtures").symlink_to("/")
    line = error_line(invoke(["lint", "--corpus", root], 2))
    assert "fixtures/ is a link to /" in line
    (root / "fixtures").unlink()
    (root / "fixtures").symlink_to(elsewhere)
    with pytest.raises(NotACorpus, match="outside the corpus"):
        load_corpus(root)


def test_a_fixture_folder_linked_outside_the_corpus_is_not_loaded(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "tools.json").write_text(json.dumps(TOOL_FIXTURE))
    (root / "fixtures" / "anthropic-messages").symlink_to(outside)
    corpus = load_corpus(root)
    assert [f.id for f in corpus.fixtures] == ["DC-T3ST"]
    assert all("tools.json" not in p.path or "outside the corpus" in p.message for p in corpus.problems)


def test_a_file_named_results_in_the_way_is_one_usage_error(corpus_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("not a folder")
    line = error_line(invoke(["run", "--adapter", "reference", "--corpus", corpus_dir], 2))
    assert f"{tmp_path / 'results'} is a file" in line and "--results" in line
    assert (tmp_path / "results").read_text() == "not a folder"


@pytest.mark.parametrize("name", ["../../x", "/etc/x", "a/b", "..", ".hidden", "x\\..\\y", ""])
def test_an_adapter_name_never_leads_out_of_results(name, corpus_dir, tmp_path, monkeypatch):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    (work / "odd.py").write_text(ODD_ADAPTER.replace("NAME", json.dumps(name)))
    invoke(["run", "--adapter", "odd.py:Odd", "--corpus", corpus_dir], 0)
    (written,) = (work / "results").iterdir()
    assert written.parent == work / "results" and written.suffix == ".jsonl" and not written.name.startswith(".")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "corpus"]


def test_file_stems_are_plain_names():
    assert file_stem("../../x") == "_.._x" and file_stem("litellm-openai") == "litellm-openai"
    assert "/" not in file_stem("/etc/passwd") and file_stem("..") == "_"


ODD_ADAPTER = """
from deltacheck import Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble


class Odd(Adapter):
    name, library, version, code_path = NAME, "deltacheck", "0", "the reference"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset()

    def assemble(self, request):
        return assemble(request.protocol, request.chunks).result
"""


# -- docs and reports promise what the tool does ----------------------------------------------------


def test_markdown_report_links_nothing_and_hides_seed_references():
    from deltacheck.cli import main
    from click.testing import CliRunner

    output = CliRunner().invoke(main, ["explain", "DC-6A9V", "--format", "markdown"]).output
    assert "seed:" not in output and "https://github.com" not in output
    assert "`can1357/oh-my-pi#1882`" in output
    bare_mentions = re.findall(r"(?<![`\w./-])[\w.-]+/[\w.-]+#\d+", output.replace("`can1357/oh-my-pi#1882`", ""))
    assert all(f"`{m}`" in output for m in bare_mentions)


@pytest.mark.parametrize("text, shown", [
    ("see https://github.com/a/b/pull/12.", "see `a/b#12`."),
    ("(https://github.com/a/b/issues/3)", "(`a/b#3`)"),
    ("as in a/b#4, and c", "as in `a/b#4`, and c"),
    ("docs at https://example.com/x_y", "docs at `https://example.com/x_y`"),
    ("plain *text*", "plain \\*text\\*"),
])
def test_markdown_text_shows_references_as_code(text, shown):
    from deltacheck.contributing.explain import _escape

    assert _escape(text) == shown


def test_readme_says_what_run_prints_for_a_failure():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "followed by the full diff" not in readme and "prints every\ndivergence and the full diff" in readme
