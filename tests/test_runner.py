"""The runner isolates whatever an implementation does, and never loses a recorded line."""

from __future__ import annotations

import json
import time

import pytest

from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from deltacheck.reference import assemble
from deltacheck.running.runner import run_fixtures
from tests import miniatures
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, fixture, make_corpus


def run(adapter, corpus, timeout=5.0):
    return [r.verdict for r in run_fixtures(adapter, corpus, corpus.fixtures, timeout=timeout)]


def small_corpus(tmp_path):
    return load_corpus(make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/tools.json": TOOL_FIXTURE}))


def test_an_implementation_that_raises_gets_error_and_the_run_goes_on(tmp_path):
    verdicts = run(miniatures.Raises(), small_corpus(tmp_path))
    assert [v.verdict for v in verdicts] == ["error", "error"]
    assert "RuntimeError: boom in the library" in verdicts[0].message


class _RaisesWithItsTraceback(miniatures.Raises):
    """Raises as litellm does when it maps an unexpected exception: a traceback formatted into the message."""

    def assemble(self, request):
        raise RuntimeError("APIConnectionError: 'args'\nTraceback (most recent call last):\n  File \"/home/me/x.py\"")


def test_a_traceback_an_implementation_formats_into_its_message_is_not_part_of_the_message(tmp_path):
    verdicts = run(_RaisesWithItsTraceback(), small_corpus(tmp_path))
    assert verdicts[0].message == "raised: RuntimeError: APIConnectionError: 'args' (its traceback is recorded apart)"
    assert "/home/me" not in verdicts[0].message


def test_the_python_driver_leaves_out_a_traceback_formatted_into_a_message():
    from deltacheck.driver.python import run_one

    request = {"fixture": "DC-TEST", "protocol": "openai-chat", "chunks": [], "stream_end": "terminator", "sse": ""}
    reply = run_one(_RaisesWithItsTraceback(), {"seq": 1, "request": request})
    assert reply["errored"]["message"] == "RuntimeError: APIConnectionError: 'args' (its traceback is recorded apart)"
    assert "Traceback" in reply["errored"]["traceback"]


def test_the_python_driver_seeds_the_uuid4_of_fastuuid_too(monkeypatch):
    """litellm invents call ids with fastuuid's uuid4: a run of a fixture gives the same ones every time."""
    import sys
    import types
    import uuid

    from deltacheck.driver.python import seed_randomness

    monkeypatch.setattr(uuid, "uuid4", uuid.uuid4)  # seeding replaces it, as in a driver: put it back afterwards
    fake = types.ModuleType("fastuuid")
    fake.uuid4 = lambda: "random"
    monkeypatch.setitem(sys.modules, "fastuuid", fake)
    seed_randomness("DC-TEST")
    first = [fake.uuid4().hex for _ in range(3)]
    seed_randomness("DC-TEST")
    assert [fake.uuid4().hex for _ in range(3)] == first and len(set(first)) == 3


def test_an_implementation_that_hangs_times_out_and_the_run_goes_on(tmp_path):
    verdicts = run(miniatures.Hangs(), small_corpus(tmp_path), timeout=0.2)
    assert [v.verdict for v in verdicts] == ["timeout", "timeout"]
    # The first timeout of a streak is confirmed by a run three times as long; the next is not run again.
    assert "0.6 s" in verdicts[0].message and "0.2 s" in verdicts[1].message


class _HangsOnce(miniatures._Miniature):
    """Hangs on its first fixture only, as a run slowed by a busy machine looks to the harness."""
    name = "miniature-hangs-once"

    def __init__(self):
        self.calls = 0

    def assemble(self, request):
        self.calls += 1
        while self.calls == 1:
            time.sleep(0.01)
        return assemble(request.protocol, request.chunks).result


def test_a_timeout_that_a_longer_second_run_does_not_repeat_does_not_count(tmp_path):
    adapter = _HangsOnce()
    verdicts = run(adapter, small_corpus(tmp_path), timeout=0.2)
    assert [v.verdict for v in verdicts] == ["pass", "pass"] and adapter.calls == 3


def test_garbage_is_an_error_naming_the_schema_problem(tmp_path):
    (verdict, _) = run(miniatures.Garbage(), small_corpus(tmp_path))
    assert verdict.verdict == "error"
    assert "not a canonical result" in verdict.message and "/choices" in verdict.message


def test_a_dropped_call_fails_with_the_first_divergence_and_a_diff(tmp_path):
    corpus = small_corpus(tmp_path)
    verdicts = {v.fixture: v for v in run(miniatures.DropsLastPart(), corpus)}
    tools = verdicts["DC-T00K"]
    assert tools.verdict == "fail"
    assert tools.first_divergence == "/choices/0/parts/1: expected tool_call 'call_b' (lookup), missing"
    assert tools.axes == {"identity": False, "arguments": True, "ordering": True, "finish": True, "usage": True, "events": False}
    assert "call_b" in tools.diff


def test_an_async_adapter_is_awaited(tmp_path):
    assert [v.verdict for v in run(miniatures.AsyncReference(), small_corpus(tmp_path))] == ["pass", "pass"]


def test_fields_outside_the_capabilities_are_not_compared_and_are_listed(tmp_path):
    (verdict, _) = run(miniatures.TextOnly(), small_corpus(tmp_path))
    assert verdict.verdict == "pass"
    assert "usage" in verdict.na and "finish_reason" in verdict.na


def test_a_fixture_needing_a_missing_capability_is_na_not_pass(tmp_path):
    refusal = fixture(TEXT_FIXTURE, id="DC-R3FV", tags=["refusal"])
    refusal["chunks"] = [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"refusal": "No."}, "finish_reason": "stop"}]}]
    refusal["expected"] = {"choices": [{"index": 0, "parts": [{"type": "refusal", "text": "No."}], "finish_reason": "stop",
                                        "finish_detail": None}], "usage": None, "error": None}
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/refusal.json": refusal}))
    (verdict,) = run(miniatures.TextOnly(), corpus)
    assert verdict.verdict == "n/a" and "refusal" in verdict.message


def test_raise_acceptable_turns_the_named_raise_into_a_pass_with_the_reason(tmp_path):
    lenient = fixture(TEXT_FIXTURE, implementation_defined={"reason": "the provider is silent here", "raise_acceptable": "raising is fine",
                                                           "raise_matches": "boom in the library"})
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": lenient}))
    (verdict,) = run(miniatures.Raises(), corpus)
    assert verdict.verdict == "pass" and verdict.matched == "raise_acceptable"


def test_raise_acceptable_does_not_pass_another_error(tmp_path):
    strict = fixture(TEXT_FIXTURE, implementation_defined={"reason": "the provider is silent here", "raise_acceptable": "raising is fine",
                                                          "raise_matches": "finish_reason"})
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": strict}))
    (verdict,) = run(miniatures.Raises(), corpus)
    assert verdict.verdict == "error" and "not the rejection this fixture accepts, /finish_reason/" in verdict.message


def test_raise_acceptable_without_raise_matches_is_a_lint_problem(tmp_path):
    vague = fixture(TEXT_FIXTURE, implementation_defined={"reason": "the provider is silent here", "raise_acceptable": "raising is fine"})
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": vague}))
    assert [p.field for p in corpus.problems] == ["/implementation_defined"]


def test_an_acceptable_alternative_passes_and_a_forbidden_outcome_is_named(tmp_path):
    alternative = json.loads(json.dumps(TOOL_FIXTURE["expected"]))
    alternative["choices"][0]["parts"].pop()
    defined = fixture(TOOL_FIXTURE, implementation_defined={
        "reason": "a reason long enough",
        "acceptable": [{"description": "the second call may be dropped (for this test only)", "result": alternative}],
        "forbidden": [{"description": "first call renamed", "match": {"/choices/0/parts/0/name": "renamed"}}],
    })
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/x.json": defined}))
    (verdict,) = run(miniatures.DropsLastPart(), corpus)
    assert verdict.verdict == "pass" and verdict.matched.startswith("acceptable/0")


def test_run_writes_every_line_and_skips_a_bad_fixture_with_its_lint_message(tmp_path, monkeypatch):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/tools.json": TOOL_FIXTURE,
                                  "openai-chat/broken.json": "{not json"})
    results = tmp_path / "out.jsonl"
    outcome = CliRunner().invoke(main, ["run", "--adapter", "miniature-drops-last-part", "--corpus", str(root),
                                        "--results", str(results)])
    assert outcome.exit_code == 1  # a failure was recorded
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["corpus_version"] == "9.9.9"
    by_file = {line.get("path", "").rsplit("/", 1)[-1]: line for line in lines[1:-1]}
    assert by_file["broken.json"]["verdict"] == "skip" and "not JSON" in by_file["broken.json"]["message"]
    assert by_file["tools.json"]["verdict"] == "fail" and by_file["tools.json"]["first_divergence"]
    assert by_file["text.json"]["verdict"] == "fail"  # its only part was dropped
    assert lines[-1] == {"kind": "footer", "counts": {"fail": 2, "skip": 1}, "interrupted": False}


def test_lines_already_written_survive_a_later_failure(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/a.json": TEXT_FIXTURE, "openai-chat/b.json": TOOL_FIXTURE})
    results = tmp_path / "out.jsonl"
    CliRunner().invoke(main, ["run", "--adapter", "miniature-raises", "--corpus", str(root), "--results", str(results)])
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["header", "running", "result", "running", "result", "footer"]
    assert [line.get("verdict") for line in lines if line["kind"] == "result"] == ["error", "error"]


def test_events_are_judged_even_when_the_result_equals_the_expected(tmp_path):
    verdicts = {v.fixture: v for v in run(miniatures.CompletesEarly(), small_corpus(tmp_path))}
    assert verdicts["DC-T3ST"].verdict == "pass"  # no tool calls, no events to judge
    assert verdicts["DC-T00K"].verdict == "fail" and verdicts["DC-T00K"].axes["events"] is False
    assert "before its last fragment" in verdicts["DC-T00K"].message


def test_a_bug_in_what_the_adapter_can_express_still_fails_when_the_subject_is_na(tmp_path):
    class MergesChoices(miniatures.TextOnly):
        """Cannot express choice 1, and folds its text into choice 0 (a real pattern)."""
        name = "miniature-merges-choices"

        def assemble(self, request):
            result = super().assemble(request)
            texts = [p["text"] for c in result["choices"] for p in c["parts"]]
            result["choices"] = [{**result["choices"][0], "parts": [{"type": "text", "text": "".join(texts), "annotations": []}]}]
            return result

    two = fixture(TEXT_FIXTURE, id="DC-TW02", tags=["text", "multiple-choices"])
    two["chunks"] = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Red"}, "finish_reason": "stop"}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 1, "delta": {"content": "Blue"}, "finish_reason": "stop"}]},
    ]
    two["expected"] = {"choices": [
        {"index": i, "parts": [{"type": "text", "text": t, "annotations": []}], "finish_reason": "stop", "finish_detail": None}
        for i, t in ((0, "Red"), (1, "Blue"))], "usage": None, "error": None}
    corpus = load_corpus(make_corpus(tmp_path, {"openai-chat/two.json": two, "openai-chat/text.json": TEXT_FIXTURE}))
    verdicts = {v.fixture: v for v in run(MergesChoices(), corpus)}
    assert verdicts["DC-TW02"].verdict == "fail"  # choice 0 reads "RedBlue": visible even though choice 1 is n/a
    assert verdicts["DC-T3ST"].verdict == "pass"
    assert {v.verdict for v in run(miniatures.TextOnly(), corpus)} == {"n/a", "pass"}


@pytest.mark.parametrize("message, accepted", [
    ("ValueError: unexpected end of JSON input", True),
    ("SyntaxError: Unexpected token } in JSON at position 3", True),
    ("TypeError: Cannot read properties of undefined (reading 'json')", False),  # a crash, not a rejection
    ("AssertionError: ", False),
    ("RuntimeError: something else broke", False),  # not the rejection the pattern names
])
def test_an_accepted_raise_is_the_strict_rejection_the_fixture_names(message, accepted):
    from deltacheck.judge.verdict import is_accepted_rejection

    assert is_accepted_rejection(r"json|parse|unexpected (token|end)", message) is accepted
