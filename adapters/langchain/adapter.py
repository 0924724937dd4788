"""LangChain chat models (langchain-openai, langchain-anthropic), streamed and merged with `+`.

Code paths. Every adapter builds the real chat model, calls its public `.stream(messages)` and sums
the yielded `AIMessageChunk`s with `+` (langchain-core's documented merge, `add_ai_message_chunks`);
the summed chunk is the result that is mapped. The bytes get in through the real SDK client and its
own SSE parser: openai 3.x and anthropic 2.x are both built on httpx2, so the fixture's SSE is
served by an `httpx2.MockTransport` (respx patches httpx 0.x, which neither SDK uses any more).

* `langchain-openai-chat`: `ChatOpenAI(http_client=httpx2.Client(transport=MockTransport))`
  `.stream(...)`, the Chat Completions path (`client.chat.completions.create(stream=True)`).
* `langchain-openai-responses`: the same with `use_responses_api=True` (`client.responses.create`),
  default `output_version` (content is a list of Responses-style blocks).
* `langchain-anthropic`: `ChatAnthropic(...).bind_tools([...]).stream(...)`. ChatAnthropic has no
  `http_client` parameter; its `_client` (a `functools.cached_property`) is pre-filled with an
  `anthropic.Client` built from the model's own `_client_params` plus an httpx2 client over the mock
  transport, so `messages.with_raw_response.create(stream=True)` and anthropic's SSE decoder run
  unchanged. A tool is bound because without tools (or thinking) in the request ChatAnthropic
  coerces content to one string and throws the block structure away; an application that expects
  tool calls binds tools. No `betas` are set, so the default (non-beta) `client.messages` path and
  anthropic's non-beta event types are used (with `betas` ChatAnthropic switches to
  `client.beta.messages`, whose typed events behave differently, e.g. for `context_management`).

Tool calls. The merged chunk carries two views: `tool_call_chunks` (per call: the concatenated raw
`args` text, `id`, `name`, `index`, merged by langchain-core) and `tool_calls` / `invalid_tool_calls`
(derived from `tool_call_chunks` at construction by `parse_partial_json`, which closes truncated
JSON and moves what it cannot parse to `invalid_tool_calls`). The adapters report what a LangChain
user reads, `tool_calls` (arguments serialised with `json.dumps`) or, for a call whose text does
not parse, its `invalid_tool_calls` entry with the raw text, flagged (CONTRACT 3.3: LangChain's own
mark that the call is not executable); each derived from its own chunk entry,
so the calls stay in the library's order. `parse_partial_json`'s repair of a truncated or
concatenated argument text is the library's behaviour and is judged as such.
For Responses the ordered `content` blocks are mapped instead (`function_call` blocks carry the same
concatenated `arguments` plus the item `id`, and keep their place among text and reasoning);
`custom_tool_call` blocks carry the raw `input`; the blocks langchain-openai keeps for built-in client
calls (the item dumped whole: `apply_patch_call`, `tool_search_call`, `mcp_approval_request`, and
`local_shell_call` / `shell_call` should one reach the message) are mapped as kind builtin. For Anthropic, content blocks give the order;
a `tool_use` block's arguments come from the `tool_call_chunks` entry with the block's index;
a `server_tool_use` or `mcp_tool_use` block has no tool-call chunk, so its arguments follow the library's own
reading of the block (it re-sends `partial_json` parsed when `input` is `{}`, else `input`).

What the result type cannot express (left out of capabilities, judged n/a):
* usage everywhere: `usage_metadata` is LangChain's own summed shape, not the provider's object, and
  the provider's raw usage is not kept in `response_metadata` on any streaming path;
* events: `.stream()` yields message chunks only, no tool-call completion events;
* multiple choices: ChatOpenAI reads `choices[0]` of every chunk and has one message.
Refusal IS declared for the Chat path although its streaming converter drops `delta.refusal`: the
message type carries it (`additional_kwargs["refusal"]`, filled by the non-streaming path), so a lost
refusal is the library's behaviour, not a missing field. Chat `reasoning` is declared for the same
reason: the message type carries Chat Completions reasoning as `additional_kwargs["reasoning_content"]`
(langchain-core reads it there for its `reasoning` content block, and the LangChain integrations for
servers that stream `reasoning_content` fill it), but ChatOpenAI's Chat converter
(`_convert_delta_to_message_chunk`) copies only content, function_call and tool_calls from a delta
(its documentation: `reasoning_content` is "not extracted"), so the reasoning is lost, and that is
judged. The message's own Chat `extra_content` (Gemini's delta field outside the calls) is declared on the
same ground: `additional_kwargs` is where the message type keeps a message's provider fields, and the
converter does not copy it there. Likewise Responses `reasoning` is declared
(summaries and `encrypted_content` are kept) although `reasoning_text` deltas are not: such a part's
text is the library's, i.e. empty. A legacy `function_call` without any `arguments` is reported with
arguments "" (langchain keeps no parsed view of it).

Errors. When the SDK raises its APIError for a provider error (the body is the provider's error
object: OpenAI `{"error": ...}` chunk / nested Responses `error` event, Anthropic `event: error`), the
result keeps the chunks `.stream()` had already yielded, merged, and sets `error` from the exception
body. Anything else propagates, including the bare `ValueError(str)` langchain-openai raises for a
flat Responses `error` event or `response.failed` (no structured type to report).
"""

from __future__ import annotations

import importlib
import json
from importlib.metadata import requires as _dist_requires
from importlib.metadata import version as _dist_version
from typing import Any

import httpx2
from langchain_core.messages import AIMessageChunk, HumanMessage

from deltacheck.adapter import Adapter
from deltacheck.model import AssemblyRequest

from .merging import call_part, merge_stream

_FAKE_KEY = "sk-deltacheck-dummy"
_MESSAGES = [HumanMessage(content="deltacheck")]


def _transport(request: AssemblyRequest) -> httpx2.MockTransport:
    body = request.sse

    def handler(_http_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx2.MockTransport(handler)


def _openai_http_client(request: AssemblyRequest) -> Any:
    """The HTTP client ChatOpenAI hands to openai-python, over a mock transport serving the fixture: an
    httpx2.Client for an openai that takes one (3.x is built on httpx2, late 2.x offers it as an extra); an
    httpx.Client for the older releases, which take nothing else (`deltacheck history` installs them with
    older langchain-openai releases)."""
    if any(requirement.startswith("httpx2") for requirement in _dist_requires("openai") or ()):
        return httpx2.Client(transport=_transport(request))
    import httpx

    body = request.sse
    return httpx.Client(
        transport=httpx.MockTransport(
            lambda _request: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
        )
    )



def _openai_provider_error(exc: BaseException) -> dict | None:
    import openai

    # langchain-openai re-raises SDK errors as subclasses of the SDK's classes (or the original).
    if not isinstance(exc, openai.APIError):
        return None
    body = exc.body
    if not isinstance(body, dict) or not isinstance(body.get("message"), str):
        return None
    etype = body.get("type") if body.get("type") is not None else body.get("code")
    return {"type": etype, "message": body["message"]}


def _anthropic_provider_error(exc: BaseException) -> dict | None:
    import anthropic

    if not isinstance(exc, anthropic.APIStatusError):
        return None
    body = exc.body
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict) or not isinstance(err.get("message"), str):
        return None
    return {"type": err.get("type"), "message": err["message"]}


def _tool_calls_from_chunks(merged: AIMessageChunk) -> list[dict[str, Any]]:
    """The calls a user reads (`tool_calls`, or `invalid_tool_calls` when the text does not parse), in order.

    langchain-core derives each entry from one merged `tool_call_chunks` entry
    (AIMessageChunk.init_tool_calls); deriving them one by one keeps them in that order.
    """
    parts = []
    for tcc in merged.tool_call_chunks:
        parts.append(call_part(tcc))
    return parts


class _LangChainAdapter(Adapter):
    """Shared driving code; subclasses say how to build the model and map the merged chunk."""

    # Imported when the adapter is made (the driver's `start`), not at module import: a driver
    # serves one adapter, and the other provider's SDK would add about a second to its start-up.
    provider_modules: tuple[str, ...] = ()

    def __init__(self) -> None:
        for module in self.provider_modules:
            importlib.import_module(module)

    def _model(self, request: AssemblyRequest) -> Any:
        raise NotImplementedError

    def _provider_error(self, exc: BaseException) -> dict | None:
        raise NotImplementedError

    def _choice(self, merged: AIMessageChunk) -> dict[str, Any]:
        raise NotImplementedError

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        model = self._model(request)
        merged, error = merge_stream(model.stream(_MESSAGES), self._provider_error)
        choices = [] if merged is None else [self._choice(merged)]
        return {"choices": choices, "usage": None, "error": error}


class LangChainOpenAIChat(_LangChainAdapter):
    name = "langchain-openai-chat"
    provider_modules = ("openai", "langchain_openai")
    library = "langchain-openai"
    version = _dist_version("langchain-openai")
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"refusal", "reasoning", "finish_reason", "error", "flags", "message_extra_content"})
    capability_notes = dict(
        events='.stream() yields AIMessageChunks only, with no tool-call completion events',
        extra_content=("_convert_delta_to_message_chunk builds each ToolCallChunk from function.name, function.arguments, "
                       "id and index only, and ToolCall/ToolCallChunk (langchain_core.messages.tool) have no field for "
                       "a call's provider extension"),
        multiple_choices='ChatOpenAI reads choices[0] of every chunk and yields one message',
        usage="usage_metadata is LangChain's own summed token counts; the provider's usage object is not kept in response_metadata when streaming")
    code_path = ("langchain_openai.ChatOpenAI(http_client=httpx2.Client(transport=MockTransport)).stream() on the "
                 "Chat Completions path, the yielded AIMessageChunks summed with +; the fixture SSE goes through "
                 "openai-python's own stream parser")

    def _model(self, request: AssemblyRequest) -> Any:
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model="gpt-4o", api_key=_FAKE_KEY, base_url="http://deltacheck.invalid/v1",
                          http_client=_openai_http_client(request), max_retries=0,
                          stream_usage=True)

    def _provider_error(self, exc: BaseException) -> dict | None:
        return _openai_provider_error(exc)

    def _choice(self, merged: AIMessageChunk) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        reasoning = merged.additional_kwargs.get("reasoning_content")
        if isinstance(reasoning, str):  # "" too, as every text below: the comparator omits an empty part
            parts.append({"type": "reasoning", "text": reasoning, "summary": [], "signature": None})
        content = merged.content
        if isinstance(content, str):
            if content is not None:
                parts.append({"type": "text", "text": content, "annotations": []})
        else:
            for block in content:
                text = block if isinstance(block, str) else block.get("text") if block.get("type") == "text" else None
                if text is not None:
                    parts.append({"type": "text", "text": text, "annotations": []})
        # The message's own extra_content, from additional_kwargs, where the message type keeps its provider fields
        extension = merged.additional_kwargs.get("extra_content")
        if extension is not None:
            text_part = next((p for p in parts if p["type"] == "text"), None)
            if text_part is None:  # the message's text part is there to carry it (CONTRACT 3.3)
                text_part = {"type": "text", "text": "", "annotations": []}
                parts.append(text_part)
            text_part["extra_content"] = extension
        refusal = merged.additional_kwargs.get("refusal")
        if refusal is not None:
            parts.append({"type": "refusal", "text": refusal})
        parts.extend(_tool_calls_from_chunks(merged))
        function_call = merged.additional_kwargs.get("function_call")
        if function_call:
            args = function_call.get("arguments")
            if args is not None and not isinstance(args, str):  # None, no arguments, stays None (CONTRACT 4)
                args = json.dumps(args, ensure_ascii=False)
            parts.append({"type": "tool_call", "kind": "function", "id": None, "item_id": None,
                          "name": function_call.get("name"), "arguments": args})
        return {"index": 0, "parts": parts, "finish_reason": merged.response_metadata.get("finish_reason"),
                "finish_detail": None}


class LangChainOpenAIResponses(_LangChainAdapter):
    name = "langchain-openai-responses"
    provider_modules = ("openai", "langchain_openai")
    library = "langchain-openai"
    version = _dist_version("langchain-openai")
    protocols = frozenset({"openai-responses"})
    capabilities = frozenset({"finish_detail", "refusal", "reasoning", "reasoning_signature", "annotations", "item_id",
                              "custom_tools", "builtin_tools", "finish_reason", "error", "flags"})
    capability_notes = dict(
        events='.stream() yields AIMessageChunks only, with no tool-call completion events',
        usage="usage_metadata is LangChain's own summed token counts; the provider's usage object is not kept in response_metadata when streaming")
    code_path = ("langchain_openai.ChatOpenAI(use_responses_api=True, http_client=httpx2.Client(transport="
                 "MockTransport)).stream(), the yielded AIMessageChunks summed with +; the fixture SSE goes through "
                 "openai-python's own Responses stream parser")

    def _model(self, request: AssemblyRequest) -> Any:
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model="gpt-4o", api_key=_FAKE_KEY, base_url="http://deltacheck.invalid/v1",
                          http_client=_openai_http_client(request), max_retries=0,
                          use_responses_api=True)

    def _provider_error(self, exc: BaseException) -> dict | None:
        return _openai_provider_error(exc)

    def _choice(self, merged: AIMessageChunk) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        invalid = {call.get("id") for call in merged.invalid_tool_calls}
        content = merged.content
        blocks = [content] if isinstance(content, str) else content
        for block in blocks:
            if isinstance(block, str):
                parts.append({"type": "text", "text": block, "annotations": []})
                continue
            btype = block.get("type")
            if btype == "text":
                parts.append({"type": "text", "text": block.get("text", ""),
                              "annotations": list(block.get("annotations") or [])})
            elif btype == "refusal":
                parts.append({"type": "refusal", "text": block.get("refusal", "")})
            elif btype == "reasoning":
                texts = [c.get("text", "") for c in block.get("content") or []
                         if isinstance(c, dict) and c.get("type") == "reasoning_text"]
                parts.append({"type": "reasoning", "text": "".join(texts),
                              "summary": [s.get("text", "") for s in block.get("summary") or []],
                              "signature": block.get("encrypted_content")})
            elif btype == "function_call":
                part = {"type": "tool_call", "kind": "function", "id": block.get("call_id"),
                        "item_id": block.get("id"), "name": block.get("name"), "arguments": block.get("arguments")}
                if block.get("call_id") in invalid:
                    part["flagged"] = True  # the message lists this call among its invalid_tool_calls
                parts.append(part)
            elif btype == "custom_tool_call":
                parts.append({"type": "tool_call", "kind": "custom", "id": block.get("call_id"),
                              "item_id": block.get("id"), "name": block.get("name"),
                              "arguments": block.get("input")})
            else:
                parts.extend(_builtin_call(block))
        meta = merged.response_metadata
        details = meta.get("incomplete_details")
        return {"index": 0, "parts": parts, "finish_reason": meta.get("status"),
                "finish_detail": details.get("reason") if isinstance(details, dict) else None}


def _builtin_call(block: dict[str, Any]) -> list[dict[str, Any]]:
    """A built-in call the client carries out or answers (CONTRACT 3.3 openai-responses rule 7), from the content
    block langchain-openai keeps for its output item (the item's model_dump): apply_patch_call.operation,
    local_shell_call.action, shell_call.action (unless its environment is a hosted container),
    tool_search_call.arguments (when executed by the client), mcp_approval_request's server_label, name and
    arguments. Any other block is not one."""
    kind = block.get("type")
    if kind == "apply_patch_call":
        payload = block.get("operation")
    elif kind in ("local_shell_call", "shell_call"):
        environment = block.get("environment")
        if isinstance(environment, dict) and environment.get("type") != "local":
            return []  # run by the API in a hosted container
        payload = block.get("action")
    elif kind == "tool_search_call":
        if block.get("execution") != "client":
            return []  # executed by the server
        payload = block.get("arguments")
    elif kind == "mcp_approval_request":
        payload = {key: block.get(key) for key in ("server_label", "name", "arguments")}
    else:
        return []
    answer = block.get("id") if kind == "mcp_approval_request" else block.get("call_id")
    return [{"type": "tool_call", "kind": "builtin", "id": answer, "item_id": block.get("id"), "name": kind,
             "arguments": None if payload is None else json.dumps(payload, ensure_ascii=False)}]


_BOUND_TOOL = {"name": "lookup", "description": "Look something up.",
               "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}


class LangChainAnthropic(_LangChainAdapter):
    name = "langchain-anthropic"
    provider_modules = ("anthropic", "langchain_anthropic")
    library = "langchain-anthropic"
    version = _dist_version("langchain-anthropic")
    protocols = frozenset({"anthropic-messages"})
    capabilities = frozenset({"finish_detail", "reasoning", "reasoning_signature", "annotations", "server_tools",
                              "finish_reason", "error", "flags"})
    capability_notes = dict(
        events='.stream() yields AIMessageChunks only, with no tool-call completion events',
        usage="usage_metadata is LangChain's own summed token counts; the provider's usage object is not kept in response_metadata when streaming")
    code_path = ("langchain_anthropic.ChatAnthropic(...).bind_tools([...]).stream(), the yielded AIMessageChunks "
                 "summed with +; its SDK client is an anthropic.Client over httpx2.MockTransport so anthropic-python's "
                 "own SSE decoder reads the fixture")

    def _model(self, request: AssemblyRequest) -> Any:
        import anthropic
        from langchain_anthropic import ChatAnthropic

        llm = ChatAnthropic(model="claude-sonnet-4-5", api_key=_FAKE_KEY,
                            base_url="http://deltacheck.invalid", max_retries=0)
        params = dict(llm._client_params)
        params["http_client"] = httpx2.Client(transport=_transport(request), base_url=params["base_url"])
        # Fill ChatAnthropic's cached `_client` property with the same client it would build, over the mock.
        llm.__dict__["_client"] = anthropic.Client(**params)
        return llm.bind_tools([_BOUND_TOOL])

    def _provider_error(self, exc: BaseException) -> dict | None:
        return _anthropic_provider_error(exc)

    def _choice(self, merged: AIMessageChunk) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        content = merged.content
        blocks = [content] if isinstance(content, str) and content else content if isinstance(content, list) else []
        args_by_index = {}
        for part, tcc in zip(_tool_calls_from_chunks(merged), merged.tool_call_chunks):
            args_by_index.setdefault(tcc.get("index"), part["arguments"])
        for block in blocks:
            if isinstance(block, str):
                parts.append({"type": "text", "text": block, "annotations": []})
                continue
            btype = block.get("type", "")
            if btype == "text":
                parts.append({"type": "text", "text": block.get("text", ""),
                              "annotations": list(block.get("citations") or [])})
            elif btype == "thinking":
                parts.append({"type": "reasoning", "text": block.get("thinking", ""), "summary": [],
                              "signature": block.get("signature")})
            elif btype == "redacted_thinking":
                parts.append({"type": "redacted_reasoning", "data": block.get("data")})
            elif btype == "tool_use":
                index = block.get("index")
                if index in args_by_index:
                    args = args_by_index[index]
                else:
                    args = json.dumps(block.get("input"), ensure_ascii=False)
                parts.append({"type": "tool_call", "kind": "function", "id": block.get("id"), "item_id": None,
                              "name": block.get("name"), "arguments": args})
            elif btype in ("server_tool_use", "mcp_tool_use"):  # calls the API runs itself (CONTRACT 3.1)
                tool_input = block.get("input")
                if tool_input == {} and block.get("partial_json"):
                    args = block["partial_json"]
                else:
                    args = json.dumps(tool_input, ensure_ascii=False)
                parts.append({"type": "tool_call", "kind": "server", "id": block.get("id"), "item_id": None,
                              "name": block.get("name"), "arguments": args})
            elif btype.endswith("_tool_result"):
                parts.append({"type": "server_tool_result", "block_type": btype,
                              "tool_use_id": block.get("tool_use_id"), "content": block.get("content")})
        meta = merged.response_metadata
        return {"index": 0, "parts": parts, "finish_reason": meta.get("stop_reason"),
                "finish_detail": meta.get("stop_sequence")}
