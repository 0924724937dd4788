"""Chat Completions streams of the long-stream scenarios (deltacheck.cost.long_streams).

One call's fragments after the other, or, as gateways and some providers send parallel calls, every
call opened first and then their fragments alternating one by one (the corpus's interleaved-calls
fixtures). The envelope is the one OpenAI sends with stream_options.include_usage (the corpus's
recorded chat fixtures), and the stream ends with a usage chunk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deltacheck.cost.long_streams import Scenario

SHAPES = ("text", "tool", "tools4", "tools4-interleaved")
CALL_ITEM_IDS = False


def finish_reason(s: Scenario) -> str:
    return "tool_calls" if s.calls else "stop"


def usage(s: Scenario) -> dict[str, Any]:
    """The usage the stream carries (one output token per fragment), with the details OpenAI always sends."""
    return {
        "prompt_tokens": s.input_tokens,
        "completion_tokens": s.count,
        "total_tokens": s.input_tokens + s.count,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def chunks(s: Scenario) -> list[dict[str, Any]]:
    # The envelope OpenAI sends with stream_options.include_usage (the corpus's recorded chat fixtures).
    envelope = {
        "id": "chatcmpl-long",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "service_tier": "default",
        "system_fingerprint": "fp_long",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            **envelope,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None,
        }

    def call_start(i: int) -> dict[str, Any]:
        return chunk(
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": s.calls[i]["id"],
                        "type": "function",
                        "function": {"name": s.calls[i]["name"], "arguments": ""},
                    }
                ]
            }
        )

    stream = [chunk({"role": "assistant", "content": None if s.calls else "", "refusal": None})]
    if s.interleaved:  # every call opened first, then their fragments alternate
        stream += [call_start(i) for i in range(len(s.calls))]
    started = set(range(len(s.calls))) if s.interleaved else set()
    for which, piece in s.order:
        if not s.calls:
            stream.append(chunk({"content": piece}))
            continue
        if which not in started:  # one call after another: each opens when its fragments begin
            started.add(which)
            stream.append(call_start(which))
        s.append_fragment(stream, which, chunk({"tool_calls": [{"index": which, "function": {"arguments": piece}}]}))
    stream.append(chunk({}, finish_reason(s)))
    # As with stream_options.include_usage: a last chunk with no choices and the usage.
    stream.append({**envelope, "choices": [], "usage": usage(s)})
    return stream


def joined_fragments(stream: list[dict[str, Any]]) -> dict[Any, str]:
    """The text and each call's arguments joined, keyed by "text" or the call's index: nothing else checked."""
    pieces: dict[Any, list[str]] = {}
    for chunk in stream:
        for choice in chunk["choices"]:
            delta = choice["delta"]
            if delta.get("content"):
                pieces.setdefault("text", []).append(delta["content"])
            for entry in delta.get("tool_calls") or ():
                pieces.setdefault(entry["index"], []).append(entry["function"].get("arguments") or "")
    return {key: "".join(value) for key, value in pieces.items()}
