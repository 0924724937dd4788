"""Long generated streams, each with the result it must assemble to, for every protocol.

The cost axis (corpus/scenarios, `deltacheck cost`) and the reference's benchmarks and complexity
test build their streams here. A scenario is (protocol, shape, number of fragments, fragment size).
The shapes:

- `text`: one text answer;
- `tool`: one tool call whose arguments are a JSON object with one long string value;
- `tools4`: four tool calls whose argument fragments are interleaved one by one.

Everything is deterministic (a seeded generator). The expected result is built independently of
any assembler: the text and each call's arguments are the joined fragments the stream carries, the
finish reason and usage are the values the generator put on the wire (CONTRACT.md 3). The streams
have the shape real servers send: a Responses stream ends with its `.done` events and a terminal
response carrying the full output, a Chat stream with a usage chunk, an Anthropic one with
`message_delta` usage.
"""

from __future__ import annotations

import random
from typing import Any

PROTOCOLS = ("openai-chat", "openai-responses", "anthropic-messages")
SHAPES = ("text", "tool", "tools4")
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
        if count < 1 or size < 1:
            raise ValueError(f"a scenario needs at least one fragment of at least one character, not {count} x {size}")
        self.protocol, self.shape, self.count, self.size = protocol, shape, count, size
        rng = random.Random(f"{seed}:{protocol}:{shape}:{count}:{size}")
        calls = {"text": 0, "tool": 1, "tools4": 4}[shape]
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
        # Round-robin over the calls: with four calls every fragment switches to another call.
        self.order: list[tuple[int, str]] = []
        for position in range(max(len(p) for p in per_call)):
            for which, pieces in enumerate(per_call):
                if position < len(pieces):
                    self.order.append((which, pieces[position]))
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
    if protocol == "openai-chat":
        return {"prompt_tokens": INPUT_TOKENS, "completion_tokens": count, "total_tokens": INPUT_TOKENS + count}
    if protocol == "openai-responses":
        return {"input_tokens": INPUT_TOKENS, "output_tokens": count, "total_tokens": INPUT_TOKENS + count}
    return {"input_tokens": INPUT_TOKENS, "output_tokens": count}


def _note_last_fragments(s: Scenario, first_fragment_chunk: int) -> None:
    """Fragments are one per chunk, in `s.order`, from chunk `first_fragment_chunk` on."""
    for offset, (which, _) in enumerate(s.order):
        if s.calls:
            s.last_fragment[(0, which)] = first_fragment_chunk + offset


def _chat(s: Scenario) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    for i, call in enumerate(s.calls):
        chunks.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                             "function": {"name": call["name"], "arguments": ""}}]}))
    _note_last_fragments(s, len(chunks))
    for which, piece in s.order:
        if s.calls:
            chunks.append(chunk({"tool_calls": [{"index": which, "function": {"arguments": piece}}]}))
        else:
            chunks.append(chunk({"content": piece}))
    chunks.append(chunk({}, _FINISH[s.protocol][bool(s.calls)]))
    # As with stream_options.include_usage: a last chunk with no choices and the usage.
    chunks.append({"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [],
                   "usage": _usage(s.protocol, s.count)})
    return chunks


def _responses(s: Scenario) -> list[dict[str, Any]]:
    response = {"id": "resp_long", "object": "response", "created_at": 0, "model": "m", "status": "in_progress",
                "error": None, "incomplete_details": None, "output": [], "usage": None}
    chunks: list[dict[str, Any]] = [{"type": "response.created", "response": response}]
    if not s.calls:
        message = {"type": "message", "id": "msg_0", "status": "in_progress", "role": "assistant", "content": []}
        part = {"type": "output_text", "text": "", "annotations": []}
        chunks += [
            {"type": "response.output_item.added", "output_index": 0, "item": message},
            {"type": "response.content_part.added", "output_index": 0, "content_index": 0, "item_id": "msg_0", "part": part},
        ]
        chunks += [{"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_0",
                    "delta": piece} for _, piece in s.order]
        done_part = {**part, "text": s.text}
        output = [{**message, "status": "completed", "content": [done_part]}]
        chunks += [
            {"type": "response.output_text.done", "output_index": 0, "content_index": 0, "item_id": "msg_0", "text": s.text},
            {"type": "response.content_part.done", "output_index": 0, "content_index": 0, "item_id": "msg_0", "part": done_part},
            {"type": "response.output_item.done", "output_index": 0, "item": output[0]},
        ]
    else:
        items = [{"type": "function_call", "id": call["item_id"], "call_id": call["id"], "name": call["name"],
                  "arguments": "", "status": "in_progress"} for call in s.calls]
        chunks += [{"type": "response.output_item.added", "output_index": i, "item": item} for i, item in enumerate(items)]
        _note_last_fragments(s, len(chunks))
        chunks += [{"type": "response.function_call_arguments.delta", "output_index": which,
                    "item_id": s.calls[which]["item_id"], "delta": piece} for which, piece in s.order]
        output = [{**item, "arguments": call["arguments"], "status": "completed"} for item, call in zip(items, s.calls)]
        for i, (item, call) in enumerate(zip(output, s.calls)):
            chunks += [{"type": "response.function_call_arguments.done", "output_index": i, "item_id": call["item_id"],
                        "arguments": call["arguments"]},
                       {"type": "response.output_item.done", "output_index": i, "item": item}]
    chunks.append({"type": "response.completed", "response": {**response, "status": "completed", "output": output,
                                                              "usage": _usage(s.protocol, s.count)}})
    return [{**chunk, "sequence_number": number} for number, chunk in enumerate(chunks)]


def _anthropic(s: Scenario) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "id": "msg_long", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1}}}]
    if not s.calls:
        chunks.append({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        chunks += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
                   for _, piece in s.order]
        blocks = 1
    else:
        chunks += [{"type": "content_block_start", "index": i, "content_block": {
            "type": "tool_use", "id": call["id"], "name": call["name"], "input": {}}} for i, call in enumerate(s.calls)]
        _note_last_fragments(s, len(chunks))
        chunks += [{"type": "content_block_delta", "index": which, "delta": {"type": "input_json_delta", "partial_json": piece}}
                   for which, piece in s.order]
        blocks = len(s.calls)
    chunks += [{"type": "content_block_stop", "index": i} for i in range(blocks)]
    chunks.append({"type": "message_delta", "delta": {"stop_reason": _FINISH[s.protocol][bool(s.calls)], "stop_sequence": None},
                   "usage": {"output_tokens": s.count}})
    chunks.append({"type": "message_stop"})
    return chunks


_BUILDERS = {"openai-chat": _chat, "openai-responses": _responses, "anthropic-messages": _anthropic}
