"""Gemini's side of a gateway translation: its words for what the shared view compares (CONTRACT.md 6)."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.gemini import PROTOCOL

# finishReason -> the shared reason (CONTRACT.md 6.3). A turn that ends in function calls ends with STOP:
# Gemini has no tool-call reason.
FINISH_REASONS = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
}
# It does not tell a stop from a tool call: a pair with Gemini on either side compares both as `stop`.
MERGED_FINISH_REASONS = {"tool_calls": "stop"}
FINISH_DETAIL = "Gemini finishMessage"

# shared count -> where a usageMetadata object says it (CONTRACT.md 6.4). Its candidatesTokenCount leaves out
# the thought tokens, which the other protocols count as output.
USAGE_COUNTS = {
    "input_tokens": "promptTokenCount",
    "output_tokens": ("candidatesTokenCount", "thoughtsTokenCount"),
    "total_tokens": "totalTokenCount",
    "cached_input_tokens": "cachedContentTokenCount",
    "reasoning_tokens": "thoughtsTokenCount",
}
ALL_ZERO_USAGE_SAYS_NONE = False
# usageMetadata is proto3 JSON, which leaves out a zero count: a blocked prompt's has no candidatesTokenCount,
# an answer without thinking no thoughtsTokenCount. A count it does not say is 0.
OMITS_ZERO_COUNTS = True

PART_ORDER: tuple[str, ...] | None = None  # parts keep their order


def shared_finish(reason: Any, detail: Any) -> str:
    """The shared finish reason; one the table does not map is itself, prefixed with the protocol."""
    return FINISH_REASONS.get(reason, f"{PROTOCOL.name}:{reason}")


def reasoning_text(part: dict[str, Any]) -> str:
    return part.get("text") or ""
