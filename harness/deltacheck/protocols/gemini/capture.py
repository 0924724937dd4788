"""Which captured chunks are Gemini responses: how `deltacheck import` recognises the protocol of a stream."""

from __future__ import annotations

from typing import Any

# A GenerateContentResponse carries no `type`: it is known by its shape, so this protocol is asked after the
# typed ones (an `error` object alone is an error frame, which the stream it sits in owns).
TYPED = False


def recognises(chunk: dict[str, Any]) -> bool:
    """A GenerateContentResponse: candidates, a prompt's feedback, or usage metadata alone."""
    return "candidates" in chunk or "promptFeedback" in chunk or "usageMetadata" in chunk


def is_error_frame(chunk: dict[str, Any]) -> bool:
    """Only an `error` object: an error frame, which may sit in a stream of another protocol (a gateway's)."""
    return set(chunk) <= {"error"}


def starts_response(chunk: dict[str, Any]) -> bool:
    """Every chunk is a whole response, none says it begins one (a new responseId would; not checked)."""
    return False
