"""Event rules (CONTRACT.md 3.4): once, fully, with its own identity, never before its last fragment."""

from __future__ import annotations

import copy

from deltacheck.adapter import CAPABILITIES
from deltacheck.corpus.loader import load_corpus, result_validator
from deltacheck.model import Fixture
from deltacheck.reference import assemble
from deltacheck.judge.verdict import Returned, judge
from tests.corpus_builder import TOOL_FIXTURE

EVERYTHING = frozenset(CAPABILITIES)


def judged_events(events):
    fixture = Fixture.from_json(copy.deepcopy(TOOL_FIXTURE), "tests")
    reference = assemble(fixture.protocol, fixture.chunks)
    observed = {**copy.deepcopy(fixture.expected), "events": events}
    return judge(fixture, Returned(observed), EVERYTHING, result_validator(), reference)


def done(id, name, arguments, after):
    return {"type": "tool_call_done", "choice": 0, "id": id, "name": name, "arguments": arguments, "after_chunk": after}


GOOD = [done("call_a", "search", '{"q":"x"}', 2), done("call_b", "lookup", '{"id":1}', 2)]


def test_the_reference_events_pass():
    verdict = judged_events(GOOD)
    assert verdict.verdict == "pass" and verdict.axes["events"]


def test_a_call_completed_before_its_last_fragment_fails_the_events_axis():
    # call_a's last fragment is chunk 2; completing it when call_b starts (chunk 1) is the Koog bug.
    verdict = judged_events([done("call_a", "search", '{"q":"x"}', 1), GOOD[1]])
    assert verdict.verdict == "fail" and verdict.axes == {**verdict.axes, "events": False, "identity": True}
    assert "before its last fragment in chunk 2" in verdict.message


def test_a_call_completed_twice_fails():
    verdict = judged_events(GOOD + [GOOD[0]])
    assert "completed 2 times" in verdict.message


def test_a_call_that_never_completes_fails():
    assert "never completed" in judged_events(GOOD[1:]).message


def test_partial_arguments_in_a_completion_fail():
    verdict = judged_events([done("call_a", "search", '{"q":', 2), GOOD[1]])
    assert "completed with arguments" in verdict.message


def test_a_completion_with_the_item_id_instead_of_the_call_id_is_an_unknown_call():
    verdict = judged_events([GOOD[0], done("fc_b", "lookup", '{"id":1}', 2)])
    assert "never completed" in verdict.message or "does not exist" in verdict.message


def test_the_reference_events_pass_on_every_corpus_fixture():
    corpus = load_corpus()
    for fixture in corpus.fixtures:
        if fixture.rejection:
            continue  # the reference rejects the stream: no events to judge (lint checks the rejection)
        reference = assemble(fixture.protocol, fixture.chunks)
        verdict = judge(fixture, Returned(reference.result), EVERYTHING, result_validator(), reference)
        assert verdict.verdict == "pass", (fixture.id, verdict.message)


def test_a_call_set_aside_as_n_a_is_not_judged_on_the_events_axis():
    # DC-TYF5's one call is a custom tool call: an adapter without custom_tools has it removed as
    # n/a, so its events neither miss the call nor name a call that does not exist.
    fixture = next(f for f in load_corpus().fixtures if f.id == "DC-TYF5")
    reference = assemble(fixture.protocol, fixture.chunks)
    call = fixture.expected["choices"][0]["parts"][0]
    without_custom = EVERYTHING - {"custom_tools"}
    silent = {**copy.deepcopy(fixture.expected), "events": []}
    silent["choices"][0]["parts"] = []
    verdict = judge(fixture, Returned(silent), without_custom, result_validator(), reference)
    assert verdict.verdict == "pass", verdict.message
    completed = {**silent, "events": [done(call["id"], call["name"], call["arguments"], len(fixture.chunks) - 1)]}
    verdict = judge(fixture, Returned(completed), without_custom, result_validator(), reference)
    assert verdict.verdict == "pass", verdict.message
    # With the capability the same silence is a call that never completed.
    verdict = judge(fixture, Returned(silent), EVERYTHING, result_validator(), reference)
    assert verdict.verdict == "fail" and not verdict.axes["events"]


def test_a_call_the_stream_sent_without_an_id_is_named_by_its_choice_and_name_whatever_id_it_was_given():
    data = copy.deepcopy(TOOL_FIXTURE)
    for part in data["expected"]["choices"][0]["parts"]:
        if part["type"] == "tool_call":
            part["id"] = None  # as if the stream had sent none (the reference's events name calls by position)
    fixture = Fixture.from_json(data, "tests")
    expected = fixture.expected
    reference = assemble(fixture.protocol, fixture.chunks)
    observed = {**copy.deepcopy(expected), "events": [done("invented_1", "search", '{"q":"x"}', 2),
                                                      done("invented_2", "lookup", '{"id":1}', 2)]}
    verdict = judge(fixture, Returned(observed), EVERYTHING, result_validator(), reference)
    assert verdict.axes["events"], verdict.message
    late = {**observed, "events": [done("invented_1", "search", '{"q":"x"}', 1), observed["events"][1]]}
    assert "before its last fragment" in judge(fixture, Returned(late), EVERYTHING, result_validator(), reference).message
