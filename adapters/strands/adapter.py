"""strands-agents `BedrockModel`, its stream assembled by strands' own event-loop streaming, on ConverseStream.

Code path: one real `strands.models.bedrock.BedrockModel` (model `us.anthropic.claude-sonnet-4-5-20250929-v1:0`,
streaming on, its default) builds its own boto3 `bedrock-runtime` client from a `boto3.Session` with dummy
credentials and region, its documented `endpoint_url` and `boto_client_config` (one attempt, so a second
request is never sent for one fixture). adapters/loopback.py answers `POST /model/{modelId}/converse-stream`
with the fixture's event-stream body, one HTTP chunk per message or per byte-level cut; SigV4 signing stays
on. So urllib3, botocore's own event-stream decoder and `ConverseStream` parser, `BedrockModel._stream` (which
passes each parsed event through as strands' stream event) and then strands' assembler run end to end: the
adapter iterates `strands.event_loop.streaming.stream_messages(model, ...)`, the function the Agent's event
loop calls for each model turn, which feeds `model.stream(...)` to `process_stream` (`handle_content_block_*`,
`handle_message_stop`, `extract_usage_metrics`), and maps the `ModelStopReason` it ends with: the stop
reason, the assembled message, the usage. The Agent itself is not run: with a tool call in the message it
would execute tools and call the model again, and what it does after a turn (running tools, recovering a
max_tokens message) is not stream assembly.

Mapping (the ModelStopReason):
- `message['content']` in order: `{"text"}` -> text; `{"citationsContent": {"citations", "content"}}` ->
  a text part per `content` item, `annotations` = `citations` (the citation deltas, as botocore parsed them);
  `{"reasoningContent": {"reasoningText": {"text", "signature"?}}}` -> reasoning;
  `{"reasoningContent": {"redactedContent": bytes}}` -> redacted_reasoning, `data` = the bytes as base64 (the
  canonical spelling of a blob); `{"toolUse": {"toolUseId", "name", "input"}}` -> tool_call kind function,
  `arguments` = `input`, the object `handle_content_block_stop` parsed, written with `json.dumps`.
- finish_reason = `stop_reason` (the messageStop's stopReason as `handle_message_stop` returns it);
  usage = `usage` (`extract_usage_metrics`: the metadata event's usage object, over defaults of 0).
- A stream error raises out of `model.stream` (botocore's `EventStreamError`, or strands'
  `ModelThrottledException` for a throttling exception) before `process_stream` yields its ModelStopReason,
  and propagates as raised; so does botocore's `ChecksumMismatch` for a damaged message.

Cannot express (judged n/a): error (the assembled message comes only in the ModelStopReason at the end of
the stream, and a stream error raises before it: no result carries both), flags (`handle_content_block_stop`
replaces input that does not parse with `{}`, and a ToolUse has no field marking it), server_tools (a
ToolUse keeps only toolUseId, name and input, not the start's `type`, and `handle_content_block_delta` reads
no `toolResult` delta), events (`process_stream` yields a ToolUseStreamEvent per input delta and the message
only at the end; nothing marks a call complete).
"""

from __future__ import annotations

import base64
import json
from importlib.metadata import version as _dist_version
from typing import Any

from deltacheck.adapter import Adapter
from deltacheck.model import AssemblyRequest

from ..loopback import AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, LoopbackReplay

MODEL_ID = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
MESSAGES = [{"role": "user", "content": [{"text": "deltacheck replay"}]}]


def _parts(block: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts one content block of the assembled message is."""
    if "text" in block:
        return [{"type": "text", "text": block["text"], "annotations": []}]
    if "citationsContent" in block:
        cited = block["citationsContent"]
        return [{"type": "text", "text": item.get("text", ""), "annotations": list(cited.get("citations") or [])}
                for item in cited.get("content") or []]
    if "reasoningContent" in block:
        reasoning = block["reasoningContent"]
        if "redactedContent" in reasoning:
            data = reasoning["redactedContent"]
            return [{"type": "redacted_reasoning",
                     "data": base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data}]
        text = reasoning.get("reasoningText") or {}
        return [{"type": "reasoning", "text": text.get("text", ""), "summary": [], "signature": text.get("signature")}]
    if "toolUse" in block:
        call = block["toolUse"]
        arguments = call.get("input")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        return [{"type": "tool_call", "kind": "function", "id": call.get("toolUseId"), "item_id": None,
                 "name": call.get("name"), "arguments": arguments}]
    raise TypeError(f"the adapter has no mapping for a strands content block with keys {sorted(block)}")


class StrandsBedrock(Adapter):
    name = "strands-agents-bedrock"
    library = "strands-agents"
    version = _dist_version("strands-agents")
    protocols = frozenset({"bedrock-converse"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "annotations", "finish_reason", "usage"})
    capability_notes = dict(
        error=("process_stream yields the assembled message only in its final ModelStopReason, and a stream error "
               "raises out of BedrockModel.stream before it: no result carries both"),
        events=("process_stream yields a ToolUseStreamEvent per input delta and the message only at the end; nothing "
                "marks a call complete"),
        flags=("handle_content_block_stop replaces tool input that does not parse with {}, and a ToolUse has no field "
               "marking it"),
        server_tools=("a ToolUse keeps only toolUseId, name and input, not the start's type, and "
                      "handle_content_block_delta reads no toolResult delta"))
    code_path = ("strands.event_loop.streaming.stream_messages(BedrockModel(endpoint_url=<loopback>), ...), the "
                 "event loop's model turn: BedrockModel.stream fed to process_stream, mapped from its ModelStopReason; "
                 "its own boto3 client reads the fixture's event-stream body through botocore's decoder")

    def __init__(self) -> None:
        import boto3
        from botocore.config import Config
        from strands.models.bedrock import BedrockModel

        self.loopback = LoopbackReplay()
        session = boto3.Session(aws_access_key_id=AWS_ACCESS_KEY_ID, aws_secret_access_key=AWS_SECRET_ACCESS_KEY,
                                region_name=AWS_REGION)
        self.model = BedrockModel(model_id=MODEL_ID, boto_session=session, endpoint_url=self.loopback.url,
                                  boto_client_config=Config(retries={"total_max_attempts": 1}))

    async def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        from strands.event_loop.streaming import stream_messages
        from strands.types.events import ModelStopReason

        served = self.loopback.serve(request)
        stop: ModelStopReason | None = None
        async for event in stream_messages(self.model, None, MESSAGES, []):
            if isinstance(event, ModelStopReason):
                stop = event
        if served.requests > 1:
            raise RuntimeError("the library sent a second request; only one stream is replayed")
        if stop is None:
            return {"choices": [], "usage": None, "error": None}
        parts = [part for block in stop.message.get("content", []) for part in _parts(dict(block))]
        choice = {"index": 0, "parts": parts, "finish_reason": stop.stop_reason, "finish_detail": None}
        return {"choices": [choice], "usage": dict(stop.usage), "error": None}
