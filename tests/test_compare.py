"""The comparison: JSON equality, argument equality, part alignment, axes, pointers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from deltacheck.judge.compare import (MISSING, arguments_equal, compare, confusable_leaves, equal_to_known, full_diff, json_equal,
                                resolve_pointer)


def call(id, name, arguments="{}"):
    return {"type": "tool_call", "kind": "function", "id": id, "item_id": None, "name": name, "arguments": arguments}


def result(*parts, finish="tool_calls", usage=None):
    return {"choices": [{"index": 0, "parts": list(parts), "finish_reason": finish, "finish_detail": None}],
            "usage": usage, "error": None}


def test_booleans_are_never_numbers():
    assert not json_equal(True, 1)
    assert not json_equal({"a": 1}, {"a": True})
    assert json_equal(1, 1.0)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    # at any depth, on either side, in objects and in lists
    assert not json_equal({"a": True}, {"a": 1})
    assert not json_equal([{"a": ["x", [0]]}], [{"a": ["x", [False]]}])
    assert not json_equal({"a": {"b": 1.0}}, {"a": {"b": True}})
    assert json_equal({"a": [True, None, "t"]}, {"a": [True, None, "t"]})


def test_arguments_compare_as_parsed_json():
    assert arguments_equal('{"a": 1, "b": [true]}', '{"b":[true],"a":1}')
    assert not arguments_equal('{"a": 1}', '{"a": "1"}')
    assert not arguments_equal('{"a": 1}', '{"a": 1')


def test_arguments_that_are_not_json_compare_byte_for_byte():
    assert arguments_equal('{"a": "cut', '{"a": "cut')
    assert not arguments_equal('{"a": "cut', '{"a":"cut')
    assert not arguments_equal("", "{}")


def test_equal_results_have_no_divergence():
    assert compare(result(call("a", "f")), result(call("a", "f"))) == []


def test_a_dropped_middle_call_is_one_missing_call():
    expected = result(call("a", "f"), call("b", "g"), call("c", "h"))
    observed = result(call("a", "f"), call("c", "h"))
    (divergence,) = compare(expected, observed)
    assert divergence.pointer == "/choices/0/parts/1"
    assert divergence.axis == "identity"
    assert divergence.observed is MISSING
    assert "tool_call 'b' (g), missing" in divergence.describe()


def test_a_wrong_name_points_at_the_name():
    (divergence,) = compare(result(call("a", "lookup")), result(call("a", "")))
    assert divergence.describe() == '/choices/0/parts/0/name: expected "lookup", got ""'
    assert divergence.axis == "identity"


def test_wrong_arguments_are_on_the_arguments_axis():
    (divergence,) = compare(result(call("a", "f", '{"x":1}')), result(call("a", "f", '{"x":2}')))
    assert (divergence.pointer, divergence.axis) == ("/choices/0/parts/0/arguments", "arguments")


def test_the_same_parts_in_another_order_are_an_ordering_divergence():
    (divergence,) = compare(result(call("a", "f"), call("b", "g")), result(call("b", "g"), call("a", "f")))
    assert divergence.axis == "ordering"


def test_finish_reason_is_on_the_finish_axis_and_usage_on_its_own():
    divergences = compare(result(finish="stop", usage={"total_tokens": 3}), result(finish=None, usage=None))
    assert {(d.pointer, d.axis, d.kind) for d in divergences} == {("/choices/0/finish_reason", "finish", "lost"),
                                                                 ("/usage", "usage", "lost")}


def test_a_divergence_names_its_kind_and_its_place_with_indices_generalised():
    divergences = compare(result(usage=None), result(usage={"total_tokens": 3}))
    assert [(d.kind, d.place()) for d in divergences] == [("invented", "/usage")]


def test_a_missing_choice_is_reported_once():
    expected = {"choices": [{"index": 0, "parts": [], "finish_reason": "stop", "finish_detail": None},
                            {"index": 1, "parts": [], "finish_reason": "stop", "finish_detail": None}],
                "usage": None, "error": None}
    observed = {**expected, "choices": expected["choices"][:1]}
    (divergence,) = compare(expected, observed)
    assert divergence.pointer == "/choices/1"


def test_the_full_diff_shows_both_sides():
    diff = full_diff({"a": 1}, {"a": 2})
    assert "-  \"a\": 1" in diff and "+  \"a\": 2" in diff


def test_pointers_resolve_with_escapes():
    assert resolve_pointer({"a/b": [0, {"c~d": 5}]}, "/a~1b/1/c~0d") == 5
    assert resolve_pointer({"a": []}, "/a/0") is MISSING


def test_a_numeric_error_type_is_normalised_to_its_text_once_for_every_adapter():
    from deltacheck.judge.compare import normalised

    assert normalised({"error": {"type": 502, "message": "m"}})["error"] == {"type": "502", "message": "m"}
    assert normalised({"error": {"type": True, "message": "m"}})["error"]["type"] is True  # not a number
    assert normalised({"error": None}) == {"error": None}


def test_null_valued_usage_keys_say_no_more_than_absent_ones():
    from deltacheck.judge.compare import normalised

    usage = {"prompt_tokens": 10, "completion_tokens_details": None, "prompt_tokens_details": {"cached_tokens": None, "audio": 1}}
    assert normalised({"usage": usage})["usage"] == {"prompt_tokens": 10, "prompt_tokens_details": {"audio": 1}}
    assert normalised({"usage": {"prompt_tokens": 0}})["usage"] == {"prompt_tokens": 0}  # zero is a value


def test_empty_object_usage_keys_say_no_more_than_absent_ones():
    # Bedrock sends `serverToolUsage: {}`, a member its service model lacks; AWS's SDKs drop it.
    from deltacheck.judge.compare import normalised

    usage = {"inputTokens": 5, "serverToolUsage": {}, "cacheDetails": {"ttl": {}, "n": 0}}
    assert normalised({"usage": usage})["usage"] == {"inputTokens": 5, "cacheDetails": {"n": 0}}
    assert not compare(normalised({"usage": usage}), normalised({"usage": {"inputTokens": 5, "cacheDetails": {"n": 0}}}))
    assert normalised({"usage": {"serverToolUsage": {"webSearch": 1}}})["usage"] == {"serverToolUsage": {"webSearch": 1}}


def test_no_arguments_is_one_value_however_it_is_spelled():
    from deltacheck.judge.compare import normalised

    for spelling in (None, "", "  ", "{}"):
        assert normalised(result(call("c", "f", spelling)))["choices"][0]["parts"][0]["arguments"] == "{}"
    # real arguments, and the JSON literal null, are left alone
    assert normalised(result(call("c", "f", "null")))["choices"][0]["parts"][0]["arguments"] == "null"
    assert not compare(normalised(result(call("c", "f", ""))), normalised(result(call("c", "f", None))))
    assert compare(normalised(result(call("c", "f", ""))), normalised(result(call("c", "f", '{"a":1}'))))


def test_a_custom_tool_input_is_text_so_empty_is_not_an_empty_object():
    from deltacheck.judge.compare import normalised

    custom = {**call("c", "f", None), "kind": "custom"}
    assert normalised(result(custom))["choices"][0]["parts"][0]["arguments"] == ""
    assert compare(normalised(result({**custom, "arguments": ""})), normalised(result({**custom, "arguments": "{}"})))


def test_completion_events_spell_no_arguments_the_same_way():
    from deltacheck.judge.compare import normalised

    event = {"type": "tool_call_done", "choice": 0, "id": "c", "name": "f", "arguments": None, "after_chunk": None}
    assert normalised({**result(), "events": [event]})["events"][0]["arguments"] == "{}"


def test_an_unflagged_call_is_one_without_the_flag():
    from deltacheck.judge.compare import normalised

    unflagged = {**call("c", "f", '{"a":1}'), "flagged": False}
    assert "flagged" not in normalised(result(unflagged))["choices"][0]["parts"][0]
    flagged = {**call("c", "f", '{"a":'), "flagged": True}
    assert [d.axis for d in compare(normalised(result(flagged)), normalised(result(call("c", "f", '{"a":'))))] == ["arguments"]


def test_the_reference_flags_a_call_whose_arguments_are_not_json_when_the_stream_ends():
    from deltacheck.reference import assemble

    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a": "b'}}]}, "finish_reason": "length"}]}
    (part,) = assemble("openai-chat", [chunk]).result["choices"][0]["parts"]
    assert part["flagged"] is True and part["arguments"] == '{"a": "b'
    chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = ""
    (part,) = assemble("openai-chat", [chunk]).result["choices"][0]["parts"]
    assert "flagged" not in part  # no arguments is not broken arguments


_LEAVES = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 0.0, 1.0, 2, -1, 1.5]), st.text(max_size=2))
_JSON = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(st.sampled_from("abc"), inner, max_size=3)),
                     max_leaves=12)


def _kinds_swapped(value, flips):
    """`value` with some booleans and 0/1 numbers traded for each other (still `==` to it)."""
    if isinstance(value, dict):
        return {k: _kinds_swapped(v, flips) for k, v in value.items()}
    if isinstance(value, list):
        return [_kinds_swapped(v, flips) for v in value]
    if (type(value) is bool or value in (0, 1)) and not isinstance(value, str) and value is not None and next(flips):
        return bool(value) if type(value) is not bool else int(value)
    return value


@settings(max_examples=300, derandomize=True, deadline=None)
@given(_JSON, st.lists(st.booleans(), min_size=1, max_size=20), _JSON)
def test_equal_to_known_is_json_equal(expected, flips, other):
    from itertools import cycle

    leaves = confusable_leaves(expected)
    for observed in (expected, _kinds_swapped(expected, cycle(flips)), other):
        assert equal_to_known(observed, expected, leaves) == json_equal(observed, expected)


def test_an_empty_text_part_is_no_part_where_the_protocol_omits_empty_parts():
    # CONTRACT 3.2: a Chat choice that sent no content (or only "") has no text part; an
    # implementation that reports one with "" says the same thing. Responses keeps its empty parts.
    from deltacheck.judge.compare import normalised

    call = {"type": "tool_call", "kind": "function", "id": "c", "item_id": None, "name": "f", "arguments": "{}"}
    bare = {"choices": [{"index": 0, "parts": [call], "finish_reason": "tool_calls"}]}
    with_empty = {"choices": [{"index": 0, "parts": [
        {"type": "text", "text": "", "annotations": []}, {"type": "refusal", "text": ""},
        {"type": "reasoning", "text": "", "summary": [], "signature": None}, call], "finish_reason": "tool_calls"}]}
    assert normalised(with_empty, "openai-chat") == bare
    assert normalised(with_empty, "openai-responses") == with_empty
    assert normalised(with_empty) == with_empty
    some_text = {"choices": [{"index": 0, "parts": [{"type": "text", "text": " ", "annotations": []}]}]}
    assert normalised(some_text, "openai-chat") == some_text


def test_usage_is_compared_key_by_key_and_a_key_the_stream_did_not_carry_is_unexpected():
    expected = {"usage": {"prompt_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 0}}}
    observed = {"usage": {"prompt_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 1}, "cost": 0.5}}
    divergences = compare(expected, observed)
    assert [(d.pointer, d.axis, d.kind) for d in divergences] == [
        ("/usage/completion_tokens_details/reasoning_tokens", "usage", "differs"),
        ("/usage/cost", "usage", "unexpected"),
    ]
    assert [(d.pointer, d.kind) for d in compare({"usage": None}, observed)] == [("/usage", "invented")]
