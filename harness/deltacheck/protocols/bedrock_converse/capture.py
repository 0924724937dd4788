"""Which captured chunks are Bedrock ConverseStream messages: how `deltacheck import` recognises the protocol."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.bedrock_converse import EVENTS, EXCEPTIONS

# A chunk names its message type as its one key, not in a `type` field: it is known by that key, so this
# protocol is asked after the typed ones.
TYPED = False


def recognises(chunk: dict[str, Any]) -> bool:
    """One key: a ConverseStream event or one of its modelled exceptions."""
    return len(chunk) == 1 and next(iter(chunk)) in EVENTS | EXCEPTIONS


def is_error_frame(chunk: dict[str, Any]) -> bool:
    """A modelled exception alone: an error frame of this protocol."""
    return len(chunk) == 1 and next(iter(chunk)) in EXCEPTIONS


def starts_response(chunk: dict[str, Any]) -> bool:
    """`messageStart` begins a response: a second one means the capture holds two."""
    return set(chunk) == {"messageStart"}
