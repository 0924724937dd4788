"""Responses streams of the long-stream scenarios (deltacheck.cost.long_streams).

One output item after another, as the API streams them; each function call is an item whose `id`
differs from its `call_id`. The lifecycle events carry complete `Response` objects (the fields
OpenAI always sends, as in the corpus's Responses fixtures), and the stream ends with the `.done`
events and a terminal response carrying the full output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deltacheck.cost.long_streams import Scenario

SHAPES = ("text", "tool", "tools4")  # no Responses stream is documented to interleave calls
CALL_ITEM_IDS = True


def finish_reason(s: Scenario) -> str:
    return "completed"


def usage(s: Scenario) -> dict[str, Any]:
    """The usage the stream carries (one output token per fragment): a ResponseUsage, whose details are required."""
    return {
        "input_tokens": s.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": s.count,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": s.input_tokens + s.count,
    }


def _response(status: str, output: list[dict[str, Any]], reported_usage: dict[str, Any] | None) -> dict[str, Any]:
    """A complete `Response` object, with the fields OpenAI always sends (the corpus's Responses fixtures)."""
    return {
        "id": "resp_long",
        "object": "response",
        "created_at": 0,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "model": "m",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": 1,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1,
        "usage": reported_usage,
        "metadata": {},
    }


def chunks(s: Scenario) -> list[dict[str, Any]]:
    stream: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response("in_progress", [], None)},
        {"type": "response.in_progress", "response": _response("in_progress", [], None)},
    ]
    if not s.calls:
        message = {"id": "msg_0", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        where = {"item_id": "msg_0", "output_index": 0, "content_index": 0}
        stream += [
            {"type": "response.output_item.added", "output_index": 0, "item": message},
            {"type": "response.content_part.added", **where, "part": part},
        ]
        stream += [
            {"type": "response.output_text.delta", **where, "delta": piece, "logprobs": []} for _, piece in s.order
        ]
        done_part = {**part, "text": s.text}
        output = [{**message, "status": "completed", "content": [done_part]}]
        stream += [
            {"type": "response.output_text.done", **where, "text": s.text, "logprobs": []},
            {"type": "response.content_part.done", **where, "part": done_part},
            {"type": "response.output_item.done", "output_index": 0, "item": output[0]},
        ]
    else:
        output = []
        for which, call in enumerate(s.calls):  # one output item after another, as the API streams them
            item = {
                "id": call["item_id"],
                "type": "function_call",
                "status": "in_progress",
                "arguments": "",
                "call_id": call["id"],
                "name": call["name"],
            }
            stream.append({"type": "response.output_item.added", "output_index": which, "item": item})
            for _, piece in (entry for entry in s.order if entry[0] == which):
                s.append_fragment(
                    stream,
                    which,
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": call["item_id"],
                        "output_index": which,
                        "delta": piece,
                    },
                )
            done = {**item, "status": "completed", "arguments": call["arguments"]}
            output.append(done)
            stream += [
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": call["item_id"],
                    "output_index": which,
                    "arguments": call["arguments"],
                },
                {"type": "response.output_item.done", "output_index": which, "item": done},
            ]
    stream.append({"type": "response.completed", "response": _response("completed", output, usage(s))})
    return [{"type": chunk["type"], "sequence_number": number, **chunk} for number, chunk in enumerate(stream)]


def joined_fragments(stream: list[dict[str, Any]]) -> dict[Any, str]:
    """Each output item's deltas joined, keyed by its output index: nothing else checked."""
    pieces: dict[Any, list[str]] = {}
    for event in stream:
        if event["type"].endswith(".delta"):
            pieces.setdefault(event["output_index"], []).append(event["delta"])
    return {key: "".join(value) for key, value in pieces.items()}
