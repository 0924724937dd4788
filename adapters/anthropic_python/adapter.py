"""anthropic-python's Messages stream helper, driven end to end through the SDK's own HTTP client.

Code path: `Anthropic().messages.stream(...)` (the `MessageStream` context manager), iterated to the
end, then `get_final_message()`. The helper's `content_block_stop` events for `tool_use`,
`server_tool_use` and `mcp_tool_use` blocks (which carry the finished block) become `tool_call_done` events.

How the bytes get in: anthropic 2.x refuses an `httpx.Client` (it is built on `httpx2`), so the client
gets an `httpx2.Client` whose transport is `httpx2.MockTransport`. Its handler answers the request
with a 200 `text/event-stream` response whose body is the fixture's SSE rendering (`request.sse`,
byte for byte), handed over one SSE event per network chunk, so the index of the last chunk the SDK
had pulled when it emitted an event is known (`after_chunk`). The SDK's own SSE decoder, `Stream`,
event-name filtering (`ping`, `error`) and accumulator run unchanged. No network is used.

Mapping (never repaired): the final message's content blocks in the SDK's order. `text` -> text with
its `citations` as annotations; `thinking` -> reasoning (`signature` as the SDK holds it, the empty
placeholder included); `redacted_thinking` -> redacted_reasoning; `tool_use` / `server_tool_use` /
`mcp_tool_use` -> tool calls (kind function / server / server) whose arguments are `json.dumps(input, ensure_ascii=False)` of
the parsed input the SDK holds; every `*_tool_result` block -> server_tool_result with its `content`.
`stop_reason` / `stop_sequence` -> finish_reason / finish_detail. Library objects (usage, citations,
tool-result content) are written as the SDK's own `to_dict()` does (`exclude_unset=True`): what the
stream set, without fields the SDK's types merely default to null.

An `event: error` makes the SDK raise `APIStatusError` (status 200, the provider's error body); that
exception is reported as the stream's error (`type`, `message` from the SDK's `type` /
`api_message`) with no choices, since the helper exposes no final message then. Every other
exception propagates. What it cannot express: nothing the Anthropic mapping asks for is missing. Note
the SDK emits no completion event for a tool block the stream never stops (cut off), nor for one that
message_start already carries (no content_block_stop comes for it): that is reported as it is (no
event), not filled in.

anthropic-python-bedrock (`AnthropicBedrockAdapter`, manifest transport `bedrock-invoke`): the same helper
and mapping through `AnthropicBedrock(aws_access_key=..., aws_secret_key=..., aws_region="us-east-1")`, the
SDK's client for Claude on Amazon Bedrock (its `bedrock` extra brings boto3 and botocore). The client
rewrites the request to `POST /model/{model}/invoke-with-response-stream`, signs it with SigV4 through
botocore (dummy credentials), and reads the answer with its `AWSEventStreamDecoder`
(`anthropic/lib/bedrock/_stream_decoder.py`: botocore's `EventStreamBuffer` and bedrock-runtime
`ResponseStream` shape, each `chunk` message's `bytes` decoded and routed by the event's `type`; an
exception message becomes an `error` event, raised like a first-party one). The mock transport answers
with a 200 `application/vnd.amazon.eventstream` body, `request.sse`: the fixture's events as the
harness's bedrock-invoke transport frames them (CONTRACT.md 2), one event-stream message per network read.
"""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

import anthropic
import httpx2

from deltacheck.adapter import Adapter, manifest_name
from deltacheck.model import AssemblyRequest

from ..replay import Replay

BASE_URL = "http://deltacheck.invalid"
API_KEY = "sk-ant-deltacheck-dummy"
MODEL = "claude-sonnet-4-6"
# The API runs server_tool_use and mcp_tool_use calls itself (CONTRACT 3.1). The non-beta accumulator keeps an
# mcp_tool_use block as it started (`accumulate_event` appends every content_block_start), but feeds
# input_json_delta only to the blocks in TRACKS_TOOL_INPUT (ToolUseBlock, ServerToolUseBlock): its input stays
# the start's {}.
TOOL_KINDS = {"tool_use": "function", "server_tool_use": "server", "mcp_tool_use": "server"}


def _serve(replay: Replay, path: str = "/v1/messages", content_type: str = "text/event-stream") -> httpx2.MockTransport:
    """Answer the Messages endpoint (`path`) with the fixture's bytes, one event per network chunk."""
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST" or request.url.path != path:
            return httpx2.Response(404, json={"type": "error", "error": {"type": "not_found_error", "message": "deltacheck"}})
        return httpx2.Response(200, headers={"content-type": content_type}, content=replay.iterate())

    return httpx2.MockTransport(handler)


# How the SDK's objects are written: the SDK's own `to_dict()` form (`exclude_unset`), which holds what
# the API sent and leaves out fields the SDK's types merely default to null.
DUMP_OPTIONS: dict[str, Any] = {"exclude_unset": True}


def _dump(model: Any) -> Any:
    if model is None:
        return None
    if isinstance(model, list):
        return [_dump(m) for m in model]
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", **DUMP_OPTIONS)
    return model


def _arguments(value: Any) -> Any:
    return value if isinstance(value, str) else json.dumps(_dump(value), ensure_ascii=False)


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "a ToolUseBlock's `input` is the SDK's parse of the input JSON; nothing marks an input that was cut off or did not parse"

class AnthropicMessagesAdapter(Adapter):
    name = manifest_name("anthropic-python")
    library = "anthropic"
    version = importlib.metadata.version("anthropic")
    protocols = frozenset({"anthropic-messages"})
    capabilities = frozenset({"finish_detail", "reasoning", "reasoning_signature", "annotations", "server_tools", "finish_reason",
                              "usage", "error", "events"})
    capability_notes = dict(flags=FLAGS_NOTE)
    model = MODEL
    code_path = ("anthropic.Anthropic().messages.stream(...) iterated to the end, then get_final_message(); the "
                 "fixture's SSE bytes are served by httpx2.MockTransport through the httpx2.Client passed as http_client")

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        events: list[dict[str, Any]] = []
        client = self._client(replay)
        try:
            with client.messages.stream(model=self.model, max_tokens=1024,
                                        messages=[{"role": "user", "content": "hi"}]) as stream:
                for event in stream:
                    if event.type == "content_block_stop":
                        block = event.content_block
                        if block.type in TOOL_KINDS:
                            events.append({"type": "tool_call_done", "choice": 0, "id": block.id, "name": block.name,
                                           "arguments": _arguments(block.input), "after_chunk": replay.after_chunk()})
                message = stream.get_final_message()
        except anthropic.APIStatusError as exc:
            if exc.status_code != 200:  # not an error event inside the stream
                raise
            message_text = exc.api_message if isinstance(exc.api_message, str) else exc.message
            return {"choices": [], "usage": None, "error": {"type": exc.type, "message": message_text}, "events": events}
        finally:
            client.close()  # and the httpx2.Client it was given
        parts = [part for block in message.content for part in self._parts(block)]
        return {
            "choices": [{"index": 0, "parts": parts, "finish_reason": message.stop_reason,
                         "finish_detail": message.stop_sequence}],
            "usage": _dump(message.usage),
            "error": None,
            "events": events,
        }

    def _client(self, replay: Replay) -> anthropic.Anthropic:
        """The SDK's client, its own httpx2.Client answered by the replay (a subclass reads another endpoint)."""
        http = httpx2.Client(transport=_serve(replay))
        return anthropic.Anthropic(api_key=API_KEY, base_url=BASE_URL, http_client=http, max_retries=0)

    @staticmethod
    def _parts(block: Any) -> list[dict[str, Any]]:
        kind = block.type
        if kind == "text":
            return [{"type": "text", "text": block.text, "annotations": _dump(block.citations) or []}]
        if kind == "thinking":
            return [{"type": "reasoning", "text": block.thinking, "summary": [], "signature": block.signature}]
        if kind == "redacted_thinking":
            return [{"type": "redacted_reasoning", "data": block.data}]
        if kind in TOOL_KINDS:
            return [{"type": "tool_call", "kind": TOOL_KINDS[kind], "id": block.id, "item_id": None,
                     "name": block.name, "arguments": _arguments(block.input)}]
        if kind.endswith("_tool_result"):
            return [{"type": "server_tool_result", "block_type": kind, "tool_use_id": block.tool_use_id,
                     "content": _dump(block.content)}]
        return []


# Bedrock's own model id (the Bedrock client puts it in the path, not in the body).
BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
# Dummy credentials and region: botocore signs with them, nothing checks the signature.
AWS_CREDENTIALS = {"aws_access_key": "test", "aws_secret_key": "test", "aws_region": "us-east-1"}


class AnthropicBedrockAdapter(AnthropicMessagesAdapter):
    name = manifest_name("anthropic-python-bedrock")
    transport = "bedrock-invoke"
    model = BEDROCK_MODEL
    code_path = ("anthropic.AnthropicBedrock().messages.stream(...) iterated to the end, then get_final_message(); "
                 "the fixture's events as InvokeModelWithResponseStream event-stream messages, served by "
                 "httpx2.MockTransport through the httpx2.Client passed as http_client and read by the client's "
                 "own AWSEventStreamDecoder (botocore)")

    def _client(self, replay: Replay) -> anthropic.Anthropic:
        path = f"/model/{BEDROCK_MODEL}/invoke-with-response-stream"
        http = httpx2.Client(transport=_serve(replay, path, "application/vnd.amazon.eventstream"))
        bedrock = anthropic.AnthropicBedrock(**AWS_CREDENTIALS, base_url=BASE_URL, http_client=http, max_retries=0)
        return bedrock  # type: ignore[return-value]  # the same messages.stream() as Anthropic's
