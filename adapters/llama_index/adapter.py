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
  `function.name`, `function.arguments` as text as is (a dict -> json.dumps; None, no argument text, stays null),
  `extra_content` from the entry's untyped extra fields (`model_extra`: the entry is the openai SDK's
  `ChoiceDeltaToolCall` of the call's first fragment, which `update_tool_calls` keeps and updates). The
  message's own `extra_content` (on its text part) = `message.additional_kwargs["extra_content"]`, llama-index's
  dict of a message's provider-specific fields.
- refusal = `ChatResponse.additional_kwargs["refusal"]` (see Responses: the same result type keeps a
  refusal there), after the text. The Chat Completions code never fills it, and that is judged.
- usage: the last ChatResponse's `additional_kwargs` token counts (`prompt_tokens`, `completion_tokens`,
  `total_tokens`: llama-index copies these three keys of the chunk's usage, under the provider's own
  names, and keeps nothing else of it); null when it holds none.
- error: when the openai SDK raises `APIError` for an error payload in the stream (llama-index lets it
  through), the adapter returns choices [] and the body's type (or code) and message.
- Cannot express: finish_reason (no field for it; `raw` is only the last chunk, passed through as the
  SDK parsed it), annotations, several choices (llama-index reads `choices[0]` of every chunk whatever its index), events (each
  ChatResponse holds every call as accumulated so far, from its first fragment on; nothing marks a
  call complete).

Responses (`OpenAIResponses.stream_chat(messages, tools=[...])`): llama-index yields one ChatResponse per
event whose `message.blocks` hold only that event's blocks; the one for `response.completed` re-parses the
terminal response's `output` (`_parse_response_output`). Mapped from the last ChatResponse:
- `TextBlock` -> text; `ThinkingBlock` -> reasoning, `text` = its `content` (llama-index joins reasoning
  text and summary texts with "\\n"), `summary` = [] (not kept apart), `signature` =
  `additional_information["encrypted_content"]`; `ToolCallBlock` -> tool_call kind function, `id` =
  `tool_call_id` (the call_id), `arguments` = `tool_kwargs` text as is (a dict -> json.dumps).
- refusal = `ChatResponse.additional_kwargs["refusal"]`, where llama-index's Responses output parser
  keeps a refusal (after the text; it keeps no position). Only the non-streaming path fills it, and that
  is judged.
- built-in client calls (apply_patch_call, local_shell_call, a local shell_call, a client tool_search_call,
  mcp_approval_request) = the entries of that type in `ChatResponse.additional_kwargs["built_in_tool_calls"]`,
  llama-index's list of built-in tool calls, after the blocks (it keeps no position). Its streaming path
  puts only file and web search completion events there, and that is judged.
- custom tool calls: the request declares a custom tool (`{"type": "custom", "name": ...}`, passed
  through to the API as is) for each custom_tool_call name in the stream, and a ToolCallBlock named
  after one is a custom call (`tool_kwargs` holds text). llama-index reads no custom_tool_call item, so
  such a call is lost, and that is judged.
- usage = the cumulative `ChatResponse.additional_kwargs["usage"]` (the SDK's ResponseUsage, written out
  with its own `to_dict()`); error as for Chat (`APIError` for an error event); a `response.failed` is
  not surfaced by llama-index, so error stays null then.
- events: llama-index yields a ChatResponse holding one ToolCallBlock when a call's
  `response.function_call_arguments.done` arrives (it marks the call "completed"): each such block is a
  `tool_call_done`, after_chunk the last chunk the SDK had pulled. The ChatResponse for
  `response.completed` re-parses the whole terminal output: it is the result, not a completion event.
- Cannot express: finish_reason and finish_detail (no field for them; `raw` is only the last event,
  passed through as the SDK parsed it), annotations (one message-level list in `additional_kwargs`,
  which does not say which text part each belongs to), item ids (ToolCallBlock has none), server tools.
"""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

import httpx
import openai
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, TextBlock, ThinkingBlock, ToolCallBlock
from llama_index.llms.openai import OpenAI, OpenAIResponses
from openai.types.responses import ResponseCompletedEvent

from deltacheck.adapter import Adapter, manifest_name
from deltacheck.model import AssemblyRequest

from ..openai_builtin_calls import builtin_call
from ..openai_errors import provider_error
from ..replay import API_KEY, BASE_URL, Replay

LIBRARY = "llama-index-llms-openai"
VERSION = importlib.metadata.version(LIBRARY)
PROMPT = [ChatMessage(role="user", content="deltacheck replay")]
SCHEMA = {"type": "object", "properties": {}}
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")  # what llama-index keeps of a chunk's usage


def _arguments(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value  # None, no argument text, is "no arguments" to the comparator (CONTRACT 4)
    return json.dumps(value, ensure_ascii=False)


def _refusal(response: ChatResponse) -> str | None:
    """The refusal llama-index keeps on a ChatResponse (its Responses output parser writes it there)."""
    refusal = response.additional_kwargs.get("refusal")
    return refusal if isinstance(refusal, str) else None  # "" too: the comparator decides what is empty


def _custom_tool_names(chunks: list[Any]) -> set[str]:
    """The names of the Responses custom tool calls in the stream (the tools a real request declared)."""
    names = set()
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        response = chunk.get("response")
        output = response.get("output") if isinstance(response, dict) else None
        for item in [chunk.get("item"), *(output if isinstance(output, list) else [])]:
            if isinstance(item, dict) and item.get("type") == "custom_tool_call" and isinstance(item.get("name"), str):
                names.add(item["name"])
    return names


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "llama-index keeps a call's argument text (additional_kwargs tool calls, ToolCallBlock.tool_kwargs); no field marks it unparsable"

class _LlamaIndexAdapter(Adapter):
    library = LIBRARY
    version = VERSION
    protocol: str

    def _llm(self, http_client: httpx.Client) -> Any:
        raise NotImplementedError

    def _tools(self, request: AssemblyRequest) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _events(self, response: ChatResponse, replay: Replay) -> list[dict[str, Any]]:
        """The tool-call completion events one yielded ChatResponse is (none where llama-index has none)."""
        return []

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        handler = replay.handler(httpx.Response)

        http_client = httpx.Client(transport=httpx.MockTransport(handler))
        last: ChatResponse | None = None
        events: list[dict[str, Any]] = []
        try:
            for response in self._llm(http_client).stream_chat(PROMPT, tools=self._tools(request)):
                events.extend(self._events(response, replay))
                last = response
        except openai.APIError as exc:
            error = provider_error(exc)
            if error is None:
                raise
            return self._with_events({"choices": [], "usage": None, "error": error}, events)
        finally:
            http_client.close()
        if last is None:
            return self._with_events({"choices": [], "usage": None, "error": None}, events)
        return self._with_events(self._result(last, request), events)

    def _with_events(self, result: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
        return {**result, "events": events} if "events" in self.capabilities else result

    def _result(self, last: ChatResponse, request: AssemblyRequest) -> dict[str, Any]:
        raise NotImplementedError


class LlamaIndexOpenAIChat(_LlamaIndexAdapter):
    name = manifest_name("llama-index-openai-chat")
    protocol = "openai-chat"
    protocols = frozenset({protocol})
    capabilities = frozenset({"refusal", "reasoning", "usage", "error", "extra_content", "message_extra_content"})
    capability_notes = dict(flags=FLAGS_NOTE,
        events=("stream_chat yields cumulative ChatResponses that hold every call as accumulated so far, from its first "
                "fragment on; nothing marks a call complete"),
        finish_reason="the ChatResponse has no finish_reason field; `raw` is only the last chunk, passed through as the SDK parsed it",
        multiple_choices='llama-index reads choices[0] of every chunk whatever its index')
    code_path = ("llama_index.llms.openai.OpenAI(http_client=httpx.Client(MockTransport serving request.sse))"
                 ".stream_chat(messages, tools=...), mapped from the last ChatResponse's message and token counts")

    def _llm(self, http_client: httpx.Client) -> Any:
        return OpenAI(model="gpt-4o", api_key=API_KEY, api_base=BASE_URL, http_client=http_client, max_retries=0)

    def _tools(self, request: AssemblyRequest) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": "lookup", "description": "any tool", "parameters": SCHEMA}}]

    def _result(self, last: ChatResponse, request: AssemblyRequest) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in last.message.blocks:
            if isinstance(block, ThinkingBlock):
                parts.append({"type": "reasoning", "text": block.content or "", "summary": [], "signature": None})
            elif isinstance(block, TextBlock):
                if block.text is not None:
                    parts.append({"type": "text", "text": block.text, "annotations": []})
            elif isinstance(block, ToolCallBlock):
                continue  # the same calls as additional_kwargs["tool_calls"], mapped below
            else:
                raise TypeError(f"the adapter has no mapping for llama-index block {type(block).__name__}")
        extension = last.message.additional_kwargs.get("extra_content")  # the message's own provider fields
        if extension is not None:
            text = next((p for p in parts if p["type"] == "text"), None)
            if text is None:  # the message's text part is there to carry it (CONTRACT 3.3), after any reasoning
                text = {"type": "text", "text": "", "annotations": []}
                parts.append(text)
            text["extra_content"] = extension
        for item in last.additional_kwargs.get("built_in_tool_calls") or []:
            parts.extend(builtin_call(item))
        if (refusal := _refusal(last)) is not None:
            parts.append({"type": "refusal", "text": refusal})
        for call in last.message.additional_kwargs.get("tool_calls") or []:
            function = call.function
            part = {"type": "tool_call", "kind": "function", "id": call.id, "item_id": None,
                    "name": function.name if function else None,
                    "arguments": _arguments(function.arguments if function else None)}
            extension = (getattr(call, "model_extra", None) or {}).get("extra_content")
            if extension is not None:  # an untyped extra field of the SDK's delta object llama-index keeps
                part["extra_content"] = extension
            parts.append(part)
        counts = {key: last.additional_kwargs[key] for key in USAGE_KEYS if key in last.additional_kwargs}
        choice = {"index": 0, "parts": parts, "finish_reason": None, "finish_detail": None}
        return {"choices": [choice], "usage": counts or None, "error": None}


class LlamaIndexOpenAIResponses(_LlamaIndexAdapter):
    name = manifest_name("llama-index-openai-responses")
    protocol = "openai-responses"
    protocols = frozenset({protocol})
    capabilities = frozenset({"refusal", "reasoning", "reasoning_signature", "custom_tools", "builtin_tools", "usage", "error",
                              "events"})
    capability_notes = dict(flags=FLAGS_NOTE,
        annotations=("llama-index keeps annotations as one message-level list (additional_kwargs['annotations']), "
                     "which does not say which text part each belongs to"),
        finish_detail="the ChatResponse has no field for incomplete_details; `raw` is only the last event, passed through as the SDK parsed it",
        finish_reason="the ChatResponse has no field for the response status; `raw` is only the last event, passed through as the SDK parsed it",
        item_id='ToolCallBlock has no item id, only tool_call_id (the call_id)')
    code_path = ("llama_index.llms.openai.OpenAIResponses(http_client=httpx.Client(MockTransport serving "
                 "request.sse)).stream_chat(messages, tools=...), mapped from the last ChatResponse, with the "
                 "ToolCallBlocks it yields as each call's arguments complete as events")

    def _llm(self, http_client: httpx.Client) -> Any:
        return OpenAIResponses(model="gpt-4o", api_key=API_KEY, api_base=BASE_URL, http_client=http_client,
                               max_retries=0)

    def _tools(self, request: AssemblyRequest) -> list[dict[str, Any]]:
        custom = [{"type": "custom", "name": name} for name in sorted(_custom_tool_names(request.chunks))]
        return [{"type": "function", "name": "lookup", "description": "any tool", "parameters": SCHEMA}, *custom]

    def _events(self, response: ChatResponse, replay: Replay) -> list[dict[str, Any]]:
        if isinstance(response.raw, ResponseCompletedEvent):
            return []  # the terminal output re-parsed: the result, not a completion
        return [{"type": "tool_call_done", "choice": 0, "id": block.tool_call_id, "name": block.tool_name,
                 "arguments": _arguments(block.tool_kwargs), "after_chunk": replay.after_chunk()}
                for block in response.message.blocks if isinstance(block, ToolCallBlock)]

    def _result(self, last: ChatResponse, request: AssemblyRequest) -> dict[str, Any]:
        custom = _custom_tool_names(request.chunks)
        parts: list[dict[str, Any]] = []
        for block in last.message.blocks:
            if isinstance(block, TextBlock):
                parts.append({"type": "text", "text": block.text, "annotations": []})
            elif isinstance(block, ThinkingBlock):
                parts.append({"type": "reasoning", "text": block.content or "", "summary": [],
                              "signature": (block.additional_information or {}).get("encrypted_content")})
            elif isinstance(block, ToolCallBlock):
                parts.append({"type": "tool_call", "kind": "custom" if block.tool_name in custom else "function",
                              "id": block.tool_call_id, "item_id": None, "name": block.tool_name,
                              "arguments": _arguments(block.tool_kwargs)})
            else:
                raise TypeError(f"the adapter has no mapping for llama-index block {type(block).__name__}")
        if (refusal := _refusal(last)) is not None:
            texts = [i for i, part in enumerate(parts) if part["type"] == "text"]
            parts.insert(texts[-1] + 1 if texts else len(parts), {"type": "refusal", "text": refusal})
        usage = last.additional_kwargs.get("usage")
        if usage is not None and hasattr(usage, "to_dict"):
            usage = usage.to_dict()
        choice = {"index": 0, "parts": parts, "finish_reason": None, "finish_detail": None}
        return {"choices": [choice], "usage": usage, "error": None}
