"""pydantic-ai (pydantic-ai-slim) streaming, driven through `pydantic_ai.direct.model_request_stream`.

Code path: a real `OpenAIChatModel`, `OpenAIResponsesModel`, `AnthropicModel` or `GoogleModel`, each on its
provider (`OpenAIProvider(openai_client=AsyncOpenAI(...))`, `AnthropicProvider(anthropic_client=AsyncAnthropic(...))`,
`GoogleProvider(api_key=..., http_client=...)`, whose google-genai `Client` streams `generate_content_stream`)
whose SDK client has an `httpx2.AsyncClient` with an `httpx2.MockTransport` (openai 3.x, anthropic 2.x and
google-genai are built on httpx2, so respx, which patches httpx, does not apply). The transport answers the one request
with the fixture's SSE bytes (`request.sse`), one event per network chunk, so the SDK's own SSE parser and
pydantic-ai's own stream mapping run end to end. The result is the `ModelResponse` of the stream's
`get()` after the stream is exhausted; `events` are pydantic-ai's `PartEndEvent`s for `ToolCallPart`s.

Mapping (the library's result, nothing more):
- `TextPart` -> text; annotations = `provider_details['annotations']` (OpenAI, with the model setting
  `openai_include_raw_annotations`) or `provider_details['citations']` (Anthropic), else [].
- `ThinkingPart` -> reasoning (`content`, `signature`); Anthropic's `ThinkingPart(id='redacted_thinking')`,
  pydantic-ai's form of a redacted_thinking block, -> redacted_reasoning with `data` = its signature.
  Responses: pydantic-ai splits one reasoning item into one ThinkingPart per summary, all with the item
  id, and joins them back into one item when it sends history; the adapter follows that rule: consecutive
  ThinkingParts with one id are one reasoning part, `summary` = their non-empty contents, `text` = their
  `provider_details['raw_content']` joined, `signature` = the signature (encrypted_content).
- `ToolCallPart` -> tool_call kind function; `id` = `tool_call_id` (pydantic-ai invents `pyd_ai_...` when
  the stream had none), `item_id` = the part's `id` (Responses item id), `arguments` = `args` as text, or
  json.dumps of a dict; `args=None` (pydantic-ai's "no arguments") is passed on as null, which
  CONTRACT 4 compares as no arguments. Chat: `extra_content` = `provider_details['extra_content']`, where
  pydantic-ai keeps a streamed call's `extra_content` (`map_tool_call_provider_details`). The message's own
  `extra_content` (Chat's delta field outside the calls) goes on the text part, from the TextPart's
  `provider_details['extra_content']`, else the response's.
- A refusal is not a part in pydantic-ai: it is kept as text in `ModelResponse.provider_details['refusal']`.
  Its position is lost, so the adapter puts the refusal part after text and reasoning, before tool calls
  (the Chat Completions canonical order).
- finish_reason = `provider_details['finish_reason']`, the raw provider value pydantic-ai keeps next to
  its normalised `finish_reason` (Chat: the last raw finish_reason; Responses: the status, or the
  incomplete reason for an incomplete response; Anthropic: stop_reason). finish_detail is always null:
  pydantic-ai keeps neither Anthropic's stop_sequence nor Responses' incomplete_details separately.
- error: pydantic-ai raises `ModelAPIError` (`ModelHTTPError`) with the provider's error body; the adapter
  returns choices [] and the body's type/code and message. Other exceptions propagate.

Gemini (`GoogleModel`, its own requirements file: pydantic-ai's google extra pins google-genai below 3):
pydantic-ai's `GeminiStreamedResponse` assembles the stream (`_map_chunk` / `_map_part`: text runs join into one
TextPart through the parts manager, thoughts into the latest ThinkingPart, each functionCall part is a new
ToolCallPart). Each part keeps a Gemini `thoughtSignature` as `provider_details['thought_signature']` (re-encoded
from the bytes google-genai decoded, standard base64), which is the canonical `signature` of text, reasoning and
tool-call parts. finish_reason = `provider_details['finish_reason']` (the raw finishReason), or for a blocked
prompt `provider_details['block_reason']` (the promptFeedback.blockReason, which the contract maps to the
finish reason). An error chunk: google-genai raises `APIError`, pydantic-ai `ModelHTTPError` whose body is the
chunk; type = its `error.status`, else `error.code`. FilePart (inline data) and native tool parts carry nothing
the canonical result holds for Gemini.

Cannot express: usage (normalised into `RequestUsage`, the provider's object is not kept), several choices
(`ModelResponse` is one message; pydantic-ai reads `choices[0]` (Gemini: `candidates[0]`) of every chunk whatever
its index), Gemini's finishMessage (not kept),
Responses custom tool calls (not supported by pydantic-ai: dropped with a warning), Responses built-in
client calls (see `builtin_tools` in the notes: no such native tools, or pydantic-ai's own args shape), server tools
(`NativeToolCallPart`/`NativeToolReturnPart` carry pydantic-ai's tool kind, not the provider's block
type, so they are not mapped).
"""

from __future__ import annotations

import importlib.metadata
import json
import warnings
from typing import Any

import httpx2
from pydantic_ai import ModelRequest
from pydantic_ai.direct import model_request_stream
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import (
    FilePart,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    PartEndEvent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolSearchCallPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from deltacheck.adapter import Adapter, manifest_name
from deltacheck.model import AssemblyRequest

from ..replay import API_KEY, BASE_URL, Replay

LIBRARY = "pydantic-ai-slim"
VERSION = importlib.metadata.version(LIBRARY)
PROMPT = [ModelRequest.user_text_prompt("deltacheck replay")]
TOOLS = ModelRequestParameters(function_tools=[ToolDefinition(
    name="lookup", description="any tool", parameters_json_schema={"type": "object", "properties": {}})])
GOOGLE_BASE_URL = BASE_URL.removesuffix("/v1")
COMMON = frozenset({"reasoning", "reasoning_signature", "refusal", "annotations", "finish_reason", "error", "events"})


def _client_tool_search_ids(chunks: list[Any]) -> frozenset[str]:
    """The call ids of the client-executed Responses tool_search_call items in the stream: pydantic-ai turns each
    into a call of its own local `search_tools` function tool (a plain ToolCallPart while streaming), which is
    that built-in call in pydantic-ai's terms, not a function call the stream made."""
    ids = set()
    for chunk in chunks:
        items = [chunk.get("item"), *((chunk.get("response") or {}).get("output") or [])] if isinstance(chunk, dict) else []
        for item in items:
            if isinstance(item, dict) and item.get("type") == "tool_search_call" and item.get("execution") == "client":
                ids.add(item.get("call_id") or item.get("id"))
    return frozenset(i for i in ids if isinstance(i, str))


def _arguments(args: Any) -> str | None:
    if args is None or isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False)


def _provider_error(exc: ModelAPIError) -> dict[str, Any] | None:
    """The provider's error, when pydantic-ai's exception carries the provider's error body."""
    body = exc.body
    if not isinstance(body, dict):
        return None
    inner = body["error"] if isinstance(body.get("error"), dict) else body
    message = inner.get("message")
    if not isinstance(message, str):
        return None
    return {"type": exc.provider_error_type if exc.provider_error_type is not None else exc.provider_error_code, "message": message}


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "a ToolCallPart keeps `args` as received; pydantic-ai validates them only when it runs the tool, and marks nothing on the part"

class _PydanticAIAdapter(Adapter):
    library = LIBRARY
    version = VERSION
    protocol: str
    # Where a TextPart's provider_details keep the provider's own citation objects for this protocol.
    annotations_key = "annotations"
    # Imported when the adapter is made (the driver's `start`), not at module import: a driver
    # serves one adapter, and the other provider's SDK would add about a second to its start-up.
    provider_modules: tuple[str, ...] = ()

    def __init__(self) -> None:
        for module in self.provider_modules:
            importlib.import_module(module)

    def _model(self, http_client: httpx2.AsyncClient) -> Any:
        raise NotImplementedError

    def _open(self, handler: Any) -> tuple[Any, httpx2.AsyncClient | None]:
        """This fixture's model, its HTTP client answering with `handler`, and the client to close after it."""
        http_client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
        return self._model(http_client), http_client

    def _settings(self) -> dict[str, Any]:
        return {}

    def _error(self, exc: ModelAPIError) -> dict[str, Any] | None:
        return _provider_error(exc)

    def _signature(self, part: Any) -> dict[str, Any]:
        """A part's canonical `signature` field, in protocols whose text and tool-call parts carry one."""
        return {}

    async def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        handler = replay.handler(httpx2.Response, asynchronous=True)
        builtin = _client_tool_search_ids(request.chunks)

        model, http_client = self._open(handler)
        events: list[dict[str, Any]] = []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "not yet implemented" item warnings go to stderr otherwise
                async with model_request_stream(model, PROMPT, model_settings=self._settings(),
                                                model_request_parameters=TOOLS) as stream:
                    async for event in stream:
                        if (isinstance(event, PartEndEvent) and type(event.part) is ToolCallPart
                                and event.part.tool_call_id not in builtin):
                            part = event.part
                            events.append({"type": "tool_call_done", "choice": 0, "id": part.tool_call_id,
                                           "name": part.tool_name, "arguments": _arguments(part.args),
                                           "after_chunk": replay.after_chunk()})
                    response = stream.get()
        except ModelAPIError as exc:
            error = self._error(exc)
            if error is None:
                raise
            return {"choices": [], "usage": None, "error": error, "events": events}
        finally:
            if http_client is not None:
                await http_client.aclose()
        return {"choices": [self._choice(response, builtin)], "usage": None, "error": None, "events": events}

    def _choice(self, response: ModelResponse, builtin: frozenset[str] = frozenset()) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        details = response.provider_details or {}
        thinking_group: list[ThinkingPart] = []

        def flush_thinking() -> None:
            if thinking_group:
                parts.append(self._reasoning(thinking_group))
                thinking_group.clear()

        for part in response.parts:
            if isinstance(part, ThinkingPart) and self.protocol == "openai-responses":
                if thinking_group and thinking_group[0].id != part.id:
                    flush_thinking()
                thinking_group.append(part)
                continue
            flush_thinking()
            if isinstance(part, ThinkingPart):
                redacted = self._redacted_reasoning(part)
                if redacted is not None:
                    parts.append(redacted)
                else:
                    signature = self._signature(part).get("signature", part.signature)
                    parts.append({"type": "reasoning", "text": part.content, "summary": [], "signature": signature})
            elif isinstance(part, TextPart):
                pd = part.provider_details or {}
                annotations = pd.get(self.annotations_key) or []
                parts.append({"type": "text", "text": part.content, "annotations": list(annotations),
                              **self._signature(part)})
            elif type(part) is ToolCallPart and part.tool_call_id in builtin:
                continue  # pydantic-ai's own search_tools call for a client tool_search_call: see builtin_tools
            elif type(part) is ToolCallPart:
                call = {"type": "tool_call", "kind": "function", "id": part.tool_call_id, "item_id": part.id,
                        "name": part.tool_name, "arguments": _arguments(part.args), **self._signature(part)}
                extension = (part.provider_details or {}).get("extra_content")
                if self.protocol == "openai-chat" and extension is not None:
                    call["extra_content"] = extension
                parts.append(call)
            elif isinstance(part, (NativeToolCallPart, NativeToolReturnPart)):
                continue  # server tools: not expressible (module docstring)
            elif isinstance(part, ToolSearchCallPart):
                continue  # a client tool search, typed: pydantic-ai's own args shape (builtin_tools)
            elif isinstance(part, FilePart) and self.protocol == "gemini":
                continue  # Gemini inline data: nothing the canonical result holds
            else:
                raise TypeError(f"the adapter has no mapping for pydantic-ai part {type(part).__name__}")
        flush_thinking()
        if self.protocol == "openai-chat":
            self._add_message_extension(parts, response, details)
        refusal = details.get("refusal") if "refusal" in self.capabilities else None
        if isinstance(refusal, str):
            at = next((i for i, p in enumerate(parts) if p["type"] == "tool_call"), len(parts))
            parts.insert(at, {"type": "refusal", "text": refusal})
        return {"index": 0, "parts": parts, "finish_reason": self._finish_reason(details), "finish_detail": None}

    def _finish_reason(self, details: dict[str, Any]) -> Any:
        return details.get("finish_reason")

    def _redacted_reasoning(self, part: ThinkingPart) -> dict[str, Any] | None:
        """A ThinkingPart that is pydantic-ai's form of a redacted reasoning block, as that part; else None."""
        if self.protocol == "anthropic-messages" and part.id == "redacted_thinking":
            return {"type": "redacted_reasoning", "data": part.signature}
        return None

    @staticmethod
    def _add_message_extension(parts: list[dict[str, Any]], response: ModelResponse, details: dict[str, Any]) -> None:
        """Chat: the message's own `extra_content`, on its text part, from where pydantic-ai would keep it: the
        TextPart's provider_details, else the response's (where it keeps the message's refusal and finish_reason)."""
        text_parts = [p for p in response.parts if isinstance(p, TextPart)]
        extension = next((e for p in text_parts if (e := (p.provider_details or {}).get("extra_content")) is not None),
                         details.get("extra_content"))
        if extension is None:
            return
        text = next((p for p in parts if p["type"] == "text"), None)
        if text is None:  # the message's text part is there to carry it (CONTRACT 3.3), after any reasoning
            text = {"type": "text", "text": "", "annotations": []}
            parts.insert(sum(p["type"] == "reasoning" for p in parts), text)
        text["extra_content"] = extension

    @staticmethod
    def _reasoning(group: list[ThinkingPart]) -> dict[str, Any]:
        raw = [text for p in group for text in ((p.provider_details or {}).get("raw_content") or [])]
        signature = next((p.signature for p in group if p.signature is not None), None)
        return {"type": "reasoning", "text": "".join(raw), "summary": [p.content for p in group if p.content],
                "signature": signature}


class _OpenAIAdapter(_PydanticAIAdapter):
    provider_modules = ("openai", "pydantic_ai.models.openai", "pydantic_ai.providers.openai")
    model_class_name: str  # in pydantic_ai.models.openai

    def _model(self, http_client: httpx2.AsyncClient) -> Any:
        from openai import AsyncOpenAI
        from pydantic_ai.models import openai as models
        from pydantic_ai.providers.openai import OpenAIProvider

        client = AsyncOpenAI(api_key=API_KEY, base_url=BASE_URL, http_client=http_client, max_retries=0)
        return getattr(models, self.model_class_name)("gpt-4o", provider=OpenAIProvider(openai_client=client))

    def _settings(self) -> dict[str, Any]:
        return {"openai_include_raw_annotations": True}


class PydanticAIOpenAIChat(_OpenAIAdapter):
    name = manifest_name("pydantic-ai-openai-chat")
    protocol = "openai-chat"
    protocols = frozenset({protocol})
    capabilities = COMMON | {"extra_content", "message_extra_content"}
    capability_notes = dict(flags=FLAGS_NOTE,
        multiple_choices='ModelResponse is one message; pydantic-ai reads choices[0] of every chunk whatever its index',
        usage="usage is normalised into pydantic-ai's RequestUsage; the provider's usage object is not kept")
    model_class_name = "OpenAIChatModel"
    code_path = ("pydantic_ai.direct.model_request_stream on OpenAIChatModel(OpenAIProvider(AsyncOpenAI(httpx2 "
                 "MockTransport serving request.sse))), mapped from the stream's final ModelResponse")


class PydanticAIOpenAIResponses(_OpenAIAdapter):
    name = manifest_name("pydantic-ai-openai-responses")
    protocol = "openai-responses"
    protocols = frozenset({protocol})
    capabilities = COMMON | {"item_id"}
    capability_notes = dict(flags=FLAGS_NOTE,
        custom_tools=("pydantic-ai has no custom (freeform) tool: a request cannot declare one, and its Responses stream "
                      "handler drops a custom_tool_call item with a 'not yet implemented' warning"),
        builtin_tools=("pydantic-ai has no apply_patch, local_shell or shell native tool and sends MCPServerTool with "
                       "require_approval='never', and its Responses stream handler drops those item types with a 'not yet "
                       "implemented' warning; a client-executed tool_search_call becomes its own ToolSearchCallPart, whose "
                       "args are pydantic-ai's cross-provider {queries} shape (normalize_tool_search_args), not the item's "
                       "arguments"),
        finish_detail="pydantic-ai keeps no incomplete_details apart (provider_details['finish_reason'] holds the incomplete reason in place of the status)",
        usage="usage is normalised into pydantic-ai's RequestUsage; the provider's usage object is not kept")
    model_class_name = "OpenAIResponsesModel"
    code_path = ("pydantic_ai.direct.model_request_stream on OpenAIResponsesModel(OpenAIProvider(AsyncOpenAI(httpx2 "
                 "MockTransport serving request.sse))), mapped from the stream's final ModelResponse")


class PydanticAIAnthropic(_PydanticAIAdapter):
    name = manifest_name("pydantic-ai-anthropic")
    protocol = "anthropic-messages"
    protocols = frozenset({protocol})
    provider_modules = ("anthropic", "pydantic_ai.models.anthropic", "pydantic_ai.providers.anthropic")
    annotations_key = "citations"
    capabilities = COMMON - {"refusal"}
    capability_notes = dict(flags=FLAGS_NOTE,
        finish_detail='pydantic-ai keeps no stop_sequence',
        server_tools="NativeToolCallPart / NativeToolReturnPart carry pydantic-ai's tool kind, not the provider's block type",
        usage="usage is normalised into pydantic-ai's RequestUsage; the provider's usage object is not kept")
    code_path = ("pydantic_ai.direct.model_request_stream on AnthropicModel(AnthropicProvider(AsyncAnthropic(httpx2 "
                 "MockTransport serving request.sse))), mapped from the stream's final ModelResponse")

    def _model(self, http_client: httpx2.AsyncClient) -> Any:
        from anthropic import AsyncAnthropic
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        client = AsyncAnthropic(api_key=API_KEY, base_url=BASE_URL.removesuffix("/v1"), http_client=http_client,
                                max_retries=0)
        return AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client))


class PydanticAIGoogle(_PydanticAIAdapter):
    name = manifest_name("pydantic-ai-google")
    protocol = "gemini"
    protocols = frozenset({protocol})
    provider_modules = ("google.genai", "pydantic_ai.models.google", "pydantic_ai.providers.google")
    capabilities = frozenset({"reasoning", "reasoning_signature", "finish_reason", "error", "events"})
    capability_notes = dict(flags=FLAGS_NOTE,
        finish_detail="pydantic-ai keeps no finishMessage (only a blocked prompt's blockReasonMessage)",
        multiple_choices="ModelResponse is one message; GeminiStreamedResponse reads candidates[0] of every chunk",
        usage="usage is normalised into pydantic-ai's RequestUsage; the provider's usageMetadata is not kept")
    code_path = ("pydantic_ai.direct.model_request_stream on GoogleModel(GoogleProvider(api_key, http_client=httpx2 "
                 "AsyncClient with a MockTransport serving request.sse)), mapped from the stream's final ModelResponse")

    def __init__(self) -> None:
        super().__init__()
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        # One model for every fixture, as an application keeps one: building google-genai's Client loads two
        # SSL contexts (about 0.3 s), which would otherwise be timed with every stream. Its transport answers
        # with the current fixture's handler.
        self._handler: Any = None
        http_client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda request: self._handler(request)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the mock client's default 5 s timeout: nothing is waited for
            provider = GoogleProvider(api_key=API_KEY, http_client=http_client, base_url=GOOGLE_BASE_URL)
        self._google_model = GoogleModel("gemini-2.5-flash", provider=provider)

    def _open(self, handler: Any) -> tuple[Any, httpx2.AsyncClient | None]:
        self._handler = handler
        return self._google_model, None

    def _signature(self, part: Any) -> dict[str, Any]:
        signature = (part.provider_details or {}).get("thought_signature")
        return {"signature": signature} if signature is not None else {}

    def _finish_reason(self, details: dict[str, Any]) -> Any:
        return details.get("finish_reason", details.get("block_reason"))

    def _error(self, exc: ModelAPIError) -> dict[str, Any] | None:
        """Gemini's error chunk as pydantic-ai keeps it (the body): type = its `status`, else its `code`."""
        body = exc.body
        inner = body.get("error") if isinstance(body, dict) else None
        if not isinstance(inner, dict) or not isinstance(inner.get("message"), str):
            return None
        return {"type": inner.get("status") or inner.get("code"), "message": inner["message"]}
