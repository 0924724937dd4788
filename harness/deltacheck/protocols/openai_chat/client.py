"""What a Chat Completions client sends: the streaming request proxy mode makes of a gateway."""

from __future__ import annotations

from typing import Any


def headers(api_key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {api_key}"}


def streaming_request(model: str, prompt: str, tool_names: list[str]) -> dict[str, Any]:
    """A minimal streaming request that asks for usage and offers the named functions."""
    body: dict[str, Any] = {
        "model": model,
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": prompt}],
    }
    if tool_names:
        body["tools"] = [
            {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in tool_names
        ]
    return body
