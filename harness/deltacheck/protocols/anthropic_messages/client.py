"""What an Anthropic Messages client sends: the streaming request proxy mode makes of a gateway."""

from __future__ import annotations

from typing import Any


def headers(api_key: str) -> dict[str, str]:
    return {"x-api-key": api_key, "anthropic-version": "2023-06-01"}


def streaming_request(model: str, prompt: str, tool_names: list[str]) -> dict[str, Any]:
    """A minimal streaming request (max_tokens is required) that offers the named tools."""
    body: dict[str, Any] = {
        "model": model,
        "stream": True,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": prompt}],
    }
    if tool_names:
        body["tools"] = [{"name": n, "input_schema": {"type": "object"}} for n in tool_names]
    return body
