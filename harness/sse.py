"""Render a fixture's chunks as the SSE bytes a provider would send."""

from __future__ import annotations

import json
from typing import Any, Iterable

NAMED_EVENTS = {"openai-responses", "anthropic-messages"}


def encode_chunk(chunk: Any) -> str:
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))


def render_sse(protocol: str, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
    """Chat: `data:` lines then `data: [DONE]`; Responses and Anthropic: `event:` + `data:` pairs."""
    lines: list[str] = []
    for chunk in chunks:
        if protocol in NAMED_EVENTS and isinstance(chunk, dict) and isinstance(chunk.get("type"), str):
            lines.append(f"event: {chunk['type']}\n")
        lines.append(f"data: {encode_chunk(chunk)}\n\n")
    if protocol == "openai-chat" and stream_end == "terminator":
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode("utf-8")
