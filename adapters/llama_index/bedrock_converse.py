"""llama-index-llms-bedrock-converse `BedrockConverse.stream_chat`, on Bedrock's ConverseStream.

Code path: one real `BedrockConverse` (model `anthropic.claude-sonnet-4-5-20250929-v1:0`) builds its own
boto3 `bedrock-runtime` client from its documented `endpoint_url`, dummy credentials and region
(adapters/loopback.py: a loopback server answers `POST /model/{modelId}/converse-stream` with the
fixture's event-stream body, one HTTP chunk per message or per byte-level cut; SigV4 signing stays on).
So urllib3, botocore's own event-stream decoder and `ConverseStream` parser, then llama-index's
`stream_chat` generator (`converse_with_retry(stream=True)`, the running `join_two_dicts` of every delta,
its tool-call tracking from each `toolUse` start) run end to end. The result is the last `ChatResponse`
the stream yields, as a llama-index consumer (its agents included) takes it. `max_retries=1` (llama-index's
own retry: one attempt) and a `botocore_config` of one attempt, so a second request is never sent for one
fixture.

Mapping (the last ChatResponse's `message.blocks`, in the library's order):
- `ThinkingBlock` -> reasoning, `text` = its `content`, `signature` =
  `additional_information['signature']` as the library holds it (it starts every stream with "").
- `TextBlock` -> text (llama-index always keeps one, "" when the stream sent no text; empty parts are
  omitted by the comparator for this protocol).
- `ToolCallBlock` -> tool_call kind function: `id` = `tool_call_id`, `name` = `tool_name`, `arguments` =
  `tool_kwargs` (the dict llama-index parsed the joined input into, written with `json.dumps`; a string
  as is).
- error: botocore raises `EventStreamError` for an exception or error message, and llama-index lets it
  through the generator. After a ChatResponse, the result is the last one with `error` = the error's code
  (the exception type, or `:error-code`) and message; before any, the error propagates as raised (there
  is no message to keep). Anything else propagates (botocore's `ChecksumMismatch` for a damaged message).

Cannot express (judged n/a): finish_reason (`stream_chat` does not yield for messageStop, "We don't
yield here, just track the event", and a ChatResponse has no stop-reason field; `raw` is only the last
event yielded, passed through as botocore parsed it), usage (`_get_response_token_counts` renames the
counts to OpenAI's `prompt_tokens` / `completion_tokens` / ... and drops the rest of the usage object),
annotations (no block carries a citation delta: the TextBlock holds text only, and llama-index's
`CitationBlock` is its own shape, which this path never makes), server_tools (a `ToolCallBlock` has no
field for the `toolUse` start's `type`), flags (a `ToolCallBlock` has no field marking a call
unparsable: `_parse_tool_input` closes cut JSON with `parse_partial_json`, `{}` when that fails), events
(every ChatResponse holds every call as accumulated so far; nothing marks a call complete).
"""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, TextBlock, ThinkingBlock, ToolCallBlock

from deltacheck.adapter import Adapter
from deltacheck.model import AssemblyRequest

from ..loopback import AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, LoopbackReplay, botocore_stream_error

LIBRARY = "llama-index-llms-bedrock-converse"
MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0"
PROMPT = [ChatMessage(role="user", content="deltacheck replay")]



def _part(block: Any) -> dict[str, Any]:
    if isinstance(block, ThinkingBlock):
        return {"type": "reasoning", "text": block.content or "", "summary": [],
                "signature": (block.additional_information or {}).get("signature")}
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text, "annotations": []}
    if isinstance(block, ToolCallBlock):
        arguments = block.tool_kwargs
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        return {"type": "tool_call", "kind": "function", "id": block.tool_call_id, "item_id": None,
                "name": block.tool_name, "arguments": arguments}
    raise TypeError(f"the adapter has no mapping for llama-index block {type(block).__name__}")


class LlamaIndexBedrockConverse(Adapter):
    name = "llama-index-bedrock"
    library = LIBRARY
    version = importlib.metadata.version(LIBRARY)
    protocols = frozenset({"bedrock-converse"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "error"})
    capability_notes = dict(
        annotations=("no block carries a citation delta: the TextBlock holds text only, and llama-index's CitationBlock "
                     "is its own shape, which stream_chat never makes"),
        events=("stream_chat yields cumulative ChatResponses that hold every call as accumulated so far; nothing marks "
                "a call complete"),
        finish_reason=("stream_chat does not yield for messageStop ('We don't yield here, just track the event') and a "
                       "ChatResponse has no stop-reason field; `raw` is only the last event yielded"),
        flags=("ToolCallBlock has no field marking a call unparsable: _parse_tool_input closes cut JSON with "
               "parse_partial_json, {} when that fails"),
        server_tools="ToolCallBlock has no field for the toolUse start's type (server_tool_use)",
        usage=("_get_response_token_counts renames the counts to OpenAI's prompt_tokens / completion_tokens / "
               "total_tokens and drops the rest of the usage object"))
    code_path = ("llama_index.llms.bedrock_converse.BedrockConverse(endpoint_url=<loopback>).stream_chat(messages), "
                 "mapped from the last ChatResponse's blocks; its own boto3 client reads the fixture's event-stream body "
                 "through botocore's decoder")

    def __init__(self) -> None:
        from botocore.config import Config
        from llama_index.llms.bedrock_converse import BedrockConverse

        self.loopback = LoopbackReplay()
        self.llm = BedrockConverse(model=MODEL_ID, endpoint_url=self.loopback.url, region_name=AWS_REGION,
                                   aws_access_key_id=AWS_ACCESS_KEY_ID, aws_secret_access_key=AWS_SECRET_ACCESS_KEY,
                                   max_retries=1, botocore_config=Config(retries={"total_max_attempts": 1}))

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        served = self.loopback.serve(request)
        last: ChatResponse | None = None
        error: dict[str, Any] | None = None
        try:
            for response in self.llm.stream_chat(PROMPT):
                last = response
        except Exception as exc:
            error = botocore_stream_error(exc)
            if error is None or last is None:
                raise
        if served.requests > 1:
            raise RuntimeError("the library sent a second request; only one stream is replayed")
        if last is None:
            return {"choices": [], "usage": None, "error": error}
        choice = {"index": 0, "parts": [_part(block) for block in last.message.blocks], "finish_reason": None,
                  "finish_detail": None}
        return {"choices": [choice], "usage": None, "error": error}
