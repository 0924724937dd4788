"""litellm's bedrock converse provider: `litellm.completion(model='bedrock/converse/...', stream=True)` +
`litellm.stream_chunk_builder`.

Code path: `litellm.completion(model="bedrock/converse/anthropic.claude-sonnet-4-5", stream=True,
aws_bedrock_runtime_endpoint=<loopback>, aws_access_key_id/aws_secret_access_key=test, aws_region_name=us-east-1)`,
litellm's own `BedrockConverseLLM` (litellm/llms/bedrock/chat/converse_handler.py): it signs the request with
SigV4 and posts it to `{endpoint}/model/{modelId}/converse-stream` through its own `HTTPHandler` (httpx), here a
loopback server on 127.0.0.1 (adapters/loopback.py) answering with the fixture's event-stream body, one HTTP chunk
per message or per byte-level cut. litellm's `AWSEventStreamDecoder` (llms/bedrock/chat/invoke_handler.py) feeds
the bytes to botocore's `EventStreamBuffer`, checks each message's status and exception headers, and hands the
payload JSON (without its `:event-type` header) to `converse_chunk_parser`, which turns each event into an
OpenAI-style `ModelResponseStream`; `CustomStreamWrapper` yields them. The chunks are assembled with
`litellm.stream_chunk_builder(chunks, messages)`, litellm's documented way to rebuild the complete response from a
stream; the `ModelResponse` it returns is what is mapped.

Mapping (litellm's message, read the way litellm itself reads it):
- `thinking_blocks` -> reasoning parts (`thinking`, `signature`); a `redacted_thinking` block -> redacted_reasoning
  whose `data` is `converse_redacted_content(block.data)`: litellm keeps "Claude's own data string" (it unwraps the
  base64 Bedrock puts around Claude's, when the payload is itself base64) and uses that function to write the
  block back as Bedrock's `redactedContent` when it sends the message to a Claude model, as this one is. Without
  thinking_blocks, `reasoning_content` -> one reasoning part with no signature.
- `content` (one string: litellm joins the text of every block of the stream) -> one text part. Its annotations:
  the message's `provider_specific_fields['citationsContent']`, where litellm's bedrock stream parser keeps a
  citations delta (it reads a `citationsContent` member).
- `tool_calls` -> tool_call kind function (`id`, `name`, `arguments` as litellm joined them); the message's
  `provider_specific_fields['server_tool_calls']` / `['tool_results']`, litellm's place for a server tool's call
  and result, -> server tool calls and server_tool_result parts.

Cannot express (judged n/a): finish_reason (litellm keeps only its OpenAI-style translation of stopReason,
`map_finish_reason`: end_turn -> stop, tool_use -> tool_calls, max_tokens -> length, guardrail_intervened ->
content_filter; the streamed choice keeps no raw stopReason), usage (litellm's `Usage`, prompt_tokens /
completion_tokens, replaces the `metadata.usage` object), events (deltas only), flags. Exception and error
messages: litellm raises its own exception (`BedrockError`, mapped to `BadRequestError`, `RateLimitError`, ... or
wrapped in `MidStreamFallbackError`); it is left to propagate (the harness records `error`, or `pass` where the
fixture accepts raising).
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map over the network

import litellm  # noqa: E402
from litellm.litellm_core_utils.prompt_templates.reasoning_utils import converse_redacted_content  # noqa: E402

from deltacheck.adapter import Adapter  # noqa: E402
from deltacheck.model import AssemblyRequest  # noqa: E402

from ..loopback import AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, LoopbackReplay  # noqa: E402
from .adapter import LITELLM_VERSION, MESSAGES, _get, _tool_call_part, assembled_result  # noqa: E402

MODEL = "bedrock/converse/anthropic.claude-sonnet-4-5"
DUMMY_CREDENTIALS = {"aws_access_key_id": AWS_ACCESS_KEY_ID, "aws_secret_access_key": AWS_SECRET_ACCESS_KEY,
                     "aws_region_name": AWS_REGION}


def _reasoning_parts(message: Any) -> list[dict[str, Any]]:
    blocks = _get(message, "thinking_blocks")
    if blocks:
        return [_thinking_block_part(block) for block in blocks]
    reasoning = _get(message, "reasoning_content")
    if reasoning is None:
        return []
    return [{"type": "reasoning", "text": reasoning, "summary": [], "signature": None}]


def _thinking_block_part(block: Any) -> dict[str, Any]:
    if _get(block, "type") == "redacted_thinking":
        data = _get(block, "data")
        return {"type": "redacted_reasoning", "data": converse_redacted_content(data) if isinstance(data, str) else data}
    return {"type": "reasoning", "text": _get(block, "thinking") or "", "summary": [],
            "signature": _get(block, "signature")}


def _annotations(provider_fields: dict[str, Any]) -> list[Any]:
    citations = provider_fields.get("citationsContent") or []
    return list(citations) if isinstance(citations, list) else [citations]


def _message_parts(message: Any) -> list[dict[str, Any]]:
    provider_fields = _get(message, "provider_specific_fields") or {}
    parts = _reasoning_parts(message)
    content = _get(message, "content")
    if content is not None:  # "" too: the comparator decides what an empty part is
        parts.append({"type": "text", "text": content, "annotations": _annotations(provider_fields)})
    parts.extend(_tool_call_part(call) for call in _get(message, "tool_calls") or [])
    parts.extend(_tool_call_part(call, kind="server") for call in provider_fields.get("server_tool_calls") or [])
    for block in provider_fields.get("tool_results") or []:
        parts.append({"type": "server_tool_result", "block_type": _get(block, "type"),
                      "tool_use_id": _get(block, "tool_use_id"), "content": _get(block, "content")})
    return parts


class LitellmBedrockAdapter(Adapter):
    name = "litellm-bedrock"
    library = "litellm"
    version = LITELLM_VERSION
    protocols = frozenset({"bedrock-converse"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "annotations", "server_tools", "error"})
    capability_notes = dict(
        flags="litellm keeps a call's arguments as text; no field of its message marks them unparsable",
        events="CustomStreamWrapper yields OpenAI-style deltas only and stream_chunk_builder returns one ModelResponse: no tool-call completion events",
        finish_reason=("litellm exposes its OpenAI-style translation of stopReason (end_turn -> stop, tool_use -> tool_calls, "
                       "max_tokens -> length, guardrail_intervened -> content_filter); the streamed choice keeps no raw stopReason"),
        usage="litellm's Usage (prompt_tokens / completion_tokens) replaces Bedrock's metadata.usage object")
    code_path = ("litellm.completion(model='bedrock/converse/...', stream=True, aws_bedrock_runtime_endpoint=<loopback>) through "
                 "litellm's BedrockConverseLLM and AWSEventStreamDecoder over its httpx client, then litellm.stream_chunk_builder(chunks)")

    def __init__(self) -> None:
        self._server = LoopbackReplay()  # one for every fixture, as an endpoint override names one host

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        self._server.serve(request)
        stream = litellm.completion(model=MODEL, messages=MESSAGES, stream=True, max_retries=0,
                                    aws_bedrock_runtime_endpoint=self._server.url, **DUMMY_CREDENTIALS)
        return assembled_result(list(stream), _message_parts)
