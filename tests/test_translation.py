"""CONTRACT.md 6: the shared view of a translation, and the validity rules of a downstream stream."""

from __future__ import annotations

import json
import sys

import pytest

from deltacheck.judge.compare import compare
from deltacheck.corpus.loader import load_corpus
from deltacheck.gateways.bundled import route_name
from deltacheck.gateways.judge import Capture, judge_gateway, judge_translation
from deltacheck.gateways.proxy import GatewaySpec, client_headers, client_request
from deltacheck.protocols import REGISTRY, render_stream
from deltacheck.gateways.validity import NotAStream, detect_protocol, read_stream
from deltacheck.gateways.translation import (map_gateway_ids, shared_capabilities, shared_finish, shared_usage, shared_view)

CHAT, RESPONSES, ANTHROPIC = "openai-chat", "openai-responses", "anthropic-messages"


def call(id, name, arguments, item_id=None):
    return {"type": "tool_call", "kind": "function", "id": id, "item_id": item_id, "name": name, "arguments": arguments}


def result(parts, finish=None, usage=None, detail=None, error=None):
    return {"choices": [{"index": 0, "parts": parts, "finish_reason": finish, "finish_detail": detail}],
            "usage": usage, "error": error}


# -- finish reasons and usage ---------------------------------------------------------------------


@pytest.mark.parametrize("protocol, reason, detail, pair, shared", [
    (CHAT, "tool_calls", None, (CHAT, ANTHROPIC), "tool_calls"),
    (ANTHROPIC, "tool_use", None, (CHAT, ANTHROPIC), "tool_calls"),
    (ANTHROPIC, "end_turn", None, (CHAT, ANTHROPIC), "stop"),
    (CHAT, "tool_calls", None, (CHAT, RESPONSES), "completed"),
    (CHAT, "stop", None, (CHAT, RESPONSES), "completed"),
    (RESPONSES, "completed", None, (CHAT, RESPONSES), "completed"),
    (CHAT, "length", None, (CHAT, RESPONSES), "length"),
    (RESPONSES, "incomplete", "max_output_tokens", (CHAT, RESPONSES), "length"),
    (ANTHROPIC, "max_tokens", None, (CHAT, ANTHROPIC), "length"),
    (ANTHROPIC, "refusal", None, (CHAT, ANTHROPIC), "content_filter"),
    (ANTHROPIC, "pause_turn", None, (CHAT, ANTHROPIC), "anthropic-messages:pause_turn"),
    (CHAT, None, None, (CHAT, RESPONSES), None),
])
def test_finish_reasons_map_through_the_table(protocol, reason, detail, pair, shared):
    assert shared_finish(protocol, reason, detail, pair) == shared


def test_a_responses_stop_is_not_a_length_cut():
    assert shared_finish(CHAT, "length", None, (CHAT, RESPONSES)) != shared_finish(RESPONSES, "completed", None,
                                                                                   (CHAT, RESPONSES))


def test_usage_maps_anthropic_input_with_its_cache_counts_onto_chat_prompt_tokens():
    chat = {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35, "prompt_tokens_details": {"cached_tokens": 20}}
    anthropic = {"input_tokens": 10, "cache_read_input_tokens": 20, "output_tokens": 5}
    pair = (CHAT, ANTHROPIC)
    assert shared_usage(CHAT, chat, pair) == shared_usage(ANTHROPIC, anthropic, pair) == {
        "cached_input_tokens": 20, "input_tokens": 30, "output_tokens": 5}


def test_usage_that_differs_or_is_invented_is_not_equal():
    pair = (CHAT, RESPONSES)
    chat = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert shared_usage(CHAT, chat, pair) != shared_usage(RESPONSES, {"input_tokens": 10, "output_tokens": 6,
                                                                       "total_tokens": 16}, pair)
    assert shared_usage(CHAT, None, pair) is None
    assert shared_usage(RESPONSES, {"input_tokens": 9, "output_tokens": 1, "total_tokens": 10}, pair) is not None


def test_all_zero_anthropic_usage_says_none_but_non_zero_estimates_do_not():
    pair = (CHAT, ANTHROPIC)
    assert shared_usage(ANTHROPIC, {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0}, pair) is None
    assert shared_usage(ANTHROPIC, {"input_tokens": 12, "output_tokens": 3}, pair) is not None


def test_capabilities_without_counterpart_are_named_with_the_protocol_that_lacks_them():
    capabilities, notes = shared_capabilities(CHAT, ANTHROPIC)
    assert "refusal" not in capabilities and "anthropic-messages has no counterpart" in notes["refusal"]
    assert "reasoning" in capabilities and "usage" in capabilities and "finish_reason" in capabilities
    same, same_notes = shared_capabilities(CHAT, CHAT)
    assert "refusal" in same and "multiple_choices" in same and set(same_notes) == {"events"}


# -- the shared view ------------------------------------------------------------------------------


def test_gemini_stop_is_a_stop_or_a_tool_call_turn_and_its_output_counts_its_thoughts():
    pair = ("gemini", CHAT)
    assert shared_finish("gemini", "STOP", None, pair) == shared_finish(CHAT, "tool_calls", None, pair) == "stop"
    assert shared_finish("gemini", "SAFETY", None, pair) == "content_filter"
    assert shared_finish("gemini", "MALFORMED_FUNCTION_CALL", None, pair) == "gemini:MALFORMED_FUNCTION_CALL"
    usage = {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 30, "totalTokenCount": 43}
    assert shared_usage("gemini", usage, pair) == {"input_tokens": 9, "output_tokens": 34, "total_tokens": 43,
                                                   "cached_input_tokens": 0, "reasoning_tokens": 30}


def test_gemini_leaves_out_zero_counts_and_a_usage_metadata_without_counts_says_nothing():
    pair = ("gemini", CHAT)
    blocked = {"promptTokenCount": 9, "totalTokenCount": 9}  # no candidatesTokenCount: proto3 JSON omits a 0
    assert shared_usage("gemini", blocked, pair) == shared_usage(
        CHAT, {"prompt_tokens": 9, "completion_tokens": 0, "total_tokens": 9}, pair)
    assert shared_usage("gemini", {"promptTokenCount": 9, "thoughtsTokenCount": 5, "totalTokenCount": 14}, pair)[
        "output_tokens"] == 5
    assert shared_usage("gemini", {"trafficType": "PROVISIONED_THROUGHPUT"}, pair) is None


def test_parts_a_gemini_signature_kept_apart_or_carried_are_plain_text_in_a_translation():
    pair = ("gemini", ANTHROPIC)
    signed = [{"type": "text", "text": "Hello", "annotations": [], "signature": None},
              {"type": "text", "text": " there", "annotations": [], "signature": "c2ln"},
              {"type": "text", "text": "", "annotations": [], "signature": "c2lnMg=="}]
    expected = shared_view(result(signed, "STOP"), "gemini", pair)
    observed = shared_view(result([{"type": "text", "text": "Hello there", "citations": []},
                                   {"type": "text", "text": ""}], "end_turn"), ANTHROPIC, pair)
    assert expected["choices"][0]["parts"] == [{"type": "text", "text": "Hello there"}]
    assert compare(expected, observed) == []


def test_a_translation_between_two_protocols_with_several_choices_still_compares_one():
    capabilities, notes = shared_capabilities("gemini", CHAT)
    assert "multiple_choices" not in capabilities and "one choice" in notes["multiple_choices"]
    assert shared_capabilities(CHAT, RESPONSES)[1]["multiple_choices"] == f"{RESPONSES} has no counterpart"


def test_chat_side_joins_text_parts_and_puts_them_in_chat_order():
    expected = shared_view(result([{"type": "text", "text": "Hello there", "annotations": []}, call("c", "f", "{}")],
                                  "tool_calls"), CHAT, (CHAT, RESPONSES))
    observed = shared_view(result([call("c", "f", "{}", "fc_c"), {"type": "text", "text": "Hello", "annotations": []},
                                   {"type": "text", "text": " there", "annotations": []}], "completed"),
                           RESPONSES, (CHAT, RESPONSES))
    assert compare(expected, observed) == []


def test_a_lost_call_and_a_wrong_name_are_divergences_of_the_shared_view():
    pair = (CHAT, RESPONSES)
    expected = shared_view(result([call("a", "search", "{}"), call("b", "lookup", "{}")]), CHAT, pair)
    one_lost = shared_view(result([call("a", "search", "{}", "fc_a")]), RESPONSES, pair)
    misnamed = shared_view(result([call("a", "search", "{}", "fc_a"), call("b", "look", "{}", "fc_b")]), RESPONSES, pair)
    assert [d.axis for d in compare(expected, one_lost)] == ["identity"]
    assert [d.pointer for d in compare(expected, misnamed)] == ["/choices/0/parts/1/name"]


def test_reasoning_rendered_as_a_responses_summary_is_the_reasoning_text():
    pair = (CHAT, RESPONSES)
    expected = shared_view(result([{"type": "reasoning", "text": "Think.", "summary": [], "signature": None}]), CHAT, pair)
    observed = shared_view(result([{"type": "reasoning", "text": "", "summary": ["Think."], "signature": "x"}]),
                           RESPONSES, pair)
    assert compare(expected, observed) == []


def test_a_refusal_has_no_counterpart_in_anthropic_and_is_left_out():
    pair = (CHAT, ANTHROPIC)
    view = shared_view(result([{"type": "refusal", "text": "No."}]), CHAT, pair)
    assert view["choices"][0]["parts"] == []


# -- identity as the gateway maps it ---------------------------------------------------------------


def test_gateway_ids_stand_for_the_upstream_call_at_their_position():
    pair = (CHAT, ANTHROPIC)
    expected = shared_view(result([call("call_a", "f", "{}"), call("call_b", "g", "{}")]), CHAT, pair)
    observed = shared_view(result([call("toolu_1", "f", "{}"), call("toolu_2", "g", "{}")]), ANTHROPIC, pair)
    assert map_gateway_ids(expected, observed) == {"toolu_1": "call_a", "toolu_2": "call_b"}
    assert compare(expected, observed) == []


def test_swapped_duplicated_or_blank_ids_are_not_mapped():
    pair = (CHAT, ANTHROPIC)
    expected = shared_view(result([call("call_a", "f", "{}"), call("call_b", "g", "{}")]), CHAT, pair)
    for ids in (["call_b", "call_a"], ["toolu_x", "toolu_x"], ["", "call_b"]):
        observed = shared_view(result([call(ids[0], "f", "{}"), call(ids[1], "g", "{}")]), ANTHROPIC, pair)
        map_gateway_ids(expected, observed)
        assert any(d.axis == "identity" for d in compare(expected, observed)), ids


# -- stream validity ------------------------------------------------------------------------------


def responses_stream(events):
    return render_stream(RESPONSES, events)


def created(n=0):
    return {"type": "response.created", "sequence_number": n, "response": {"id": "r", "output": [], "status": "in_progress"}}


def item(kind, **fields):
    return {"type": kind, **fields}


def fc(id, call_id, arguments="{}"):
    return {"type": "function_call", "id": id, "call_id": call_id, "name": "f", "arguments": arguments}


def completed(output, n):
    return {"type": "response.completed", "sequence_number": n, "response": {"id": "r", "output": output,
                                                                             "status": "completed"}}


def test_a_well_formed_responses_stream_has_no_problem():
    events = [created(), item("response.output_item.added", output_index=0, item=fc("fc_1", "c1", ""), sequence_number=1),
              item("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta="{}", sequence_number=2),
              item("response.output_item.done", output_index=0, item=fc("fc_1", "c1"), sequence_number=3),
              completed([fc("fc_1", "c1")], 4)]
    assert read_stream(RESPONSES, responses_stream(events)).problems == []


@pytest.mark.parametrize("events, words", [
    ([created(), item("response.output_item.added", output_index=0, item=fc("fc_1", "c1", ""), sequence_number=1),
      completed([fc("fc_1", "c1")], 2)], "never gets its output_item.done"),
    ([created(), item("response.output_item.added", output_index=0, item=fc("fc_1", "c1", ""), sequence_number=1),
      item("response.output_item.done", output_index=0, item=fc("fc_2", "c1"), sequence_number=2),
      completed([fc("fc_2", "c1")], 3)], "the id of output_index 0 changes"),
    ([created(), item("response.output_item.added", output_index=0, item=fc("fc_1", "c1", ""), sequence_number=1),
      item("response.function_call_arguments.delta", output_index=0, item_id="fc_9", delta="{}", sequence_number=2),
      item("response.output_item.done", output_index=0, item=fc("fc_1", "c1"), sequence_number=3),
      completed([fc("fc_1", "c1")], 4)], "names another item_id than the item at output_index 0"),
    ([created(), item("response.output_item.added", output_index=0, item=fc("fc_1", "c1", ""), sequence_number=1),
      item("response.output_item.done", output_index=0, item=fc("fc_1", "c1"), sequence_number=2),
      completed([], 3)], "response.completed output omits output_index 0"),
    ([created(), completed([], 1), completed([], 2)], "2 terminal events"),
    ([created(), item("response.output_item.added", output_index=0, sequence_number=1,
                      item={"type": "message", "id": "m", "content": []}),
      item("response.content_part.added", output_index=0, content_index=0, item_id="m", sequence_number=2,
           part={"type": "output_text", "text": ""}),
      item("response.output_item.done", output_index=0, sequence_number=3, item={"type": "message", "id": "m"}),
      completed([{"type": "message", "id": "m"}], 4)], "content part 0 of output_index 0 never gets its content_part.done"),
    ([created()], "never sends response.completed"),
    ([created(5), completed([], 1)], "sequence_number"),
])
def test_each_responses_validity_rule_can_go_red(events, words):
    problems = read_stream(RESPONSES, responses_stream(events)).problems
    assert any(words in p for p in problems), problems


@pytest.mark.parametrize("events, words", [
    ([{"type": "message_start", "message": {"usage": {}}}, {"type": "content_block_start", "index": 0,
      "content_block": {"type": "text", "text": ""}}, {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
      {"type": "message_stop"}], "block 0 (text) is never stopped"),
    ([{"type": "message_start", "message": {"usage": {}}}, {"type": "content_block_start", "index": 1,
      "content_block": {"type": "text", "text": ""}}, {"type": "content_block_stop", "index": 1},
      {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}], "block 0 was due"),
    ([{"type": "message_start", "message": {"usage": {}}}, {"type": "message_delta", "delta": {}}],
     "does not end with message_stop"),
])
def test_each_anthropic_validity_rule_can_go_red(events, words):
    problems = read_stream(ANTHROPIC, render_stream(ANTHROPIC, events)).problems
    assert any(words in p for p in problems), problems


def test_blocks_and_a_stop_reason_that_message_start_carries_count_as_sent():
    """CONTRACT 3.3 anthropic-messages rule 7: the programmatic-tool-calling turn is message_start, then message_stop."""
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}
    carried = {"type": "message_start", "message": {"content": [tool_use], "stop_reason": "tool_use", "usage": {}}}
    assert read_stream(ANTHROPIC, render_stream(ANTHROPIC, [carried, {"type": "message_stop"}])).problems == []
    restarted = [carried, {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                 {"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]
    problems = read_stream(ANTHROPIC, render_stream(ANTHROPIC, restarted)).problems
    assert any("block 1 was due" in p for p in problems) and any("block 0 started twice" in p for p in problems)


def test_chat_without_done_and_with_changing_ids_is_invalid():
    body = render_stream(CHAT, [{"id": "a", "choices": []}, {"id": "b", "choices": []}], "eof")
    problems = read_stream(CHAT, body).problems
    assert any("[DONE]" in p for p in problems) and any("id changes" in p for p in problems)


def test_an_event_name_that_is_not_the_data_type_is_invalid():
    body = b'event: message_stop\ndata: {"type": "message_start", "message": {}}\n\n'
    assert any("is not the data's type" in p for p in read_stream(ANTHROPIC, body).problems)


def test_another_protocol_or_no_events_is_not_a_stream_of_the_declared_one():
    with pytest.raises(NotAStream, match="it streams openai-chat, not the declared anthropic-messages"):
        read_stream(ANTHROPIC, render_stream(CHAT, [{"choices": []}]))
    with pytest.raises(NotAStream, match="no server-sent event"):
        read_stream(CHAT, b'{"choices": []}')
    assert detect_protocol([{"type": "response.created"}]) == RESPONSES


# -- judging ----------------------------------------------------------------------------------------


def test_a_pass_through_of_the_upstream_bytes_passes_every_fixture_it_can_and_keeps_its_inherited_problems_out():
    corpus = load_corpus()
    for fixture in [f for f in corpus.fixtures if f.protocol == CHAT]:
        capture = Capture(200, "text/event-stream", fixture.request().sse, upstream_paths=["/current/v1/chat/completions"])
        verdict = judge_gateway(fixture, CHAT, CHAT, capture, corpus, 10.0)
        assert verdict.verdict in ("pass", "n/a"), (fixture.id, verdict.message)


def test_a_translation_that_drops_a_call_fails_on_identity_and_names_the_call():
    corpus = load_corpus()
    fixture = corpus.by_id()["DC-8499"]
    observed = result([call("call_a", "search", '{"q":"x"}', "fc_a")], "completed",
                      {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15})
    capabilities, _ = shared_capabilities(CHAT, RESPONSES)
    verdict = judge_translation(fixture, CHAT, RESPONSES, observed, capabilities)
    assert verdict.verdict == "fail" and verdict.axes["identity"] is False
    assert "call_b" in verdict.message


def test_an_http_error_the_fixture_does_not_accept_is_an_error_verdict_with_its_body():
    corpus = load_corpus()
    fixture = corpus.by_id()["DC-8499"]
    capture = Capture(502, "application/json", json.dumps({"error": "bad gateway"}).encode(), upstream_paths=[])
    verdict = judge_gateway(fixture, CHAT, RESPONSES, capture, corpus, 10.0)
    assert verdict.verdict == "error"
    assert verdict.message.startswith('answered HTTP 502: {"error": "bad gateway"}')
    assert "never called the upstream" in verdict.message


def test_between_responses_and_anthropic_parts_keep_their_order():
    pair = (RESPONSES, ANTHROPIC)
    text = {"type": "text", "text": "Checking.", "annotations": []}
    expected = shared_view(result([text, call("c1", "f", "{}", "fc_1"), {**text, "text": "Done."}], "completed"),
                           RESPONSES, pair)
    same_order = shared_view(result([text, call("c1", "f", "{}"), {**text, "text": "Done."}], "end_turn"), ANTHROPIC, pair)
    other_order = shared_view(result([text, {**text, "text": "Done."}, call("c1", "f", "{}")], "end_turn"),
                              ANTHROPIC, pair)
    assert compare(expected, same_order) == []
    assert [d.axis for d in compare(expected, other_order)] == ["ordering"]


def test_a_pass_through_that_relays_a_stream_to_be_rejected_passes_as_relayed():
    corpus = load_corpus()
    rejected = [f for f in corpus.fixtures if f.protocol == CHAT and f.rejection is not None and f.expected is None]
    assert rejected
    for fixture in rejected:
        capture = Capture(200, "text/event-stream", fixture.request().sse, upstream_paths=["/current/v1/chat/completions"])
        verdict = judge_gateway(fixture, CHAT, CHAT, capture, corpus, 10.0)
        assert (verdict.verdict, verdict.matched) == ("pass", "relayed"), (fixture.id, verdict.message)


# -- a fourth protocol --------------------------------------------------------------------------------

FOURTH = {
    "__init__.py": '''
from deltacheck.protocols.spec import Protocol
from deltacheck.protocols.sse import SseFraming
PROTOCOL = Protocol(name="fourth-wire", package=__name__, title="Fourth", short="fourth", endpoint="/generate",
                    provider="openai", framing=SseFraming(named_events=False), capability_notes={"refusal": "none", "item_id": "none"})
''',
    "translation.py": '''
FINISH_REASONS = {"STOP": "stop", "MAX_TOKENS": "length"}
MERGED_FINISH_REASONS = {}
FINISH_DETAIL = "Fourth finish message"
USAGE_COUNTS = {"input_tokens": "promptTokenCount", "output_tokens": "candidatesTokenCount"}
ALL_ZERO_USAGE_SAYS_NONE = False
PART_ORDER = None
def shared_finish(reason, detail):
    return FINISH_REASONS.get(reason, f"fourth-wire:{reason}")
def reasoning_text(part):
    return part.get("text") or ""
''',
    "validity.py": '''
def owns_event_type(kind):
    return False
def owns_shape(chunk):
    return isinstance(chunk.get("generations"), list)
def stream_problems(chunks, event_names, terminated):
    return [] if chunks and "usageMetadata" in chunks[-1] else ["no usageMetadata at the end"]
''',
    "client.py": '''
def headers(api_key):
    return {"x-goog-api-key": api_key}
def streaming_request(model, prompt, tool_names):
    return {"contents": [{"parts": [{"text": prompt}]}]}
''',
}


@pytest.fixture
def fourth(tmp_path, monkeypatch):
    """A fourth protocol package, registered without a line changed in the other three or the gateway modules."""
    package = tmp_path / "fourth_wire"
    package.mkdir()
    for name, text in FOURTH.items():
        (package / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    protocol = __import__("fourth_wire").PROTOCOL
    monkeypatch.setitem(REGISTRY, protocol.name, protocol)
    yield protocol.name
    for module in [m for m in sys.modules if m.split(".")[0] == "fourth_wire"]:
        del sys.modules[module]


def test_a_fourth_protocol_package_is_all_a_gateway_pair_with_it_needs(fourth):
    pair = (CHAT, fourth)
    capabilities, notes = shared_capabilities(*pair)
    assert notes["annotations"] == f"{CHAT} has no counterpart" and notes["refusal"] == f"{fourth} has no counterpart"
    assert "Fourth finish message" in notes["finish_detail"] and "refusal" not in capabilities
    assert shared_finish(fourth, "MAX_TOKENS", None, pair) == shared_finish(CHAT, "length", None, pair) == "length"
    assert shared_finish(fourth, "SAFETY", None, pair) == "fourth-wire:SAFETY"
    assert shared_usage(fourth, {"promptTokenCount": 3, "candidatesTokenCount": 2}, pair) == {
        "input_tokens": 3, "output_tokens": 2}
    body = render_stream(fourth, [{"generations": []}, {"generations": [], "usageMetadata": {}}])
    assert read_stream(fourth, body).problems == []
    with pytest.raises(NotAStream, match=f"it streams {fourth}, not the declared openai-chat"):
        read_stream(CHAT, body)
    fixture = load_corpus().by_id()["DC-8499"]
    spec = GatewaySpec(name="g", command=("g",), upstream=CHAT, downstream=fourth)
    assert spec.endpoint == "/v1/generate" and "contents" in client_request(spec, fixture)
    assert client_headers("k")["x-goog-api-key"] == "k"
    assert route_name("g", CHAT, fourth) == "g-chat-to-fourth"
