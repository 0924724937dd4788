"""What redaction (`deltacheck import`) knows of Chat Completions chunks: which fields hold the stream's
structure, free text and ids, and where a tool call's argument text arrives in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Values that are the stream's structure, not content: never replaced.
STRUCTURAL_KEYS = frozenset({"type", "object", "role", "name", "finish_reason", "stop_reason", "code", "service_tier"})
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset({"content", "refusal", "reasoning_content", "reasoning", "arguments", "message"})
# Identifiers, and the prefixes that say what they identify (kept; the rest of an id is replaced).
ID_KEYS = frozenset({"id", "system_fingerprint"})
ID_PREFIXES = ("chatcmpl-", "call_", "fp_", "file_")
# A whole argument text (string), and arguments a gateway sends already parsed (their keys are the tool's).
ARGUMENT_TEXT_KEYS = frozenset({"arguments"})
TOOL_INPUT_KEYS = frozenset({"arguments"})


def argument_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(call key, holder dict, key) for each fragment of tool-call argument text, in stream order."""
    for chunk in chunks:
        for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            for call in delta.get("tool_calls") or [] if isinstance(delta.get("tool_calls"), list) else []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    yield ("call", choice.get("index"), call.get("index")), fn, "arguments"
            fc = delta.get("function_call")
            if isinstance(fc, dict) and isinstance(fc.get("arguments"), str):
                yield ("function_call", choice.get("index")), fc, "arguments"
