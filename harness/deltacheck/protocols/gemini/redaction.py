"""What redaction (`deltacheck import`) knows of Gemini responses: which fields hold the stream's structure,
free text and ids, and where text arrives in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Values that are the stream's structure, not content: never replaced.
STRUCTURAL_KEYS = frozenset(
    {"role", "name", "finishReason", "blockReason", "modality", "trafficType", "serviceTier", "status", "jsonPath"}
)
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset({"text", "stringValue", "finishMessage", "blockReasonMessage", "message"})
# Identifiers, and the prefixes that say what they identify (kept; the rest of an id is replaced).
ID_KEYS = frozenset({"id", "responseId"})
ID_PREFIXES: tuple[str, ...] = ()
# Opaque tokens: replaced by a token of the same length and kind.
TOKEN_KEYS = frozenset({"thoughtSignature", "modelVersion"})
# Opaque blobs sent as base64 whose bytes a reference decodes: none.
BLOB_KEYS: frozenset[str] = frozenset()
# Gemini never streams argument JSON text: a call's `args` is an object whose keys are the tool's.
ARGUMENT_TEXT_KEYS: frozenset[str] = frozenset()
TOOL_INPUT_KEYS = frozenset({"args"})


def argument_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """None: a streamed call's string values arrive in pieces, but as text at a JSON path (text_fragments)."""
    return iter(())


def text_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(text key, holder dict, key) for each fragment of streamed text, in stream order: the pieces of each
    text or thought part the reference builds (a signed part, or a call between, starts another), and a Vertex
    streamed call's string value at one path."""
    calls = 0
    joining: dict[Any, tuple[bool, int] | None] = {}  # candidate -> (thought?, number) of the part text joins
    numbers = 0
    for chunk in chunks:
        for candidate in chunk.get("candidates") or [] if isinstance(chunk, dict) else []:
            content = candidate.get("content") if isinstance(candidate, dict) else None
            parts = content.get("parts") if isinstance(content, dict) else None
            index = candidate.get("index", 0) if isinstance(candidate, dict) else None
            for part in parts if isinstance(parts, list) else []:
                if not isinstance(part, dict):
                    continue
                if isinstance(part.get("text"), str):
                    thought, current = bool(part.get("thought")), joining.get(index)
                    if part.get("thoughtSignature") or current is None or current[0] != thought:
                        numbers += 1
                        current = (thought, numbers)
                    joining[index] = None if part.get("thoughtSignature") else current
                    yield ("text", index, current[1]), part, "text"
                call = part.get("functionCall")
                if not isinstance(call, dict):
                    continue
                joining[index] = None  # text after a call is a part of its own
                if call.get("name"):
                    calls += 1
                for value in call.get("partialArgs") or [] if isinstance(call.get("partialArgs"), list) else []:
                    if isinstance(value, dict) and isinstance(value.get("stringValue"), str):
                        yield ("path", index, calls, value.get("jsonPath")), value, "stringValue"


def blob_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """None: no blob of this protocol arrives in base64 fragments."""
    return iter(())
