"""Constructors for canonical parts, so every assembler writes them the same way."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


def text_part(text: str, annotations: list[Any] | None = None) -> dict[str, Any]:
    return {"type": "text", "text": text, "annotations": list(annotations or [])}


def refusal_part(text: str) -> dict[str, Any]:
    return {"type": "refusal", "text": text}


def reasoning_part(text: str, summary: list[str] | None = None, signature: str | None = None) -> dict[str, Any]:
    return {"type": "reasoning", "text": text, "summary": list(summary or []), "signature": signature}


def tool_call_part(kind: str, id: str | None, item_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    return {"type": "tool_call", "kind": kind, "id": id, "item_id": item_id, "name": name, "arguments": arguments}


def error_type(source: dict[str, Any], type_key: str | None = "type") -> str | None:
    """The canonical error `type`: the provider's type, else its code, always as text (CONTRACT 3.1).

    Providers send codes as text (`server_error`) or as numbers (OpenRouter's `502`); the canonical
    form is one string either way, so the number 502 and the text "502" are one type.
    """
    for value in (source.get(type_key) if type_key else None, source.get("code")):
        if isinstance(value, str) and value:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def json_text(value: Any) -> str:
    """JSON text for a value the wire sent as an object rather than as text."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class ReferenceOutcome:
    """What a reference assembler produced, plus what the event judge needs to know.

    `last_fragment` maps (choice index, position of the tool call among the choice's parts) to the
    0-based index of the last chunk that carried a fragment of that call.
    """

    result: dict[str, Any]
    last_fragment: dict[tuple[int, int], int] = field(default_factory=dict)
    # (expected result, it with `result`'s own events, that one's confusable leaves, whether those events
    # are valid and pass the event rules): the event judge's work on the common outcome, done once
    # (deltacheck.judge.verdict)
    judged_own_events: tuple[Any, dict[str, Any], tuple, bool] | None = field(default=None, compare=False, repr=False)
