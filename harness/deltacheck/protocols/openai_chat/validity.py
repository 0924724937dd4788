"""Is a Chat Completions stream valid on its own (CONTRACT.md 6.5)? Its rules, and how to recognise its chunks."""

from __future__ import annotations

from typing import Any


def owns_event_type(kind: str) -> bool:
    return False  # its chunks carry no event type


def owns_shape(chunk: dict[str, Any]) -> bool:
    return chunk.get("object") == "chat.completion.chunk" or isinstance(chunk.get("choices"), list)


def stream_problems(chunks: list[Any], event_names: list[str], terminated: bool) -> list[str]:
    """Every chunk has a `choices` array (error chunks aside), one chunk id throughout, `[DONE]` at the end."""
    problems = []
    if not terminated:
        problems.append("the stream ends without data: [DONE]")
    ids = []
    for position, chunk in enumerate(chunks):
        if not isinstance(chunk, dict):
            problems.append(f"chunk {position} is not a JSON object")
            continue
        if "error" in chunk:
            continue
        if not isinstance(chunk.get("choices"), list):
            problems.append(f"chunk {position} has no `choices` array")
        if chunk.get("id") is not None:
            ids.append(chunk["id"])
    if len(set(ids)) > 1:
        problems.append(f"the chunk id changes within the stream ({len(set(ids))} different ids)")
    return problems
