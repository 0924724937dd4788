"""Chat Completions' side of a gateway translation: its words for what the shared view compares (CONTRACT.md 6)."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.openai_chat import PROTOCOL

# finish_reason -> the shared reason (CONTRACT.md 6.3)
FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}
MERGED_FINISH_REASONS: dict[str, str] = {}  # it tells every shared reason apart
FINISH_DETAIL = None  # a choice has only its finish_reason

# shared count -> where a usage object says it (CONTRACT.md 6.4)
USAGE_COUNTS = {
    "input_tokens": "prompt_tokens",
    "output_tokens": "completion_tokens",
    "total_tokens": "total_tokens",
    "cached_input_tokens": "prompt_tokens_details.cached_tokens",
    "reasoning_tokens": "completion_tokens_details.reasoning_tokens",
}
ALL_ZERO_USAGE_SAYS_NONE = False

# A choice carries one text, one refusal and one reasoning, and no order between them and the calls: the
# other side's parts of each kind are joined, in this canonical order (CONTRACT.md 3.2), the calls after them.
PART_ORDER: tuple[str, ...] | None = ("reasoning", "text", "refusal")


def shared_finish(reason: Any, detail: Any) -> str:
    """The shared finish reason; one the table does not map is itself, prefixed with the protocol."""
    return FINISH_REASONS.get(reason, f"{PROTOCOL.name}:{reason}")


def reasoning_text(part: dict[str, Any]) -> str:
    return part.get("text") or ""
