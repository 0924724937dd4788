"""Lint rules for Gemini fixtures beyond the chunk schema."""

from __future__ import annotations

from typing import Any

# Every chunk of one streamed response repeats these: a fixture whose values change mixes two responses.
CONSTANT_KEYS = ("responseId", "modelVersion")


def chunk_problems(chunks: list[Any]) -> list[tuple[str, str]]:
    """(pointer, message) for every chunk whose responseId or modelVersion differs from the first one sent."""
    out = []
    first: dict[str, Any] = {}
    for position, chunk in enumerate(chunks):
        for key in CONSTANT_KEYS:
            if not isinstance(chunk, dict) or key not in chunk:
                continue
            first.setdefault(key, chunk[key])
            if chunk[key] != first[key]:
                out.append((f"/chunks/{position}/{key}", f"{chunk[key]!r} is not the stream's {key} {first[key]!r}"))
    return out
