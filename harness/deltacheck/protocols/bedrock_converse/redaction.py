"""What redaction (`deltacheck import`) knows of Bedrock ConverseStream messages: which fields hold the stream's
structure, free text and ids, and where a toolUse block's input JSON and a block's text arrive in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Values that are the stream's structure, not content: never replaced. The padding `p` is a prefix of the
# alphabet, not model text (a filter that reads it as text finds words that were never said).
STRUCTURAL_KEYS = frozenset(
    {"role", "name", "stopReason", "type", "status", "format", "p", "Code"}
)  # `Code`: an unmodelled error's type (botocore's Error.Code)
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset({"text", "message", "originalMessage", "title", "Message"})
# Identifiers, and the prefixes that say what they identify (kept; the rest of an id is replaced).
ID_KEYS = frozenset({"toolUseId"})
ID_PREFIXES = ("tooluse_",)
# Opaque tokens: replaced by a token of the same length and kind.
TOKEN_KEYS = frozenset({"signature"})
# A redacted reasoning block's bytes, in base64 fragments the reference decodes and joins.
BLOB_KEYS = frozenset({"redactedContent"})
# A toolUse block's input arrives only as fragments (argument_fragments); no whole input text or parsed object.
ARGUMENT_TEXT_KEYS: frozenset[str] = frozenset()
TOOL_INPUT_KEYS: frozenset[str] = frozenset()


def _deltas(chunks: list[Any]) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(contentBlockIndex, delta) of every contentBlockDelta, in stream order."""
    for chunk in chunks:
        event = chunk.get("contentBlockDelta") if isinstance(chunk, dict) else None
        if isinstance(event, dict) and isinstance(event.get("delta"), dict):
            yield event.get("contentBlockIndex"), event["delta"]


def argument_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(block key, holder dict, key) for each fragment of a toolUse block's input JSON, in stream order."""
    for index, delta in _deltas(chunks):
        tool = delta.get("toolUse")
        if isinstance(tool, dict) and isinstance(tool.get("input"), str):
            yield ("block", index), tool, "input"


def text_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(block key, holder dict, key) for each fragment of a block's text or reasoning text, in stream order."""
    for index, delta in _deltas(chunks):
        if isinstance(delta.get("text"), str):
            yield ("text", index), delta, "text"
        reasoning = delta.get("reasoningContent")
        if isinstance(reasoning, dict) and isinstance(reasoning.get("text"), str):
            yield ("reasoning", index), reasoning, "text"


def blob_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(block key, holder dict, key) for each base64 fragment of a redacted reasoning block, in stream order."""
    for index, delta in _deltas(chunks):
        reasoning = delta.get("reasoningContent")
        if isinstance(reasoning, dict) and isinstance(reasoning.get("redactedContent"), str):
            yield ("redacted", index), reasoning, "redactedContent"
