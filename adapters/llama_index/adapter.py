"""llama-index-llms-openai streaming: `OpenAI(...).stream_chat` and `OpenAIResponses(...).stream_chat`.

Code path: the llama-index LLM is built with `http_client=httpx.Client(transport=httpx.MockTransport(...))`
(llama-index-llms-openai pins openai<3, which is built on httpx); the transport answers the one request
with the fixture's SSE bytes (`request.sse`, one event per network chunk), so the openai SDK's SSE parser
and llama-index's own accumulation run end to end. The result is the last `ChatResponse` the stream
yields, as a llama-index consumer (its agents included) takes it.

Chat Completions (`OpenAI.stream_chat(messages, tools=[...])`), mapped from the last ChatResponse's message:
- `ThinkingBlock` -> reasoning (`content`), `TextBlock` -> text when its text is not empty (llama-index
  always keeps one TextBlock, "" when the stream sent no content), then one tool_call per entry of
  `message.additional_kwargs["tool_calls"]` (llama-index's own accumulation, `update_tool_calls`): `id`,
  `function.name`, `function.arguments` as text as is (a dict -> json.dumps; None, no argument text, stays null).
- error: when the openai SDK raises `APIError` for an error payload in the stream (llama-index lets it
  through), the adapter returns choices [] and the body's type (or code) and message.
- Cannot express: finish_reason and usage (the ChatResponse carries only normalised token counts and
  the last raw chunk), refusal (no refusal block; refusals are dropped), annotations, several choices
  (llama-index reads `choices[0]` of every chunk whatever its index), events.

Responses (`OpenAIResponses.stream_chat(messages, tools=[...])`): llama-index yields one ChatResponse per
event whose `message.blocks` hold only that event's blocks; the one for `response.completed` re-parses the
terminal response's `output` (`_parse_response_output`). Mapped from the last ChatResponse:
- `TextBlock` -> text; `ThinkingBlock` -> reasoning, `text` = its `content` (llama-index joins reasoning
  text and summary texts with "\\n"), `summary` = [] (not kept apart), `signature` =
  `additional_information["encrypted_content"]`; `ToolCallBlock` -> tool_call kind function, `id` =
  `tool_call_id` (the call_id), `arguments` = `tool_kwargs` text as is (a dict -> json.dumps).
- usage = the cumulative `ChatResponse.additional_kwargs["usage"]` (the SDK's ResponseUsage, written out
  with its own `to_dict()`); error as for Chat (`APIError` for an error event); a `response.failed` is
  not surfaced by llama-index, so error stays null then.
- Cannot express: finish_reason (not kept), refusal (kept only on the non-streaming path), annotations
  (one message-level list in `additional_kwargs`, not per text part), item ids (ToolCallBlock has none),
  custom and server tool calls, events.
"""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

import httpx
import openai
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, TextBlock, ThinkingBlock, ToolCallBlock
from llama_index.llms.openai import OpenAI, OpenAIResponses

from deltacheck.adapters.openai_errors import provider_error
from deltacheck.adapters.replay import API_KEY, BASE_URL, Replay
from deltacheck.adapter import Adapter, manifest_name, protocol_notes
from deltacheck.model import AssemblyRequest

LIBRARY = "llama-index-llms-openai"
VERSION = importlib.metadata.version(LIBRARY)
PROMPT = [ChatMessage(role="user", content="deltacheck replay")]
SCHEMA = {"type": "object", "properties": {}}


def _arguments(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value  # None, no argument text, is "no arguments" to the comparator (CONTRACT 4)
    return json.dumps(value, ensure_ascii=False)


class _LlamaIndexAdapter(Adapter):
    library = LIBRARY
    version = VERSION
    protocol: str
    tools: list[dict[str, Any]]

    def _llm(self, http_client: httpx.Client) -> Any:
        raise NotImplementedError

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        handler = replay.handler(httpx.Response)

        http_client = httpx.Client(transport=httpx.MockTransport(handler))
        last: ChatResponse | None = None
        try:
            for response in self._llm(http_client).stream_chat(PROMPT, tools=self.tools):
                last = response
        except openai.APIError as exc:
            error = provider_error(exc)
            if error is None:
                raise
            return {"choices": [], "usage": None, "error": error}
        finally:
            http_client.close()
        if last is None:
            return {"choices": [], "usage": None, "error": None}
        return self._result(last)

    def _result(self, last: ChatResponse) -> dict[str, Any]:
        raise NotImplementedError


class LlamaIndexOpenAIChat(_LlamaIndexAdapter):
    name = manifest_name("llama-index-openai-chat")
    protocol = "openai-chat"
    protocols = frozenset({protocol})
    capabilities = frozenset({"reasoning", "error"})
    capability_notes = protocol_notes('openai-chat', capabilities,
        events='stream_chat yields cumulative ChatResponses with no tool-call completion event',
        finish_reason='the ChatResponse keeps no finish_reason, only the last raw chunk and normalised token counts',
        multiple_choices='llama-index reads choices[0] of every chunk whatever its index',
        refusal='llama-index has no refusal block: refusal deltas are dropped',
        usage="the ChatResponse carries only llama-index's normalised token counts, not the provider's usage object")
    tools = [{"type": "function", "function": {"name": "lookup", "description": "any tool", "parameters": SCHEMA}}]
    code_path = ("llama_index.llms.openai.OpenAI(http_client=httpx.Client(MockTransport serving request.sse))"
                 ".stream_chat(messages, tools=...), mapped from the last ChatResponse's message")

    def _llm(self, http_client: httpx.Client) -> Any:
        return OpenAI(model="gpt-4o", api_key=API_KEY, api_base=BASE_URL, http_client=http_client, max_retries=0)

    def _result(self, last: ChatResponse) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in last.message.blocks:
            if isinstance(block, ThinkingBlock):
                parts.append({"type": "reasoning", "text": block.content or "", "summary": [], "signature": None})
            elif isinstance(block, TextBlock):
                if block.text:
                    parts.append({"type": "text", "text": block.text, "annotations": []})
            elif isinstance(block, ToolCallBlock):
                continue  # the same calls as additional_kwargs["tool_calls"], mapped below
            else:
                raise TypeError(f"the adapter has no mapping for llama-index block {type(block).__name__}")
        for call in last.message.additional_kwargs.get("tool_calls") or []:
            function = call.function
            parts.append({"type": "tool_call", "kind": "function", "id": call.id, "item_id": None,
                          "name": function.name if function else None,
                          "arguments": _arguments(function.arguments if function else None)})
        choice = {"index": 0, "parts": parts, "finish_reason": None, "finish_detail": None}
        return {"choices": [choice], "usage": None, "error": None}


class LlamaIndexOpenAIResponses(_LlamaIndexAdapter):
    name = manifest_name("llama-index-openai-responses")
    protocol = "openai-responses"
    protocols = frozenset({protocol})
    capabilities = frozenset({"reasoning", "reasoning_signature", "usage", "error"})
    capability_notes = protocol_notes('openai-responses', capabilities,
        annotations='annotations are one message-level list in additional_kwargs, not attached to text parts',
        custom_tools="llama-index's response parsing has no block for custom tool calls",
        events='stream_chat yields ChatResponses with no tool-call completion event',
        finish_detail='the streamed ChatResponses keep no incomplete_details',
        finish_reason='the streamed ChatResponses keep no response status',
        item_id='ToolCallBlock has no item id, only tool_call_id (the call_id)',
        refusal='refusal is kept only on the non-streaming path; streamed refusal deltas are dropped')
    tools = [{"type": "function", "name": "lookup", "description": "any tool", "parameters": SCHEMA}]
    code_path = ("llama_index.llms.openai.OpenAIResponses(http_client=httpx.Client(MockTransport serving "
                 "request.sse)).stream_chat(messages, tools=...), mapped from the last ChatResponse")

    def _llm(self, http_client: httpx.Client) -> Any:
        return OpenAIResponses(model="gpt-4o", api_key=API_KEY, api_base=BASE_URL, http_client=http_client,
                               max_retries=0)

    def _result(self, last: ChatResponse) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in last.message.blocks:
            if isinstance(block, TextBlock):
                parts.append({"type": "text", "text": block.text, "annotations": []})
            elif isinstance(block, ThinkingBlock):
                parts.append({"type": "reasoning", "text": block.content or "", "summary": [],
                              "signature": (block.additional_information or {}).get("encrypted_content")})
            elif isinstance(block, ToolCallBlock):
                parts.append({"type": "tool_call", "kind": "function", "id": block.tool_call_id, "item_id": None,
                              "name": block.tool_name, "arguments": _arguments(block.tool_kwargs)})
            else:
                raise TypeError(f"the adapter has no mapping for llama-index block {type(block).__name__}")
        usage = last.additional_kwargs.get("usage")
        if usage is not None and hasattr(usage, "to_dict"):
            usage = usage.to_dict()
        choice = {"index": 0, "parts": parts, "finish_reason": None, "finish_detail": None}
        return {"choices": [choice], "usage": usage, "error": None}
