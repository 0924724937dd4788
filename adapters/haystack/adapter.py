"""haystack-ai's OpenAI chat generators, run with a `streaming_callback`; the result is the final ChatMessage.

Code path: `OpenAIChatGenerator` (Chat Completions) and `OpenAIResponsesChatGenerator` (Responses), each
built with `http_client_kwargs={"transport": httpx.MockTransport(...)}` -- haystack's own way to configure
the HTTP client it hands the openai SDK -- and `.run(messages, streaming_callback=...)`. The transport
answers the one request with the fixture's SSE bytes (`request.sse`, one event per network chunk), so
the openai SDK's SSE parser and haystack's own chunk conversion and assembly
(`_convert_streaming_chunks_to_chat_message`) run end to end. The adapter maps `replies` (one
ChatMessage per choice, its `meta["index"]`) in the order of the message's `_content`.

Mapping (the library's result, nothing more):
- `TextContent` -> text (haystack keeps no annotations; annotations are n/a).
- `ReasoningContent` -> reasoning: `text` = `reasoning_text` (haystack's one reasoning text: for
  Responses it concatenates summary and raw reasoning deltas of every reasoning item), `summary` = []
  (haystack keeps no summaries apart), `signature` = `extra["encrypted_content"]` (Responses: where
  haystack keeps the item's encrypted content to send it back).
- `ToolCall` -> tool_call kind function. Chat: `id` = `ToolCall.id` (haystack's "" when it saw none),
  Responses: `id` = `extra["call_id"]`, `item_id` = `ToolCall.id` (haystack keys Responses calls by item id
  and keeps the call_id in `extra`). `arguments` = json.dumps of haystack's parsed `arguments` dict
  (haystack drops a call whose arguments are not valid JSON, with a warning). Chat: `extra_content` =
  `extra["extra_content"]`, `extra` being ToolCall's dict of provider-specific information; the message's own
  `extra_content` (on its text part) = `meta["extra_content"]`, meta being the message's.
- Chat: finish_reason = `meta["finish_reason"]`, haystack's FinishReason (the provider's value, except
  `function_call` -> `tool_calls`; the last one of the stream); usage = `meta["usage"]` (haystack's
  model_dump of the SDK's usage object).
  Responses: haystack's `meta` is the terminal response's dict (without `output`): finish_reason =
  `meta["status"]`, finish_detail = `meta["incomplete_details"]["reason"]`, usage = `meta["usage"]`,
  error = `meta["error"]` (`code` -> `type`), as haystack keeps them; its normalised
  `meta["finish_reason"]` is not used.
- refusal: an assistant ChatMessage keeps its refusal in `meta["refusal"]` (haystack's own convention:
  `from_openai_dict_format` puts it there, `to_openai_dict_format` sends it back), placed after the
  message's text, before its tool calls. Neither streaming converter fills it, and that is judged.
- error: when the openai SDK raises `APIError` for an error payload in the stream (haystack lets it
  through), the adapter returns choices [] and the body's type (or code) and message.

Cannot express: annotations (TextContent has only text), Responses custom tool calls (ToolCall's
`arguments` is a dict, which cannot hold a custom call's free-text input, and no haystack code path
reads custom_tool_call items), Responses built-in client calls (a ToolCall names a function tool; no
code path reads those items), server tools, tool-call completion events (a StreamingChunk carries
tool-call deltas only; nothing marks a call complete, and the ToolCalls are built after the stream).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import warnings
from typing import Any

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"  # before haystack is imported: no telemetry, no network

import httpx  # noqa: E402
import openai  # noqa: E402
from haystack.components.generators.chat import OpenAIChatGenerator, OpenAIResponsesChatGenerator  # noqa: E402
from haystack.dataclasses import ChatMessage, ReasoningContent, StreamingChunk, TextContent, ToolCall  # noqa: E402
from haystack.tools import Tool  # noqa: E402
from haystack.utils import Secret  # noqa: E402

from deltacheck.adapter import Adapter, manifest_name  # noqa: E402
from deltacheck.model import AssemblyRequest  # noqa: E402

from ..openai_errors import provider_error  # noqa: E402
from ..replay import API_KEY, BASE_URL, Replay  # noqa: E402

LIBRARY = "haystack-ai"
VERSION = importlib.metadata.version(LIBRARY)
EVENTS_NOTE = ("haystack's StreamingChunk carries tool-call deltas only (ToolCallDelta, `start` on a call's first); "
               "nothing marks a call complete, and run() builds the ToolCalls only after the stream has ended")
TOOL = Tool(name="lookup", description="any tool", parameters={"type": "object", "properties": {}},
            function=lambda **kwargs: None)


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "haystack's ToolCall holds parsed arguments only: a call whose text does not parse is dropped with a warning, so no call is ever kept and marked"

class _HaystackAdapter(Adapter):
    library = LIBRARY
    version = VERSION
    generator_class: type
    protocol: str

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        handler = replay.handler(httpx.Response)

        generator = self.generator_class(
            api_key=Secret.from_token(API_KEY), model="gpt-4o", api_base_url=BASE_URL, max_retries=0,
            tools=[TOOL], http_client_kwargs={"transport": httpx.MockTransport(handler)})
        streamed: list[StreamingChunk] = []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pydantic serializer warnings for unknown item types
                replies = generator.run(messages=[ChatMessage.from_user("deltacheck replay")],
                                        streaming_callback=streamed.append)["replies"]
        except openai.APIError as exc:
            error = provider_error(exc)
            if error is None:
                raise
            return {"choices": [], "usage": None, "error": error}
        finally:
            generator.close()
        return self._result(replies)

    def _result(self, replies: list[ChatMessage]) -> dict[str, Any]:
        raise NotImplementedError

    def _parts(self, message: ChatMessage) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for content in message._content:
            if isinstance(content, TextContent):
                parts.append({"type": "text", "text": content.text, "annotations": []})
            elif isinstance(content, ReasoningContent):
                parts.append({"type": "reasoning", "text": content.reasoning_text, "summary": [],
                              "signature": (content.extra or {}).get("encrypted_content")})
            elif isinstance(content, ToolCall):
                parts.append(self._tool_call(content))
            else:
                raise TypeError(f"the adapter has no mapping for haystack content {type(content).__name__}")
        refusal = message.meta.get("refusal")
        if isinstance(refusal, str):  # "" too: the comparator decides what is empty
            calls = [i for i, part in enumerate(parts) if part["type"] == "tool_call"]
            parts.insert(calls[0] if calls else len(parts), {"type": "refusal", "text": refusal})
        return parts

    def _tool_call(self, call: ToolCall) -> dict[str, Any]:
        raise NotImplementedError


class HaystackOpenAIChat(_HaystackAdapter):
    name = manifest_name("haystack-openai-chat")
    protocol = "openai-chat"
    protocols = frozenset({protocol})
    capabilities = frozenset({"refusal", "reasoning", "finish_reason", "usage", "error", "multiple_choices",
                              "extra_content", "message_extra_content"})
    capability_notes = dict(flags=FLAGS_NOTE, events=EVENTS_NOTE)
    generator_class = OpenAIChatGenerator
    code_path = ("haystack OpenAIChatGenerator(http_client_kwargs={'transport': httpx.MockTransport serving "
                 "request.sse}).run(messages, streaming_callback=...), mapped from the returned ChatMessage replies")

    def _result(self, replies: list[ChatMessage]) -> dict[str, Any]:
        choices = [{"index": reply.meta.get("index", 0), "parts": self._with_message_extension(reply),
                    "finish_reason": reply.meta.get("finish_reason"), "finish_detail": None} for reply in replies]
        usage = replies[0].meta.get("usage") if replies else None
        return {"choices": choices, "usage": usage, "error": None}

    def _with_message_extension(self, message: ChatMessage) -> list[dict[str, Any]]:
        """The message's parts, its own `extra_content` (ChatMessage.meta: haystack's provider-specific fields of a
        message) on its text part, one with the text "" when it has none (CONTRACT 3.3)."""
        parts = self._parts(message)
        extension = message.meta.get("extra_content")
        if extension is not None:
            text = next((p for p in parts if p["type"] == "text"), None)
            if text is None:
                text = {"type": "text", "text": "", "annotations": []}
                parts.insert(sum(p["type"] == "reasoning" for p in parts), text)
            text["extra_content"] = extension
        return parts

    def _tool_call(self, call: ToolCall) -> dict[str, Any]:
        part = {"type": "tool_call", "kind": "function", "id": call.id, "item_id": None, "name": call.tool_name,
                "arguments": json.dumps(call.arguments, ensure_ascii=False)}
        extension = (call.extra or {}).get("extra_content")  # ToolCall.extra: haystack's provider-specific fields
        if extension is not None:
            part["extra_content"] = extension
        return part


class HaystackOpenAIResponses(_HaystackAdapter):
    name = manifest_name("haystack-openai-responses")
    protocol = "openai-responses"
    protocols = frozenset({protocol})
    capabilities = frozenset({"finish_detail", "refusal", "reasoning", "reasoning_signature", "item_id", "finish_reason",
                              "usage", "error"})
    capability_notes = dict(flags=FLAGS_NOTE,
        annotations="haystack's TextContent has only text: annotation events are left in chunk meta and the message keeps none",
        custom_tools=("haystack has no custom tool call: ToolCall.arguments is a dict, which cannot hold a custom call's "
                      "free-text input, and neither Responses path (streaming or not) reads custom_tool_call items"),
        builtin_tools=("haystack has no built-in tool call: a ToolCall names one of the caller's function tools (its extra "
                       "keeps only the call_id), and neither Responses path (_convert_response_chunk_to_streaming_chunk, "
                       "_convert_response_to_chat_message) reads apply_patch_call, local_shell_call, shell_call, "
                       "tool_search_call or mcp_approval_request items"),
        events=EVENTS_NOTE)
    generator_class = OpenAIResponsesChatGenerator
    code_path = ("haystack OpenAIResponsesChatGenerator(http_client_kwargs={'transport': httpx.MockTransport "
                 "serving request.sse}).run(messages, streaming_callback=...), mapped from the returned ChatMessage")

    def _result(self, replies: list[ChatMessage]) -> dict[str, Any]:
        (reply,) = replies
        meta = reply.meta
        incomplete = meta.get("incomplete_details")
        error = meta.get("error")
        choice = {"index": 0, "parts": self._parts(reply), "finish_reason": meta.get("status"),
                  "finish_detail": incomplete.get("reason") if isinstance(incomplete, dict) else None}
        return {"choices": [choice], "usage": meta.get("usage"),
                "error": {"type": error.get("code"), "message": error.get("message")} if isinstance(error, dict) else None}

    def _tool_call(self, call: ToolCall) -> dict[str, Any]:
        return {"type": "tool_call", "kind": "function", "id": (call.extra or {}).get("call_id"), "item_id": call.id,
                "name": call.tool_name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}
