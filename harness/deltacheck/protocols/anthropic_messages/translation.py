"""Anthropic Messages' side of a gateway translation: its words for what the shared view compares (CONTRACT.md 6)."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.anthropic_messages import PROTOCOL

# stop_reason -> the shared reason (CONTRACT.md 6.3)
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
MERGED_FINISH_REASONS: dict[str, str] = {}  # it tells every shared reason apart
FINISH_DETAIL = "Anthropic stop_sequence"

# shared count -> where a usage object says it (CONTRACT.md 6.4). Its input_tokens leaves out the cached
# tokens; the other protocols count them in.
USAGE_COUNTS = {
    "input_tokens": ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"),
    "output_tokens": "output_tokens",
    "cached_input_tokens": "cache_read_input_tokens",
}
# message_start must carry usage: all-zero counts are how a gateway streaming it says it has none.
ALL_ZERO_USAGE_SAYS_NONE = True

PART_ORDER: tuple[str, ...] | None = None  # content blocks keep their order


def shared_finish(reason: Any, detail: Any) -> str:
    """The shared finish reason; one the table does not map is itself, prefixed with the protocol."""
    return FINISH_REASONS.get(reason, f"{PROTOCOL.name}:{reason}")


def reasoning_text(part: dict[str, Any]) -> str:
    return part.get("text") or ""
