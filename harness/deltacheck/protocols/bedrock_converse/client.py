"""What a Bedrock ConverseStream client sends: the streaming request proxy mode makes of a gateway (the model is in
the path, `/model/{modelId}/converse-stream`)."""

from __future__ import annotations

from typing import Any


def headers(api_key: str) -> dict[str, str]:
    """A Bedrock API key is a bearer token (the API also takes SigV4 signatures, which a loopback gateway cannot check)."""
    return {"authorization": f"Bearer {api_key}"}


def streaming_request(model: str, prompt: str, tool_names: list[str]) -> dict[str, Any]:
    """A minimal ConverseStream request that offers the named tools."""
    body: dict[str, Any] = {"messages": [{"role": "user", "content": [{"text": prompt}]}]}
    if tool_names:
        body["toolConfig"] = {
            "tools": [{"toolSpec": {"name": n, "inputSchema": {"json": {"type": "object"}}}} for n in tool_names]
        }
    return body
