"""Streams that break their protocol: off-schema chunks a fixture declares, and rejected streams."""

from __future__ import annotations

import copy

from deltacheck.corpus.loader import load_corpus
from deltacheck.reference import assemble
from deltacheck.running.runner import run_fixtures
from tests import miniatures
from tests.corpus_builder import TOOL_FIXTURE, fixture, make_corpus

NULL_INDEX = "/chunks/1/choices/0/delta/tool_calls/0/index"


class ReadsNumericIndexText(miniatures.DropsLastPart):
    """Repairs a numeric-string index to its integer, then assembles like the reference."""
    name = "miniature-reads-index-text"
    drop_last = False

    def assemble(self, request):
        chunks = copy.deepcopy(list(request.chunks))
        for chunk in chunks:
            for choice in chunk.get("choices", []):
                for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                    if isinstance(entry.get("index"), str):
                        entry["index"] = int(entry["index"])
        result = copy.deepcopy(assemble(request.protocol, chunks).result)
        if self.drop_last:
            result["choices"][0]["parts"].pop()
            result.pop("events")
        return result


class ReadsIndexTextAndDropsACall(ReadsNumericIndexText):
    name = "miniature-reads-index-text-drops-a-call"
    drop_last = True


def _with_index(value):
    data = copy.deepcopy(TOOL_FIXTURE)
    data["chunks"][1]["choices"][0]["delta"]["tool_calls"][0]["index"] = value
    return data


def _string_index_rejected(**changes):
    data = _with_index("1")
    data["tags"] = data["tags"] + ["off-schema", "rejected-stream"]
    data["off_schema"] = [NULL_INDEX]
    data["rejected"] = {"reason": "an index is an integer (for this test)", "matches": "index"}
    accepted = data.pop("expected")
    data["implementation_defined"] = {"reason": "the repair this test accepts",
                                      "acceptable": [{"description": "\"1\" read as 1", "result": accepted}]}
    data.update(changes)
    return data


def _problems(tmp_path, data):
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": data}))
    return [(p.field, p.message) for p in corpus.problems], corpus


def _verdict(tmp_path, adapter, data):
    _, corpus = _problems(tmp_path, data)
    (record,) = run_fixtures(adapter, corpus, corpus.fixtures, timeout=5.0)
    return record.verdict.verdict


def test_a_broken_chunk_is_a_lint_problem_unless_the_fixture_declares_it(tmp_path):
    problems, _ = _problems(tmp_path, _with_index("1"))
    assert [field for field, _ in problems] == [NULL_INDEX]


def test_a_declared_off_schema_place_must_really_break_the_shape(tmp_path):
    honest = fixture(_with_index(None), tags=TOOL_FIXTURE["tags"] + ["off-schema"], off_schema=[NULL_INDEX])
    problems, corpus = _problems(tmp_path / "honest", honest)
    assert problems == [] and len(corpus.fixtures) == 1
    idle = fixture(TOOL_FIXTURE, tags=TOOL_FIXTURE["tags"] + ["off-schema"], off_schema=[NULL_INDEX])
    problems, _ = _problems(tmp_path / "idle", idle)
    assert problems == [("/off_schema", f"{NULL_INDEX} is listed as off-schema, but nothing there breaks the chunk shape")]


def test_the_tag_and_the_list_come_together(tmp_path):
    untagged = fixture(_with_index(None), off_schema=[NULL_INDEX])
    problems, _ = _problems(tmp_path, untagged)
    assert [field for field, _ in problems] == ["/off_schema"]


def test_a_rejected_stream_lints_when_the_reference_rejects_it_as_declared(tmp_path):
    problems, corpus = _problems(tmp_path, _string_index_rejected())
    assert problems == [] and corpus.fixtures[0].expected is None


def test_a_rejected_stream_the_reference_rejects_otherwise_is_a_lint_problem(tmp_path):
    data = _string_index_rejected(rejected={"reason": "an index is an integer (for this test)", "matches": "finish_reason"})
    problems, _ = _problems(tmp_path, data)
    assert [field for field, _ in problems] == ["/rejected/matches"]


def test_a_stream_the_reference_assembles_cannot_be_declared_rejected(tmp_path):
    data = _string_index_rejected()
    data["chunks"] = TOOL_FIXTURE["chunks"]
    data["off_schema"] = []
    data["tags"] = [t for t in data["tags"] if t != "off-schema"]
    data.pop("off_schema")
    problems, _ = _problems(tmp_path, data)
    assert problems == [("/rejected", "the reference assembles this stream instead of rejecting it")]


def test_expected_and_rejected_never_come_together(tmp_path):
    data = _string_index_rejected(expected=TOOL_FIXTURE["expected"])
    problems, _ = _problems(tmp_path, data)
    assert len(problems) == 1 and problems[0][0] == "/"


def test_raising_the_named_rejection_passes_and_another_error_does_not(tmp_path):
    assert _verdict(tmp_path / "a", miniatures.AsyncReference(), _string_index_rejected()) == "pass"
    assert _verdict(tmp_path / "b", miniatures.Raises(), _string_index_rejected()) == "error"
    named = _string_index_rejected(rejected={"reason": "an index is an integer (for this test)", "matches": "boom"})
    named["rejected"]["matches"] = "index|boom"
    assert _verdict(tmp_path / "c", miniatures.Raises(), named) == "pass"


def test_a_result_passes_only_as_an_acceptable_repair(tmp_path):
    assert _verdict(tmp_path / "a", ReadsNumericIndexText(), _string_index_rejected()) == "pass"
    assert _verdict(tmp_path / "b", ReadsIndexTextAndDropsACall(), _string_index_rejected()) == "fail"
    no_repair = _string_index_rejected()
    no_repair["implementation_defined"] = {"reason": "nothing is acceptable here",
                                           "forbidden": [{"description": "a call dropped", "match": {"/choices/0/parts/1": {"x": 1}}}]}
    _, corpus = _problems(tmp_path / "c", no_repair)
    (record,) = run_fixtures(ReadsNumericIndexText(), corpus, corpus.fixtures, timeout=5.0)
    assert record.verdict.verdict == "fail"
    assert record.verdict.message.startswith("returned a result where a rejection is recommended")
    assert record.verdict.axes["finish"] is False
