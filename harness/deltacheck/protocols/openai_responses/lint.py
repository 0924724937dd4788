"""Lint rules for Responses fixtures beyond the chunk schema."""

from __future__ import annotations

from typing import Any


def chunk_problems(chunks: list[Any]) -> list[tuple[str, str]]:
    """(pointer, message) for every event whose `sequence_number` does not increase."""
    out = []
    previous = None
    for position, chunk in enumerate(chunks):
        number = chunk.get("sequence_number")
        if previous is not None and number <= previous:
            out.append((f"/chunks/{position}/sequence_number", f"{number} does not increase after {previous}"))
        previous = number
    return out
