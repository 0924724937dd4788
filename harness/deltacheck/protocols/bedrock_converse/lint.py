"""Lint rules for Bedrock ConverseStream fixtures beyond the chunk schema."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.bedrock_converse.frames import FRAME_ERROR


def chunk_problems(chunks: list[Any]) -> list[tuple[str, str]]:
    """(pointer, message) for a damaged message that is not the last chunk: a reader stops at it (CONTRACT.md 2),
    so nothing can follow it."""
    return [
        (f"/chunks/{position}", f"{FRAME_ERROR} ends the stream: it can only be the last chunk")
        for position, chunk in enumerate(chunks[:-1])
        if isinstance(chunk, dict) and FRAME_ERROR in chunk
    ]
