"""Which captured chunks are Responses events: how `deltacheck import` recognises the protocol of a stream."""

from __future__ import annotations

from typing import Any

# Every Responses event names itself in `type`, so a chunk recognised here is one of this protocol's.
TYPED = True


def recognises(chunk: dict[str, Any]) -> bool:
    """A `response.*` event, or the numbered `error` event a Responses stream sends."""
    kind = chunk.get("type")
    return isinstance(kind, str) and (kind.startswith("response.") or kind == "error" and "sequence_number" in chunk)


def is_error_frame(chunk: dict[str, Any]) -> bool:
    """An `error` event, which may sit in a stream of another protocol (a gateway's)."""
    return chunk.get("type") == "error"


def starts_response(chunk: dict[str, Any]) -> bool:
    """`response.created` begins a response: a second one means the capture holds two."""
    return chunk.get("type") == "response.created"
