"""What redaction (`deltacheck import`) knows of Anthropic Messages events: which fields hold the stream's
structure, free text and ids, and where a tool_use block's input JSON arrives in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Values that are the stream's structure, not content: never replaced.
STRUCTURAL_KEYS = frozenset({"type", "role", "name", "stop_reason", "service_tier", "inference_geo"})
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
ID_PREFIXES = ("msg_", "toolu_", "srvtoolu_", "mcptoolu_", "req_", "file_")
# Opaque tokens: replaced by a token of the same length and kind.
TOKEN_KEYS = frozenset({"model", "signature", "data"})
# Opaque blobs sent as base64 whose bytes a reference decodes: none.
BLOB_KEYS: frozenset[str] = frozenset()
# Texts a content block streams in fragments (its start may hold the first): each redacted as the text it builds.
STREAMED_TEXT_KEYS = ("text", "thinking", "signature")
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


def text_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(block key, holder dict, key) for each fragment of a content block's streamed text, in stream order."""
    opened: dict[Any, int] = {}
    for position, chunk in enumerate(chunks):
        kind = chunk.get("type")
        holder = None
        if kind == "content_block_start":
            opened[chunk.get("index")] = position
            holder = chunk.get("content_block")
        elif kind == "content_block_delta":
            holder = chunk.get("delta")
        if isinstance(holder, dict):
            for key in STREAMED_TEXT_KEYS:
                if isinstance(holder.get(key), str):
                    yield ("block", chunk.get("index"), opened.get(chunk.get("index")), key), holder, key


def blob_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """None: no blob of this protocol arrives in base64 fragments."""
    return iter(())
