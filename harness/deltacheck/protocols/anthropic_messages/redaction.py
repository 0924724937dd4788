"""What redaction (`deltacheck import`) knows of Anthropic Messages events: which fields hold the stream's
structure, free text and ids, and where a tool_use block's input JSON arrives in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Values that are the stream's structure, not content: never replaced.
STRUCTURAL_KEYS = frozenset({"type", "role", "name", "stop_reason", "service_tier"})
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset(
    {
        "content",
        "text",
        "delta",
        "thinking",
        "signature",
        "data",
        "partial_json",
        "input",
        "cited_text",
        "title",
        "message",
        "encrypted_content",
    }
)
# Identifiers, and the prefixes that say what they identify (kept; the rest of an id is replaced).
ID_KEYS = frozenset({"id", "tool_use_id", "file_id"})
ID_PREFIXES = ("msg_", "toolu_", "srvtoolu_", "req_", "file_")
# A whole input JSON text (string), and a block's parsed `input` (its keys are the tool's).
ARGUMENT_TEXT_KEYS = frozenset({"partial_json"})
TOOL_INPUT_KEYS = frozenset({"input"})


def argument_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(block key, holder dict, key) for each fragment of a tool_use block's input JSON, in stream order."""
    opened: dict[Any, int] = {}
    for position, chunk in enumerate(chunks):
        if chunk.get("type") == "content_block_start":
            opened[chunk.get("index")] = position
        delta = chunk.get("delta")
        if (
            chunk.get("type") == "content_block_delta"
            and isinstance(delta, dict)
            and isinstance(delta.get("partial_json"), str)
        ):
            yield ("block", chunk.get("index"), opened.get(chunk.get("index"))), delta, "partial_json"
