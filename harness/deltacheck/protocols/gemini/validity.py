"""Is a Gemini stream valid on its own (CONTRACT.md 6.5)? Its rules, and how to recognise its chunks."""

from __future__ import annotations

from typing import Any

# What a GenerateContentResponse chunk carries at least one of (an error object aside).
RESPONSE_KEYS = ("candidates", "promptFeedback", "usageMetadata")


def owns_event_type(kind: str) -> bool:
    return False  # its chunks carry no event type


def owns_shape(chunk: dict[str, Any]) -> bool:
    return isinstance(chunk.get("candidates"), list) or isinstance(chunk.get("promptFeedback"), dict)


def stream_problems(chunks: list[Any], event_names: list[str], terminated: bool) -> list[str]:
    """Every chunk is a GenerateContentResponse (error chunks aside), one responseId throughout, and every
    candidate the stream started is finished (a finishReason), unless an error ended the stream."""
    problems = []
    ids = set()
    started: set[int] = set()
    finished: set[int] = set()
    for position, chunk in enumerate(chunks):
        if not isinstance(chunk, dict):
            problems.append(f"chunk {position} is not a JSON object")
            continue
        if "error" in chunk:
            return problems  # an error ends the stream wherever it comes
        if not any(key in chunk for key in RESPONSE_KEYS):
            problems.append(f"chunk {position} carries none of {', '.join(RESPONSE_KEYS)}")
        if chunk.get("responseId") is not None:
            ids.add(chunk["responseId"])
        for candidate in chunk.get("candidates") or []:
            index = candidate.get("index", 0) if isinstance(candidate, dict) else None
            if not isinstance(index, int):
                continue
            started.add(index)
            if candidate.get("finishReason"):
                finished.add(index)
    if len(ids) > 1:
        problems.append(f"the responseId changes within the stream ({len(ids)} different ids)")
    for index in sorted(started - finished):
        problems.append(f"candidate {index} never gets a finishReason")
    return problems
