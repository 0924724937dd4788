"""Which captured chunks are Anthropic Messages events: how `deltacheck import` recognises the protocol of a stream."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.anthropic_messages import EVENTS

# Every Messages event names itself in `type`, so a chunk recognised here is one of this protocol's.
TYPED = True


def recognises(chunk: dict[str, Any]) -> bool:
    """One of the Messages events, or the `error` event (with an `error` object) a Messages stream sends."""
    kind = chunk.get("type")
    return isinstance(kind, str) and (kind in EVENTS or kind == "error" and isinstance(chunk.get("error"), dict))


def is_error_frame(chunk: dict[str, Any]) -> bool:
    """An `error` event, which may sit in a stream of another protocol (a gateway's)."""
    return chunk.get("type") == "error"


def starts_response(chunk: dict[str, Any]) -> bool:
    """`message_start` begins a response: a second one means the capture holds two."""
    return chunk.get("type") == "message_start"
