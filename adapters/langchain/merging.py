"""What every LangChain adapter reads the same way: the chunks `.stream()` yields, summed with `+`
(langchain-core's documented `add_ai_message_chunks`), and each merged `tool_call_chunks` entry as a
LangChain user reads it. Only langchain-core is imported here, so the adapters whose environments
hold one provider package each (aws, google-genai) can share it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from langchain_core.messages import AIMessageChunk


def merge_stream(
    stream: Iterable[AIMessageChunk], provider_error: Callable[[BaseException], dict | None]
) -> tuple[AIMessageChunk | None, dict | None]:
    """Sum the yielded chunks with `+`. A provider error (what `provider_error` recognises) stops the sum
    and is returned with what was merged before it; any other exception propagates."""
    merged: AIMessageChunk | None = None
    try:
        for chunk in stream:
            merged = chunk if merged is None else merged + chunk
    except Exception as exc:
        error = provider_error(exc)
        if error is None:
            raise
        return merged, error
    return merged, None


def call_part(chunk: Any) -> dict[str, Any]:
    """One `tool_call_chunks` entry as a LangChain user reads it: the `tool_calls` entry langchain-core
    derives from it, or its `invalid_tool_calls` entry (raw text, flagged: LangChain's own mark that the
    call is not executable)."""
    derived_message = AIMessageChunk(content="", tool_call_chunks=[chunk])
    derived = (derived_message.tool_calls or derived_message.invalid_tool_calls)[0]
    args = derived.get("args")
    if not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)  # a parsed tool_calls entry holds a dict
    part: dict[str, Any] = {"type": "tool_call", "kind": "function", "id": derived.get("id"), "item_id": None,
                            "name": derived.get("name"), "arguments": args}
    if not derived_message.tool_calls:
        part["flagged"] = True
    return part
