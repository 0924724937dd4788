"""The one merge every LangChain adapter reports: the chunks `.stream()` yields, summed with `+`
(langchain-core's documented `add_ai_message_chunks`). Only langchain-core is imported here, so the
adapters whose environments hold one provider package each (aws, google-genai) can share it."""

from __future__ import annotations

from collections.abc import Callable, Iterable

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
