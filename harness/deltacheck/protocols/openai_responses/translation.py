"""Responses' side of a gateway translation: its words for what the shared view compares (CONTRACT.md 6)."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.openai_responses import PROTOCOL

# (status, incomplete_details.reason or None) -> the shared reason (CONTRACT.md 6.3)
FINISH_REASONS = {
    ("completed", None): "completed",
    ("incomplete", "max_output_tokens"): "length",
    ("incomplete", "content_filter"): "content_filter",
    ("failed", None): "failed",
}
# Its status does not tell a stop from a tool call: a pair with Responses on either side compares both as
# `completed`.
MERGED_FINISH_REASONS = {"stop": "completed", "tool_calls": "completed"}
FINISH_DETAIL = "Responses incomplete reason"

# shared count -> where a usage object says it (CONTRACT.md 6.4)
USAGE_COUNTS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "total_tokens": "total_tokens",
    "cached_input_tokens": "input_tokens_details.cached_tokens",
    "reasoning_tokens": "output_tokens_details.reasoning_tokens",
}
ALL_ZERO_USAGE_SAYS_NONE = False

PART_ORDER: tuple[str, ...] | None = None  # output items keep their order


def shared_finish(reason: Any, detail: Any) -> str:
    """The shared finish reason; one the table does not map is itself (and its reason), prefixed with the protocol."""
    key = (reason, detail if reason == "incomplete" else None)
    return FINISH_REASONS.get(key, f"{PROTOCOL.name}:{reason}" + (f"/{detail}" if detail else ""))


def reasoning_text(part: dict[str, Any]) -> str:
    text = part.get("text") or ""
    if not text:  # a gateway may put raw reasoning into the summary
        return "".join(part.get("summary") or [])
    return text
