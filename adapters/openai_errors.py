"""The provider's own error, as openai-python's exception carries it (shared by adapters built on it)."""

from __future__ import annotations

from typing import Any

import openai


def provider_error(exc: openai.APIError) -> dict[str, Any] | None:
    """The canonical error when the exception carries the error payload the stream sent, else None.

    Status and connection errors belong to the transport, not to the stream: they stay exceptions.
    """
    if isinstance(exc, (openai.APIStatusError, openai.APIConnectionError)) or not isinstance(exc.body, dict):
        return None
    message = exc.body.get("message")
    if not isinstance(message, str):
        return None
    return {"type": exc.body["type"] if exc.body.get("type") is not None else exc.body.get("code"), "message": message}
