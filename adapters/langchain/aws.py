"""langchain-aws `ChatBedrockConverse`, streamed and merged with `+`, on Bedrock's ConverseStream.

Code path: one real `ChatBedrockConverse` (model `us.anthropic.claude-sonnet-4-5-20250929-v1:0`, whose
streaming langchain-aws enables) builds its own boto3 `bedrock-runtime` client from its documented
`endpoint_url`, dummy credentials and region (adapters/loopback.py: a loopback server answers
`POST /model/{modelId}/converse-stream` with the fixture's event-stream body, one HTTP chunk per message
or per byte-level cut; SigV4 signing stays on). So urllib3, botocore's own event-stream decoder
(`EventStreamBuffer`, CRC checks) and its `ConverseStream` parser, then langchain-aws's `_stream` and
`_parse_stream_event` (one `AIMessageChunk` per event, content blocks and `tool_call_chunks` keyed by
`contentBlockIndex`) run end to end. The adapter calls the public `.stream(messages)` and sums the yielded
`AIMessageChunk`s with `+` (langchain-core's `add_ai_message_chunks`), the assembly LangChain documents
for a streamed message; the sum is what is mapped. `retries` is 1 attempt, so a second request is never
sent for one fixture.

Mapping (the merged chunk, its `content` blocks in the library's order):
- `text` block -> text part.
- `reasoning_content` block: with `redacted_content` (the bytes botocore decoded from the blob) ->
  redacted_reasoning, `data` = those bytes as base64 (the canonical spelling of a blob); else reasoning,
  `text` = its `text`, `signature` = its `signature` (langchain-aws emits the signature delta as a block of
  its own at the same index, which the merge folds in).
- `tool_use` block -> nothing itself: at its place come the `tool_call_chunks` entries with its index,
  each as a LangChain user reads it (`tool_calls`, or `invalid_tool_calls` flagged; adapter.py), kind
  function. Entries whose index matches no `tool_use` block follow the block of that index (a
  `server_tool_use` block's input deltas make one), else come last.
- `server_tool_use` block (a `toolUse` start with `type: server_tool_use`) -> tool_call kind server,
  `arguments` = the block's `input`, the input deltas joined by the merge.
- `tool_result` block -> server_tool_result, `tool_use_id`, `content` = the block's `content`.
- finish_reason = `response_metadata['stopReason']`, the messageStop event as langchain-aws keeps it.
- error: botocore raises `EventStreamError` for an exception or error message, and langchain-aws lets it
  through (or re-raises a context overflow as a subclass of it). The result keeps what `.stream()` had
  yielded, merged, with `error` = the error's code (the exception type, or `:error-code`) and message.
  Anything else propagates: botocore's `ChecksumMismatch` for a damaged message, and the
  `ConnectionError` langchain-aws raises when the stream ended without `messageStop`.

Cannot express (judged n/a): usage (`_extract_usage_metadata` pops `usage` out of the metadata event and
keeps LangChain's own `usage_metadata`, input tokens summed with the cache counts), annotations
(`_bedrock_to_lc` passes a citation delta through `_camel_to_snake_keys`: the citation is kept with its
keys renamed, not in the provider's terms), events (`.stream()` yields message chunks, no tool-call
completion events).
"""

from __future__ import annotations

import base64
from importlib.metadata import version as _dist_version
from typing import Any

from langchain_core.messages import AIMessageChunk, HumanMessage

from deltacheck.adapter import Adapter
from deltacheck.model import AssemblyRequest

from ..loopback import AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, LoopbackReplay, botocore_stream_error
from .merging import call_part, merge_stream

MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
MESSAGES = [HumanMessage(content="deltacheck replay")]





def _block_part(block: Any) -> dict[str, Any] | None:
    """The part one content block is; None for a `tool_use` block (its call comes from tool_call_chunks)."""
    if isinstance(block, str):
        return {"type": "text", "text": block, "annotations": []}
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", ""), "annotations": []}
    if kind == "reasoning_content":
        reasoning = block.get("reasoning_content") or {}
        if "redacted_content" in reasoning:
            data = reasoning["redacted_content"]
            return {"type": "redacted_reasoning",
                    "data": base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data}
        return {"type": "reasoning", "text": reasoning.get("text", ""), "summary": [],
                "signature": reasoning.get("signature")}
    if kind == "tool_use":
        return None
    if kind == "server_tool_use":
        return {"type": "tool_call", "kind": "server", "id": block.get("id"), "item_id": None,
                "name": block.get("name"), "arguments": block.get("input")}
    if kind == "tool_result":
        return {"type": "server_tool_result", "block_type": "toolResult", "tool_use_id": block.get("tool_use_id"),
                "content": block.get("content")}
    raise TypeError(f"the adapter has no mapping for a langchain-aws content block of type {kind!r}")


def _parts(merged: AIMessageChunk) -> list[dict[str, Any]]:
    """Content blocks in order, each followed by the calls LangChain keeps at its index; calls of no block last."""
    content = merged.content if isinstance(merged.content, list) else [merged.content] if merged.content else []
    calls = list(merged.tool_call_chunks)
    parts: list[dict[str, Any]] = []
    for block in content:
        part = _block_part(block)
        if part is not None:
            parts.append(part)
        index = block.get("index") if isinstance(block, dict) else None
        at_block = [chunk for chunk in calls if index is not None and chunk.get("index") == index]
        parts.extend(call_part(chunk) for chunk in at_block)
        calls = [chunk for chunk in calls if chunk not in at_block]
    parts.extend(call_part(chunk) for chunk in calls)
    return parts


class LangChainAWSBedrock(Adapter):
    name = "langchain-aws-bedrock"
    library = "langchain-aws"
    version = _dist_version("langchain-aws")
    protocols = frozenset({"bedrock-converse"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "server_tools", "finish_reason", "error", "flags"})
    capability_notes = dict(
        annotations=("_bedrock_to_lc passes a citation delta through _camel_to_snake_keys: the citation is kept with "
                     "its keys renamed (sourceContent -> source_content), not in the provider's terms"),
        events=".stream() yields AIMessageChunks only, with no tool-call completion events",
        usage=("_extract_usage_metadata pops usage out of the metadata event; only LangChain's own usage_metadata "
               "is kept (input tokens summed with the cache counts)"))
    code_path = ("langchain_aws.ChatBedrockConverse(endpoint_url=<loopback>).stream(), the yielded AIMessageChunks "
                 "summed with +; its own boto3 client reads the fixture's event-stream body through botocore's decoder")

    def __init__(self) -> None:
        from botocore.config import Config
        from langchain_aws import ChatBedrockConverse

        self.loopback = LoopbackReplay()
        self.model = ChatBedrockConverse(model=MODEL_ID, endpoint_url=self.loopback.url, region_name=AWS_REGION,
                                         aws_access_key_id=AWS_ACCESS_KEY_ID,
                                         aws_secret_access_key=AWS_SECRET_ACCESS_KEY,
                                         config=Config(retries={"total_max_attempts": 1}))

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = self.loopback.serve(request)
        merged, error = merge_stream(self.model.stream(MESSAGES), botocore_stream_error)
        if replay.requests > 1:
            raise RuntimeError("the library sent a second request; only one stream is replayed")
        if merged is None:
            return {"choices": [], "usage": None, "error": error}
        choice = {"index": 0, "parts": _parts(merged), "finish_reason": merged.response_metadata.get("stopReason"),
                  "finish_detail": None}
        return {"choices": [choice], "usage": None, "error": error}
