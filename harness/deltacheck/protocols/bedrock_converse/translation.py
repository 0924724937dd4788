"""Bedrock ConverseStream's side of a gateway translation: its words for what the shared view compares (CONTRACT.md 6)."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.bedrock_converse import PROTOCOL

# stopReason -> the shared reason (CONTRACT.md 6.3)
FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "content_filtered": "content_filter",
    "guardrail_intervened": "content_filter",
}
MERGED_FINISH_REASONS: dict[str, str] = {}  # it tells every shared reason apart
FINISH_DETAIL = None  # a ConverseStream has no finish detail

# shared count -> where metadata.usage says it (CONTRACT.md 6.4). Its inputTokens leaves out the cached tokens.
USAGE_COUNTS = {
    "input_tokens": ("inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"),
    "output_tokens": "outputTokens",
    "total_tokens": "totalTokens",
    "cached_input_tokens": "cacheReadInputTokens",
}
ALL_ZERO_USAGE_SAYS_NONE = False  # metadata is sent only with the usage it reports

PART_ORDER: tuple[str, ...] | None = None  # blocks keep their index order


def shared_finish(reason: Any, detail: Any) -> str:
    """The shared finish reason; one the table does not map is itself, prefixed with the protocol."""
    return FINISH_REASONS.get(reason, f"{PROTOCOL.name}:{reason}")


def reasoning_text(part: dict[str, Any]) -> str:
    return part.get("text") or ""
