"""The Gemini reference assembler, rule by rule (CONTRACT.md 3.3 gemini), and the comparator's part signatures."""

from __future__ import annotations

import pytest

from deltacheck.adapter import CAPABILITIES
from deltacheck.errors import AssemblyError
from deltacheck.judge.compare import compare, normalised
from deltacheck.judge.verdict import strip_unsupported
from deltacheck.protocols.gemini.reference import json_path_segments
from deltacheck.reference import assemble

GEMINI = "gemini"


def chunk(*parts, finish=None, index=0, usage=None, message=None):
    candidate = {"content": {"role": "model", "parts": list(parts)}, "index": index}
    if finish:
        candidate["finishReason"] = finish
    if message:
        candidate["finishMessage"] = message
    out = {"candidates": [candidate]}
    if usage is not None:
        out["usageMetadata"] = usage
    return out


def call(name=None, **fields):
    return {"functionCall": {**({"name": name} if name else {}), **fields}}


def piece(path, **value):
    return call(partialArgs=[{"jsonPath": path, **value}], willContinue=True)


def result(*chunks):
    return assemble(GEMINI, list(chunks)).result


def parts(*chunks):
    return result(*chunks)["choices"][0]["parts"]


def text(value, signature=None):
    part = {"type": "text", "text": value, "annotations": []}
    return {**part, "signature": signature} if signature else part


# -- rules 2 and 3: text joins, a signed part never does -------------------------------------------


def test_text_parts_join_within_and_across_chunks():
    assert parts(chunk({"text": "a"}, {"text": "b"}), chunk({"text": "c"})) == [text("abc")]


def test_an_empty_unsigned_part_adds_nothing_and_an_empty_signed_one_is_a_part():
    assert parts(chunk({"text": "a"}), chunk({"text": ""}), chunk({"text": "b"})) == [text("ab")]
    assert parts(chunk({"text": "a"}), chunk({"text": "", "thoughtSignature": "S"})) == [text("a"), text("", "S")]


def test_a_signed_part_joins_nothing_and_nothing_joins_it():
    assert parts(chunk({"text": "a"}), chunk({"text": "b", "thoughtSignature": "S"}), chunk({"text": "c"})) == [
        text("a"), text("b", "S"), text("c")]
    assert parts(chunk({"text": "a", "thoughtSignature": "S"}, {"text": "b", "thoughtSignature": "T"})) == [
        text("a", "S"), text("b", "T")]


def test_thought_parts_join_among_themselves_and_keep_their_signature():
    got = parts(chunk({"text": "x", "thought": True}), chunk({"text": "y", "thought": True, "thoughtSignature": "S"}),
                chunk({"text": "z"}))
    assert got == [{"type": "reasoning", "text": "x", "summary": [], "signature": None},
                   {"type": "reasoning", "text": "y", "summary": [], "signature": "S"}, text("z")]


def test_parts_the_result_has_no_place_for_do_not_separate_text():
    assert parts(chunk({"text": "a"}, {}, {"inlineData": {"mimeType": "image/png", "data": "AA=="}}, {"text": "b"})) == [
        text("ab")]


# -- rule 5: whole calls ----------------------------------------------------------------------------


def test_each_function_call_part_is_one_call_with_its_id_signature_and_args_as_json_text():
    got = parts(chunk(call("f", args={"a": 1}, id="c1") | {"thoughtSignature": "S"}, call("f", args={"a": 1})))
    assert [(p["id"], p["name"], p["arguments"], p.get("signature")) for p in got] == [
        ("c1", "f", '{"a":1}', "S"), (None, "f", '{"a":1}', None)]


def test_a_call_without_args_has_no_arguments():
    assert parts(chunk(call("ping")))[0]["arguments"] == ""


def test_a_whole_call_completes_at_its_chunk():
    events = result(chunk({"text": "x"}), chunk(call("f", args={})), chunk({"text": ""}, finish="STOP"))["events"]
    assert [(e["name"], e["after_chunk"]) for e in events] == [("f", 1)]


# -- rule 6: Vertex streamed arguments -------------------------------------------------------------


def test_partial_args_build_nested_objects_and_arrays_and_append_string_pieces():
    got = parts(
        chunk(call("f", willContinue=True)),
        chunk(piece("$.a.b[0].c", stringValue="he", willContinue=True)),
        chunk(piece("$.a.b[0].c", stringValue="llo", willContinue=True)),
        chunk(piece("$.a.b[0].c", stringValue="")),
        chunk(call(willContinue=True)),
        chunk(piece("$.a.b[1]", numberValue=2.5)),
        chunk(piece("$['x y']", boolValue=True)),
        chunk(piece("$.n", nullValue="NULL_VALUE")),
        chunk(call(), finish="STOP"),
    )
    assert got[0]["arguments"] == '{"a":{"b":[{"c":"hello"},2.5]},"x y":true,"n":null}'


def test_a_streamed_call_ends_at_a_piece_without_will_continue_at_the_next_name_or_at_the_finish():
    ended_by_piece = result(chunk(call("f", willContinue=True)), chunk(call(partialArgs=[
        {"jsonPath": "$.a", "numberValue": 1}])), chunk(call(), finish="STOP"))
    assert [e["after_chunk"] for e in ended_by_piece["events"]] == [1]
    by_name = result(chunk(call("f", willContinue=True)), chunk(call("g", args={})), chunk({"text": ""}, finish="STOP"))
    assert [(e["name"], e["after_chunk"]) for e in by_name["events"]] == [("f", 1), ("g", 1)]
    by_finish = result(chunk(call("f", willContinue=True)), chunk(piece("$.a", numberValue=1), finish="STOP"))
    assert [e["after_chunk"] for e in by_finish["events"]] == [1]
    by_end = result(chunk(call("f", willContinue=True)), chunk(piece("$.a", numberValue=1)), chunk(call(willContinue=True)))
    assert [e["after_chunk"] for e in by_end["events"]] == [2] and by_end["choices"][0]["finish_reason"] is None


def test_a_keep_alive_or_an_empty_call_with_no_call_open_adds_nothing():
    assert parts(chunk(call(willContinue=True)), chunk(call()), chunk({"text": "a"})) == [text("a")]


@pytest.mark.parametrize("chunks, words", [
    ([chunk(piece("$.a", stringValue="x"))], "continues no streaming call"),
    ([chunk(call("f", willContinue=True)), chunk(piece("$.a[1]", numberValue=1))], "skips elements"),
    ([chunk(call("f", willContinue=True)), chunk(piece("$.a", numberValue=1)), chunk(piece("$.a", numberValue=2))],
     "already holds a value"),
    ([chunk(call("f", willContinue=True)), chunk(call(partialArgs=[{"jsonPath": "$.a", "numberValue": 1, "boolValue": True}]))],
     "not exactly one"),
    ([chunk(call("f", willContinue=True)), chunk(piece("a.b", numberValue=1))], "root"),
    ([chunk({"text": "a", "functionCall": {"name": "f"}})], "both text and a functionCall"),
    ([{"candidates": [{"index": "0", "content": {"parts": []}}]}], "non-negative integer"),
])
def test_the_reference_rejects_what_breaks_the_stream(chunks, words):
    with pytest.raises(AssemblyError, match=words):
        assemble(GEMINI, chunks)


def test_json_paths_read_dot_and_bracket_members_and_indices():
    assert json_path_segments("$.a[0]['b c'][\"d\\\"e\"].f_1") == ("a", 0, "b c", 'd"e', "f_1")
    with pytest.raises(ValueError):
        json_path_segments("$.a[01]")


# -- rules 7 and 9: finish, usage, errors, a blocked prompt ----------------------------------------


def test_usage_is_the_last_usage_metadata_whole_and_finish_message_the_detail():
    got = result(chunk({"text": "a"}, usage={"promptTokenCount": 3, "extra": 1}),
                 chunk({"text": "b"}, usage={"promptTokenCount": 3, "candidatesTokenCount": 2}, finish="MAX_TOKENS",
                       message="cut"))
    assert got["usage"] == {"promptTokenCount": 3, "candidatesTokenCount": 2}
    assert (got["choices"][0]["finish_reason"], got["choices"][0]["finish_detail"]) == ("MAX_TOKENS", "cut")


def test_an_error_chunk_ends_the_stream_with_its_status_else_its_code():
    got = result(chunk({"text": "a"}), {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}},
                 chunk({"text": "b"}, finish="STOP"))
    assert got["error"] == {"type": "UNAVAILABLE", "message": "busy"} and parts_of(got) == [text("a")]
    assert result({"error": {"code": 429, "message": "quota"}})["error"] == {"type": "429", "message": "quota"}


def parts_of(got):
    return got["choices"][0]["parts"]


def test_a_blocked_prompt_is_one_empty_choice_finished_by_the_block_reason():
    got = result({"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "no"}, "usageMetadata": {}})
    assert got["choices"] == [{"index": 0, "parts": [], "finish_reason": "SAFETY", "finish_detail": "no"}]


def test_candidates_are_choices_by_index_absent_meaning_zero():
    got = result({"candidates": [{"content": {"parts": [{"text": "a"}]}},
                                 {"index": 1, "content": {"parts": [{"text": "b"}]}, "finishReason": "STOP"}]})
    assert [(c["index"], c["parts"][0]["text"], c["finish_reason"]) for c in got["choices"]] == [
        (0, "a", None), (1, "b", "STOP")]


# -- the comparator: a part's optional signature ----------------------------------------------------


def _one(part):
    return {"choices": [{"index": 0, "parts": [part], "finish_reason": None, "finish_detail": None}], "usage": None,
            "error": None}


CALL = {"type": "tool_call", "kind": "function", "id": None, "item_id": None, "name": "f", "arguments": "{}"}


@pytest.mark.parametrize("part", [text("a"), CALL])
def test_a_signature_null_empty_or_absent_is_no_signature_and_any_other_is_compared_exactly(part):
    for spelled in (None, ""):
        assert compare(normalised(_one(part), GEMINI), normalised(_one({**part, "signature": spelled}), GEMINI)) == []
    wrong = compare(normalised(_one({**part, "signature": "S"}), GEMINI), normalised(_one({**part, "signature": "T"}), GEMINI))
    assert [d.pointer for d in wrong] == ["/choices/0/parts/0/signature"]
    lost = compare(normalised(_one({**part, "signature": "S"}), GEMINI), normalised(_one(part), GEMINI))
    assert [d.pointer for d in lost] == ["/choices/0/parts/0/signature"]


def test_without_reasoning_signature_a_part_signature_is_n_a():
    stripped, na = strip_unsupported(_one({**CALL, "signature": "S"}), frozenset())
    assert "signature" not in stripped["choices"][0]["parts"][0] and "reasoning_signature" in na


def test_without_reasoning_signature_an_empty_part_that_only_carried_a_signature_is_no_part():
    # an adapter that cannot express signatures cannot express the part that carries nothing else
    signed = {**_one(text("a")), "choices": [{"index": 0, "parts": [text("a"), text("", "S")],
                                              "finish_reason": None, "finish_detail": None}]}
    everything = frozenset(CAPABILITIES)
    stripped, na = strip_unsupported(signed, everything - {"reasoning_signature"})
    assert stripped["choices"][0]["parts"] == [text("a")] and na == ["reasoning_signature"]
    kept, _ = strip_unsupported(signed, everything)
    assert kept["choices"][0]["parts"] == [text("a"), text("", "S")]


def test_an_empty_unsigned_text_part_is_no_part_in_a_gemini_result():
    assert normalised({**_one(text("")), "choices": [{"index": 0, "parts": [text("a"), text("")],
                                                       "finish_reason": None, "finish_detail": None}]},
                      GEMINI)["choices"][0]["parts"] == [text("a")]
    assert len(normalised(_one(text("", "S")), GEMINI)["choices"][0]["parts"]) == 1


def test_lint_names_a_chunk_of_another_response():
    from deltacheck.protocols.gemini.lint import chunk_problems

    chunks = [{**chunk({"text": "a"}), "responseId": "r1"}, {"error": {"message": "x"}},
              {**chunk({"text": "b"}), "responseId": "r2"}]
    assert chunk_problems(chunks) == [("/chunks/2/responseId", "'r2' is not the stream's responseId 'r1'")]


def _parts(*parts):
    return {"choices": [{"index": 0, "parts": list(parts), "finish_reason": None, "finish_detail": None}],
            "usage": None, "error": None}


def test_plain_text_parts_kept_apart_hold_the_same_answer_but_a_signed_part_stays_judged():
    expected = normalised(_parts(text("Hello world"), text("", "S")), GEMINI)
    apart = normalised(_parts(text("Hello"), text(" world"), text("", "S")), GEMINI)
    assert compare(expected, apart) == []  # google-genai's one part per chunk: the same answer
    merged_into_signed = normalised(_parts(text("Hello world", "S")), GEMINI)
    assert compare(expected, merged_into_signed) != []  # a signed part joined with unsigned text (rule 3)
    thoughts = normalised(_parts({"type": "reasoning", "text": "a", "summary": [], "signature": None},
                                 {"type": "reasoning", "text": "b", "summary": [], "signature": None}), GEMINI)
    assert [p["text"] for p in thoughts["choices"][0]["parts"]] == ["ab"]
    mixed = normalised(_parts(text("a"), {"type": "reasoning", "text": "b", "summary": [], "signature": None}), GEMINI)
    assert len(mixed["choices"][0]["parts"]) == 2  # a thought part joins only a thought part


def test_the_chat_protocol_does_not_join_text_parts():
    assert len(normalised(_parts(text("a"), text("b")), "openai-chat")["choices"][0]["parts"]) == 2
