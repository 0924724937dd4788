"""Which captured chunks are Chat Completions chunks: how `deltacheck import` recognises the protocol of a stream."""

from __future__ import annotations

from typing import Any

# Chat chunks carry no `type` naming their event: they are known by their shape, which a typed protocol's
# chunk may share (an `error` object), so this protocol is asked only after the typed ones.
TYPED = False


def recognises(chunk: dict[str, Any]) -> bool:
    """A completion chunk, or the error frame a Chat Completions stream sends."""
    return "choices" in chunk or chunk.get("object") == "chat.completion.chunk" or isinstance(chunk.get("error"), dict)


def is_error_frame(chunk: dict[str, Any]) -> bool:
    """Only an `error` object: an error frame, which may sit in a stream of another protocol (a gateway's)."""
    return set(chunk) <= {"error"}


def starts_response(chunk: dict[str, Any]) -> bool:
    """No chunk says a response begins (a second one shows as chunks after `data: [DONE]`)."""
    return False
