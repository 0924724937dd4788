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


def json_text(value: Any) -> str:
    """JSON text for a value the wire sent as an object rather than as text."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_complete_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@dataclass
class ReferenceOutcome:
    """What a reference assembler produced, plus what the event judge needs to know.

    `last_fragment` maps (choice index, position of the tool call among the choice's parts) to the
    0-based index of the last chunk that carried a fragment of that call.
    """

    result: dict[str, Any]
    last_fragment: dict[tuple[int, int], int] = field(default_factory=dict)
