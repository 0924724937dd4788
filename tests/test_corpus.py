"""Loading and linting a corpus: every problem names file, fixture id and field; the rest loads."""

from __future__ import annotations

from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, fixture, make_corpus


def problems_of(corpus):
    return {(p.path.split("fixtures/")[-1], p.fixture_id, p.field) for p in corpus.problems}


def test_the_bundled_corpus_lints_clean():
    corpus = load_corpus()
    assert [str(p) for p in corpus.problems] == []
    assert len(corpus.fixtures) >= 60


def test_a_good_corpus_loads(tmp_path):
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE}))
    assert corpus.problems == [] and [f.id for f in corpus.fixtures] == ["DC-T3ST"]
    assert corpus.cite("DC-T3ST") == "DC-T3ST@9.9.9"


def test_each_kind_of_bad_file_is_named_and_the_rest_still_loads(tmp_path):
    files = {
        "openai-chat/good.json": TEXT_FIXTURE,
        "openai-chat/not-json.json": "{\"id\": ",
        "openai-chat/no-title.json": {k: v for k, v in fixture(TEXT_FIXTURE, id="DC-0001").items() if k != "title"},
        "openai-chat/bad-protocol.json": fixture(TEXT_FIXTURE, id="DC-0002", protocol="smoke-signals"),
        "openai-chat/bad-tag.json": fixture(TEXT_FIXTURE, id="DC-0003", tags=["text", "vibes"]),
        "openai-chat/bad-chunk.json": fixture(TEXT_FIXTURE, id="DC-0004", chunks=[{"choices": [{"delta": {}}]}]),
        "openai-chat/duplicate-too.json": fixture(TOOL_FIXTURE, id="DC-D0P3"),
        "openai-chat/duplicate-again.json": fixture(TOOL_FIXTURE, id="DC-D0P3", title="the same behaviour once more"),
        "openai-chat/wrong-expected.json": fixture(TEXT_FIXTURE, id="DC-0005", expected={
            **TEXT_FIXTURE["expected"], "choices": [{**TEXT_FIXTURE["expected"]["choices"][0], "finish_reason": "length"}]}),
        "openai-chat/should-title.json": fixture(TEXT_FIXTURE, id="DC-0006", title="text should be joined"),
    }
    corpus = load_corpus(make_corpus(tmp_path, files))
    assert [f.id for f in corpus.fixtures] == ["DC-T3ST"]
    found = problems_of(corpus)
    assert ("openai-chat/not-json.json", None, "/") in found
    assert ("openai-chat/no-title.json", "DC-0001", "/") in found
    assert ("openai-chat/bad-protocol.json", "DC-0002", "/protocol") in found
    assert ("openai-chat/bad-tag.json", "DC-0003", "/tags/1") in found
    assert ("openai-chat/bad-chunk.json", "DC-0004", "/chunks/0/choices/0") in found
    assert ("openai-chat/duplicate-too.json", "DC-D0P3", "/id") in found
    assert ("openai-chat/duplicate-again.json", "DC-D0P3", "/id") in found
    assert ("openai-chat/wrong-expected.json", "DC-0005", "/expected/choices/0/finish_reason") in found
    assert ("openai-chat/should-title.json", "DC-0006", "/title") in found
    messages = {p.field: p.message for p in corpus.problems if p.fixture_id == "DC-0001"}
    assert "'title' is a required property" in messages["/"]


def test_a_chunk_the_reference_cannot_assemble_is_named_by_position(tmp_path):
    chunks = TEXT_FIXTURE["chunks"] + [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": 7}}]}]
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": fixture(TEXT_FIXTURE, chunks=chunks)}))
    (problem,) = corpus.problems
    assert problem.field == "/chunks/2" and "not a string" in problem.message


def test_a_forbidden_outcome_cannot_describe_the_expected_result(tmp_path):
    bad = fixture(TEXT_FIXTURE, implementation_defined={
        "reason": "a reason long enough", "forbidden": [{"description": "no", "match": {"/choices/0/finish_reason": "stop"}}]})
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": bad}))
    assert [p.field for p in corpus.problems] == ["/implementation_defined/forbidden/0"]


def test_lint_exits_nonzero_with_one_line_per_problem(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/a.json": TEXT_FIXTURE, "openai-chat/b.json": "nope"})
    outcome = CliRunner().invoke(main, ["lint", "--corpus", str(root)])
    assert outcome.exit_code == 1
    assert "openai-chat/b.json: <no id>: /: not JSON" in outcome.output


def test_lint_passes_on_a_clean_corpus(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/a.json": TEXT_FIXTURE})
    outcome = CliRunner().invoke(main, ["lint", "--corpus", str(root)])
    assert outcome.exit_code == 0, outcome.output
    assert "1 fixtures OK" in outcome.output


def test_new_id_never_returns_a_used_or_retired_id(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/a.json": TEXT_FIXTURE})
    (root / "RETIRED_IDS").write_text("DC-0000  # removed in 2.0.0\n")
    ids = {CliRunner().invoke(main, ["new-id", "--corpus", str(root)]).output.strip() for _ in range(30)}
    assert all(len(i) == 7 and i.startswith("DC-") for i in ids)
    assert not ids & {"DC-T3ST", "DC-0000"}
