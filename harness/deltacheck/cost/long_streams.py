"""Long generated streams, each with the result it must assemble to, for every protocol.

The cost axis (corpus/scenarios, `deltacheck cost`) and the reference's benchmarks and complexity
test build their streams here. A scenario is (protocol, shape, number of fragments, fragment size).
The shapes, each one a provider or gateway really sends:

- `text`: one text answer;
- `tool`: one tool call whose arguments are a JSON object with one long string value;
- `tools4`: four tool calls, one after another (Anthropic streams one content block at a time,
  start, deltas, stop; OpenAI's Responses API one output item at a time; OpenAI's Chat Completions
  one call's fragments after the other);
- `tools4-interleaved`: four Chat Completions tool calls whose argument fragments alternate one by
  one, as gateways and some providers send parallel calls (the corpus's interleaved-calls
  fixtures). Only Chat Completions: no Anthropic or Responses stream is documented to interleave.

Everything is deterministic (a seeded generator). The expected result is built independently of
any assembler: the text and each call's arguments are the joined fragments the stream carries, the
finish reason and usage are the values the generator put on the wire (CONTRACT.md 3). The streams
have the shape real servers send: a Responses stream carries complete `Response` objects in its
lifecycle events and ends with its `.done` events and a terminal response carrying the full
output, a Chat stream ends with a usage chunk, an Anthropic one with `message_delta` usage.
"""

from __future__ import annotations

import random
from typing import Any

PROTOCOLS = ("openai-chat", "openai-responses", "anthropic-messages")
SHAPES = ("text", "tool", "tools4", "tools4-interleaved")
INTERLEAVED = "tools4-interleaved"
CALLS = {"text": 0, "tool": 1, "tools4": 4, INTERLEAVED: 4}
# The shapes each protocol really streams (see the module docstring).
PROTOCOL_SHAPES = {"openai-chat": SHAPES, "openai-responses": ("text", "tool", "tools4"),
                   "anthropic-messages": ("text", "tool", "tools4")}
# Plain letters and spaces, plus JSON escapes inside the arguments' string (a cut may fall inside one).
_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
_ESCAPES = ("\\n", "\\\"", "\\\\", "\\u00e9")


def _body(rng: random.Random, length: int, escapes: bool) -> str:
    """Exactly `length` characters of prose; with `escapes`, JSON string escapes are mixed in whole."""
    pieces: list[str] = []
    size = 0
    while True:
        piece = rng.choice(_ESCAPES) if escapes and rng.random() < 0.1 else rng.choice(_WORDS) + " "
        if size + len(piece) > length:
            return "".join(pieces) + "x" * (length - size)
        pieces.append(piece)
        size += len(piece)


def arguments_text(rng: random.Random, length: int) -> str:
    """A JSON object of exactly `length` characters (at least 16): {"content":"..."}."""
    prefix, suffix = '{"content":"', '"}'
    return prefix + _body(rng, length - len(prefix) - len(suffix), escapes=True) + suffix


def fragments(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


class Scenario:
    """One generated stream: `chunks` to feed, `expected_result()` to judge it against."""

    def __init__(self, protocol: str, shape: str, count: int, size: int = 4, seed: int = 13) -> None:
        if protocol not in PROTOCOLS or shape not in SHAPES:
            raise ValueError(f"unknown scenario {protocol}/{shape}")
        if shape not in PROTOCOL_SHAPES[protocol]:
            raise ValueError(f"{protocol} streams do not have the shape {shape}: {unreal_shape(protocol, shape)}")
        if count < 1 or size < 1:
            raise ValueError(f"a scenario needs at least one fragment of at least one character, not {count} x {size}")
        self.protocol, self.shape, self.count, self.size = protocol, shape, count, size
        rng = random.Random(f"{seed}:{protocol}:{shape}:{count}:{size}")
        calls = CALLS[shape]
        if calls == 0:
            self.text = _body(rng, count * size, escapes=False)
            self.calls: list[dict[str, Any]] = []
            per_call: list[list[str]] = [fragments(self.text, size)]
        else:
            # Each call's arguments are at least 16 characters (a JSON object around a string).
            share = max(count // calls, -(-16 // size))
            self.text = ""
            self.calls = [{"id": f"call_{i}", "item_id": f"fc_{i}", "name": f"write_file_{i}",
                           "arguments": arguments_text(rng, share * size)} for i in range(calls)]
            per_call = [fragments(call["arguments"], size) for call in self.calls]
        self.order: list[tuple[int, str]] = []  # (call, fragment) in stream order
        if shape == INTERLEAVED:  # round-robin: every fragment switches to another call
            for position in range(max(len(p) for p in per_call)):
                for which, pieces in enumerate(per_call):
                    if position < len(pieces):
                        self.order.append((which, pieces[position]))
        else:
            self.order = [(which, piece) for which, pieces in enumerate(per_call) for piece in pieces]
        # (choice, position of the call among the parts) -> index of the chunk with its last fragment
        self.last_fragment: dict[tuple[int, int], int] = {}
        self.chunks = _BUILDERS[protocol](self)

    @property
    def name(self) -> str:
        return f"{self.protocol}/{self.shape}"

    @property
    def fragment_count(self) -> int:
        return len(self.order)

    def expected_parts(self) -> list[dict[str, Any]]:
        """The parts the stream must assemble to (CONTRACT.md 3.2), built from the generated values."""
        if not self.calls:
            return [{"type": "text", "text": self.text, "annotations": []}]
        item_ids = self.protocol == "openai-responses"
        return [{"type": "tool_call", "kind": "function", "id": call["id"], "item_id": call["item_id"] if item_ids else None,
                 "name": call["name"], "arguments": call["arguments"]} for call in self.calls]

    def expected_result(self) -> dict[str, Any]:
        """The whole canonical result (CONTRACT.md 3.1): parts, finish reason and usage as put on the wire."""
        return {"choices": [{"index": 0, "parts": self.expected_parts(), "finish_reason": _FINISH[self.protocol][bool(self.calls)],
                             "finish_detail": None}],
                "usage": _usage(self.protocol, self.count), "error": None}

    def mismatch(self, result: dict[str, Any]) -> str | None:
        """What is wrong with an assembled result's parts and events, or None when they are the expected ones."""
        choices = result.get("choices")
        if not isinstance(choices, list) or len(choices) != 1:
            return f"{len(choices or [])} choices instead of 1"
        parts = choices[0].get("parts")
        expected = self.expected_parts()
        if parts != expected:
            return _first_difference(parts, expected)
        if result.get("error") is not None:
            return f"error {result['error']!r}"
        completed = sorted((e["id"], e["name"], e["arguments"]) for e in result.get("events", []))
        wanted = sorted((c["id"], c["name"], c["arguments"]) for c in self.calls)
        if completed != wanted:
            return f"{len(completed)} tool_call_done events, {len(wanted)} expected, or with other values"
        return None


def _first_difference(parts: Any, expected: list[dict[str, Any]]) -> str:
    if not isinstance(parts, list) or len(parts) != len(expected):
        return f"{len(parts) if isinstance(parts, list) else parts!r} parts instead of {len(expected)}"
    for position, (got, want) in enumerate(zip(parts, expected)):
        for key in want:
            if got.get(key) != want[key]:
                shown = repr(got.get(key))
                return f"parts[{position}].{key} differs ({shown[:60]}{'...' if len(shown) > 60 else ''})"
    return "parts differ"


# -- wire shapes ---------------------------------------------------------------------------------

_FINISH = {"openai-chat": {False: "stop", True: "tool_calls"}, "openai-responses": {False: "completed", True: "completed"},
           "anthropic-messages": {False: "end_turn", True: "tool_use"}}
INPUT_TOKENS = 7


def _usage(protocol: str, count: int) -> dict[str, Any]:
    """The usage the stream carries (one output token per fragment), in the protocol's own keys."""
    if protocol == "openai-chat":  # with the details OpenAI always sends
        return {"prompt_tokens": INPUT_TOKENS, "completion_tokens": count, "total_tokens": INPUT_TOKENS + count,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0,
                                              "rejected_prediction_tokens": 0}}
    if protocol == "openai-responses":  # ResponseUsage: its details are required fields
        return {"input_tokens": INPUT_TOKENS, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": count,
                "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": INPUT_TOKENS + count}
    return {"input_tokens": INPUT_TOKENS, "output_tokens": count}


def unreal_shape(protocol: str, shape: str) -> str:
    """Why a protocol does not stream a shape (only the interleaved one is limited)."""
    return (f"only {', '.join(p for p, shapes in PROTOCOL_SHAPES.items() if shape in shapes)} interleave the fragments "
            f"of parallel calls; {protocol} streams one call after another (use tools4)")


def _fragment(s: Scenario, chunks: list[dict[str, Any]], which: int, chunk: dict[str, Any]) -> None:
    """Append the chunk that carries one fragment of call `which`, noting it as that call's last so far."""
    if s.calls:
        s.last_fragment[(0, which)] = len(chunks)
    chunks.append(chunk)


def _chat(s: Scenario) -> list[dict[str, Any]]:
    # The envelope OpenAI sends with stream_options.include_usage (the corpus's recorded chat fixtures).
    envelope = {"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "service_tier": "default", "system_fingerprint": "fp_long"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**envelope, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                "usage": None}

    def call_start(i: int) -> dict[str, Any]:
        return chunk({"tool_calls": [{"index": i, "id": s.calls[i]["id"], "type": "function",
                                      "function": {"name": s.calls[i]["name"], "arguments": ""}}]})

    chunks = [chunk({"role": "assistant", "content": None if s.calls else "", "refusal": None})]
    if s.shape == INTERLEAVED:  # every call opened first, then their fragments alternate
        chunks += [call_start(i) for i in range(len(s.calls))]
    started = set(range(len(s.calls))) if s.shape == INTERLEAVED else set()
    for which, piece in s.order:
        if not s.calls:
            chunks.append(chunk({"content": piece}))
            continue
        if which not in started:  # one call after another: each opens when its fragments begin
            started.add(which)
            chunks.append(call_start(which))
        _fragment(s, chunks, which, chunk({"tool_calls": [{"index": which, "function": {"arguments": piece}}]}))
    chunks.append(chunk({}, _FINISH[s.protocol][bool(s.calls)]))
    # As with stream_options.include_usage: a last chunk with no choices and the usage.
    chunks.append({**envelope, "choices": [], "usage": _usage(s.protocol, s.count)})
    return chunks


def _response(status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None) -> dict[str, Any]:
    """A complete `Response` object, with the fields OpenAI always sends (the corpus's Responses fixtures)."""
    return {"id": "resp_long", "object": "response", "created_at": 0, "status": status, "error": None,
            "incomplete_details": None, "instructions": None, "model": "m", "output": output,
            "parallel_tool_calls": True, "temperature": 1, "text": {"format": {"type": "text"}}, "tool_choice": "auto",
            "tools": [], "top_p": 1, "usage": usage, "metadata": {}}


def _responses(s: Scenario) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = [{"type": "response.created", "response": _response("in_progress", [], None)},
                                    {"type": "response.in_progress", "response": _response("in_progress", [], None)}]
    if not s.calls:
        message = {"id": "msg_0", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        where = {"item_id": "msg_0", "output_index": 0, "content_index": 0}
        chunks += [{"type": "response.output_item.added", "output_index": 0, "item": message},
                   {"type": "response.content_part.added", **where, "part": part}]
        chunks += [{"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []} for _, piece in s.order]
        done_part = {**part, "text": s.text}
        output = [{**message, "status": "completed", "content": [done_part]}]
        chunks += [{"type": "response.output_text.done", **where, "text": s.text, "logprobs": []},
                   {"type": "response.content_part.done", **where, "part": done_part},
                   {"type": "response.output_item.done", "output_index": 0, "item": output[0]}]
    else:
        output = []
        for which, call in enumerate(s.calls):  # one output item after another, as the API streams them
            item = {"id": call["item_id"], "type": "function_call", "status": "in_progress", "arguments": "",
                    "call_id": call["id"], "name": call["name"]}
            chunks.append({"type": "response.output_item.added", "output_index": which, "item": item})
            for _, piece in (entry for entry in s.order if entry[0] == which):
                _fragment(s, chunks, which, {"type": "response.function_call_arguments.delta", "item_id": call["item_id"],
                                             "output_index": which, "delta": piece})
            done = {**item, "status": "completed", "arguments": call["arguments"]}
            output.append(done)
            chunks += [{"type": "response.function_call_arguments.done", "item_id": call["item_id"], "output_index": which,
                        "arguments": call["arguments"]},
                       {"type": "response.output_item.done", "output_index": which, "item": done}]
    chunks.append({"type": "response.completed", "response": _response("completed", output, _usage(s.protocol, s.count))})
    return [{"type": chunk["type"], "sequence_number": number, **chunk} for number, chunk in enumerate(chunks)]


def _anthropic(s: Scenario) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "id": "msg_long", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1}}}]
    if not s.calls:
        chunks.append({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        chunks += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
                   for _, piece in s.order]
        chunks.append({"type": "content_block_stop", "index": 0})
    else:
        for which, call in enumerate(s.calls):  # one content block after another: start, deltas, stop
            chunks.append({"type": "content_block_start", "index": which, "content_block": {
                "type": "tool_use", "id": call["id"], "name": call["name"], "input": {}}})
            for _, piece in (entry for entry in s.order if entry[0] == which):
                _fragment(s, chunks, which, {"type": "content_block_delta", "index": which,
                                             "delta": {"type": "input_json_delta", "partial_json": piece}})
            chunks.append({"type": "content_block_stop", "index": which})
    chunks.append({"type": "message_delta", "delta": {"stop_reason": _FINISH[s.protocol][bool(s.calls)], "stop_sequence": None},
                   "usage": {"output_tokens": s.count}})
    chunks.append({"type": "message_stop"})
    return chunks


_BUILDERS = {"openai-chat": _chat, "openai-responses": _responses, "anthropic-messages": _anthropic}
