"""The Bedrock ConverseStream reference assembler, rule by rule (CONTRACT.md 3.3 bedrock-converse)."""

from __future__ import annotations

import base64

import pytest

from deltacheck.errors import AssemblyError
from deltacheck.judge.compare import compare
from deltacheck.reference import assemble

BEDROCK = "bedrock-converse"


def start():
    return {"messageStart": {"role": "assistant"}}


def text(index, value):
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"text": value}}}


def tool_start(index, tool_id="tooluse_1", name="lookup", **extra):
    return {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": tool_id, "name": name, **extra}}}}


def tool_input(index, value):
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": value}}}}


def reasoning(index, **value):
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"reasoningContent": value}}}


def stop_block(index):
    return {"contentBlockStop": {"contentBlockIndex": index}}


def stop(reason="end_turn"):
    return {"messageStop": {"stopReason": reason}}


def metadata(**usage):
    return {"metadata": {"usage": usage or {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}, "metrics": {"latencyMs": 5}}}


def result(*chunks):
    return assemble(BEDROCK, list(chunks)).result


def parts(*chunks):
    return result(*chunks)["choices"][0]["parts"]


# -- rule 1: one message, padding ignored --------------------------------------------------------------


def test_one_choice_and_the_padding_field_is_nothing():
    padded = {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}, "p": "abcdef"}}
    out = result({"messageStart": {"role": "assistant", "p": "ab"}}, padded, stop(), metadata())
    assert [c["index"] for c in out["choices"]] == [0]
    assert out["choices"][0]["parts"] == [{"type": "text", "text": "Hi", "annotations": []}]
    assert "p" not in out["usage"]


# -- rule 2: blocks by contentBlockIndex, kinds, rejections --------------------------------------------


def test_blocks_are_in_index_order_and_a_text_block_needs_no_start():
    out = parts(start(), tool_start(1), tool_input(1, "{}"), text(0, "first"), stop_block(1), stop_block(0), stop())
    assert [p["type"] for p in out] == ["text", "tool_call"]


def test_an_empty_start_names_no_kind_and_the_first_delta_does():
    empty = {"contentBlockStart": {"contentBlockIndex": 0, "start": {}}}
    assert parts(start(), empty, text(0, "Hi"), stop_block(0)) == [{"type": "text", "text": "Hi", "annotations": []}]


@pytest.mark.parametrize(
    "chunks, words",
    [
        ([tool_start(0), text(0, "x")], "a text delta for block 0, a tool block"),
        ([tool_start(0), tool_start(0)], "already began"),
        ([text(0, "a"), stop_block(0), text(0, "b")], "after its contentBlockStop"),
        ([text(0, "a"), stop_block(0), stop_block(0)], "already stopped"),
        ([stop_block(3)], "never began"),
        ([{"contentBlockDelta": {"contentBlockIndex": "0", "delta": {"text": "a"}}}], "not a non-negative integer"),
        ([{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "a", "toolUse": {"input": ""}}}}], "union"),
        ([{"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "x"}}}}], "toolUseId"),
        ([{"messageStop": {}}], "stopReason"),
        ([{"a": {}, "b": {}}], "exactly one key"),
        ([{":frame-error": "message checksum mismatch"}], "must end here"),
    ],
)
def test_a_broken_stream_is_rejected_naming_what_breaks_it(chunks, words):
    with pytest.raises(AssemblyError, match=words):
        result(start(), *chunks)


# -- rule 3: text and citations --------------------------------------------------------------------------


def test_text_is_joined_citations_are_annotations_and_an_empty_block_is_no_part():
    citation = {"title": "doc", "sourceContent": [{"text": "quoted"}]}
    out = parts(
        start(),
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": citation}}},
        text(0, "quo"),
        text(0, "ted"),
        stop_block(0),
        text(1, ""),
        stop_block(1),
        stop(),
    )
    assert out == [{"type": "text", "text": "quoted", "annotations": [citation]}]


# -- rule 4: tool calls ----------------------------------------------------------------------------------


def test_a_call_joins_its_input_and_no_input_is_the_empty_object():
    out = parts(
        start(), tool_start(0, "a"), tool_input(0, '{"x"'), tool_input(0, ": 1}"), stop_block(0),
        tool_start(1, "b"), tool_input(1, ""), stop_block(1), tool_start(2, "c"), stop_block(2), stop("tool_use"),
    )
    assert [(p["id"], p["arguments"]) for p in out] == [("a", '{"x": 1}'), ("b", "{}"), ("c", "{}")]


def test_a_server_tool_use_is_the_api_s_own_call_and_its_result_block_a_server_result():
    result_start = {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolResult": {"toolUseId": "s"}}}}
    items = [{"text": "found"}]
    out = parts(
        start(), tool_start(0, "s", "web_search", type="server_tool_use"), stop_block(0), result_start,
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolResult": items}}}, stop_block(1),
    )
    assert out[0]["kind"] == "server"
    assert out[1] == {"type": "server_tool_result", "block_type": "toolResult", "tool_use_id": "s", "content": items}


def test_a_call_completes_at_its_stop_else_at_message_stop_else_at_the_end():
    stopped = result(start(), tool_start(0), tool_input(0, "{}"), stop_block(0), stop("tool_use"))
    assert [e["after_chunk"] for e in stopped["events"]] == [3]
    at_message_stop = result(start(), tool_start(0), tool_input(0, "{}"), stop("tool_use"), metadata())
    assert [e["after_chunk"] for e in at_message_stop["events"]] == [3]
    cut = result(start(), tool_start(0), tool_input(0, '{"a": '))
    assert [e["after_chunk"] for e in cut["events"]] == [2]
    assert cut["choices"][0]["parts"][0]["flagged"] is True


def test_a_call_under_end_turn_stands():
    assert parts(start(), tool_start(0), stop_block(0), stop("end_turn"))[0]["type"] == "tool_call"


# -- rule 5: reasoning ----------------------------------------------------------------------------------


def test_reasoning_text_and_a_signature_in_a_delta_of_its_own_and_a_signature_only_block():
    out = parts(
        start(), reasoning(0, text="think"), reasoning(0, text=""), reasoning(0, signature="sig"), stop_block(0),
        reasoning(1, text=""), reasoning(1, signature="only"), stop_block(1), reasoning(2, text=""), stop_block(2),
    )
    assert out == [
        {"type": "reasoning", "text": "think", "summary": [], "signature": "sig"},
        {"type": "reasoning", "text": "", "summary": [], "signature": "only"},
    ]


def test_redacted_content_is_its_bytes_joined_and_never_mixed_with_text():
    one, two = base64.b64encode(b"ab").decode(), base64.b64encode(b"cd").decode()
    out = parts(start(), reasoning(0, redactedContent=one), reasoning(0, redactedContent=two), stop_block(0))
    assert out == [{"type": "redacted_reasoning", "data": base64.b64encode(b"abcd").decode()}]
    with pytest.raises(AssemblyError, match="a reasoningContent delta for block 0, a redacted block"):
        result(start(), reasoning(0, redactedContent=one), reasoning(0, text="x"))
    with pytest.raises(AssemblyError, match="not base64"):
        result(start(), reasoning(0, redactedContent="not base64!"))


# -- rule 6: stop reason and usage ------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["stop first", "metadata first"])
def test_the_stop_reason_and_the_whole_usage_in_either_order(order):
    usage = {"inputTokens": 5, "outputTokens": 1, "totalTokens": 6, "cacheReadInputTokens": 4, "serverToolUsage": {}}
    tail = [stop("max_tokens"), metadata(**usage)]
    out = result(start(), text(0, "x"), *(tail if order == "stop first" else tail[::-1]))
    assert (out["choices"][0]["finish_reason"], out["choices"][0]["finish_detail"], out["usage"]) == (
        "max_tokens",
        None,
        usage,
    )


def test_no_message_stop_and_no_metadata_leave_both_unset():
    out = result(start(), text(0, "cut"))
    assert (out["choices"][0]["finish_reason"], out["usage"]) == (None, None)


# -- rule 7: exceptions and errors ------------------------------------------------------------------------


def test_an_exception_ends_assembly_with_its_type_and_message():
    out = result(start(), text(0, "a"), {"throttlingException": {"message": "slow down"}}, text(0, "b"), stop())
    assert out["error"] == {"type": "throttlingException", "message": "slow down"}
    assert out["choices"][0]["parts"][0]["text"] == "a" and out["choices"][0]["finish_reason"] is None


def test_an_unmodelled_error_gives_its_code_and_message():
    out = result(start(), {"Error": {"Code": "InternalFailure", "Message": "boom"}})
    assert out["error"] == {"type": "InternalFailure", "message": "boom"}


# -- rule 8: what the result does not hold ----------------------------------------------------------------


def test_images_and_events_and_members_of_a_later_version_add_nothing():
    image = {"contentBlockStart": {"contentBlockIndex": 1, "start": {"image": {"format": "png"}}}}
    later_start = {"contentBlockStart": {"contentBlockIndex": 2, "start": {"video": {}}}}
    out = parts(
        start(), text(0, "a"), image, {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"image": {}}}},
        later_start, {"contentBlockDelta": {"contentBlockIndex": 2, "delta": {"text": "ignored"}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"hologram": {}}}}, {"futureEvent": {"x": 1}}, stop(),
    )
    assert parts(start(), text(0, "a"), stop()) == out


def test_the_reference_agrees_with_itself_under_the_comparator():
    chunks = [start(), text(0, "a"), tool_start(1), tool_input(1, '{"k": 1}'), stop_block(1), stop("tool_use"), metadata()]
    produced = {k: v for k, v in result(*chunks).items() if k != "events"}
    assert compare(produced, produced) == []
