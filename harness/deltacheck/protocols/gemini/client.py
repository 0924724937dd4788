"""What a Gemini client sends: the streaming request proxy mode makes of a gateway (the model is in the path)."""

from __future__ import annotations

from typing import Any


def headers(api_key: str) -> dict[str, str]:
    return {"x-goog-api-key": api_key}


def streaming_request(model: str, prompt: str, tool_names: list[str]) -> dict[str, Any]:
    """A minimal GenerateContentRequest that offers the named functions."""
    body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
    if tool_names:
        body["tools"] = [{"functionDeclarations": [{"name": n, "parameters": {"type": "object"}} for n in tool_names]}]
    return body
