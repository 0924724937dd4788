"""Bedrock ConverseStream streams of the long-stream scenarios (deltacheck.cost.long_streams).

As the API streams them: `messageStart`, then one block after another, a text block opening with its
first delta (no start event) and each call with a `toolUse` start, its input deltas and its stop;
then `messageStop` and `metadata` with the usage, one output token per fragment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deltacheck.cost.long_streams import Scenario

SHAPES = ("text", "tool", "tools4")  # blocks stream one after another
CALL_ITEM_IDS = False


def finish_reason(s: Scenario) -> str:
    return "tool_use" if s.calls else "end_turn"


def usage(s: Scenario) -> dict[str, Any]:
    """metadata.usage: the input tokens, one output token per fragment."""
    return {"inputTokens": s.input_tokens, "outputTokens": s.count, "totalTokens": s.input_tokens + s.count}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}}


def chunks(s: Scenario) -> list[dict[str, Any]]:
    stream: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    if not s.calls:
        stream += [_delta(0, {"text": piece}) for _, piece in s.order]
        stream.append({"contentBlockStop": {"contentBlockIndex": 0}})
    else:
        for which, call in enumerate(s.calls):
            start = {"toolUse": {"toolUseId": call["id"], "name": call["name"]}}
            stream.append({"contentBlockStart": {"contentBlockIndex": which, "start": start}})
            for _, piece in (entry for entry in s.order if entry[0] == which):
                s.append_fragment(stream, which, _delta(which, {"toolUse": {"input": piece}}))
            stream.append({"contentBlockStop": {"contentBlockIndex": which}})
    stream.append({"messageStop": {"stopReason": finish_reason(s)}})
    stream.append({"metadata": {"usage": usage(s), "metrics": {"latencyMs": 1}}})
    return stream


def joined_fragments(stream: list[dict[str, Any]]) -> dict[Any, str]:
    """Each block's text or input joined, keyed by its contentBlockIndex: nothing else checked."""
    pieces: dict[Any, list[str]] = {}
    for chunk in stream:
        event = chunk.get("contentBlockDelta")
        if event is not None:
            delta = event["delta"]
            piece = delta["text"] if "text" in delta else delta["toolUse"]["input"]
            pieces.setdefault(event["contentBlockIndex"], []).append(piece)
    return {key: "".join(value) for key, value in pieces.items()}
