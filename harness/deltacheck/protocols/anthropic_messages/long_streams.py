"""Anthropic Messages streams of the long-stream scenarios (deltacheck.cost.long_streams).

One content block at a time (start, deltas, stop), as the API streams them, never two calls'
fragments interleaved; the stream ends with the `message_delta` that carries the stop reason and
the output tokens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deltacheck.cost.long_streams import Scenario

SHAPES = ("text", "tool", "tools4")  # no Anthropic stream is documented to interleave calls
CALL_ITEM_IDS = False


def finish_reason(s: Scenario) -> str:
    return "tool_use" if s.calls else "end_turn"


def usage(s: Scenario) -> dict[str, Any]:
    """The usage the stream carries: input tokens from `message_start`, one output token per fragment."""
    return {"input_tokens": s.input_tokens, "output_tokens": s.count}


def chunks(s: Scenario) -> list[dict[str, Any]]:
    stream: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_long",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": s.input_tokens, "output_tokens": 1},
            },
        }
    ]
    if not s.calls:
        stream.append({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        stream += [
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
            for _, piece in s.order
        ]
        stream.append({"type": "content_block_stop", "index": 0})
    else:
        for which, call in enumerate(s.calls):  # one content block after another: start, deltas, stop
            stream.append(
                {
                    "type": "content_block_start",
                    "index": which,
                    "content_block": {"type": "tool_use", "id": call["id"], "name": call["name"], "input": {}},
                }
            )
            for _, piece in (entry for entry in s.order if entry[0] == which):
                s.append_fragment(
                    stream,
                    which,
                    {
                        "type": "content_block_delta",
                        "index": which,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
            stream.append({"type": "content_block_stop", "index": which})
    stream.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": finish_reason(s), "stop_sequence": None},
            "usage": {"output_tokens": s.count},
        }
    )
    stream.append({"type": "message_stop"})
    return stream


def joined_fragments(stream: list[dict[str, Any]]) -> dict[Any, str]:
    """Each content block's text or input JSON joined, keyed by its index: nothing else checked."""
    pieces: dict[Any, list[str]] = {}
    for event in stream:
        if event["type"] == "content_block_delta":
            delta = event["delta"]
            pieces.setdefault(event["index"], []).append(delta.get("text") or delta.get("partial_json") or "")
    return {key: "".join(value) for key, value in pieces.items()}
