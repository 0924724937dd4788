"""litellm adapters: `litellm.completion(..., stream=True)` + `litellm.stream_chunk_builder`, and
`litellm.responses(..., stream=True)`.

Code paths
* litellm-openai: `litellm.completion(model="openai/...", api_base=<fake>, stream=True)`. litellm drives
  the openai SDK, which it hands a legacy `httpx.Client`; respx intercepts that client and serves the
  fixture's SSE bytes (`request.sse`, unchanged, delivered one SSE event per body piece), so the openai
  SDK's SSE decoder and litellm's `CustomStreamWrapper` both run.
  The chunks the wrapper yields are assembled with `litellm.stream_chunk_builder(chunks, messages)`.
* litellm-anthropic: the same for `model="anthropic/..."`; litellm's own Anthropic handler (its
  `HTTPHandler`, an httpx client intercepted by respx) parses the SSE and translates each event into an
  OpenAI-style chunk, which `stream_chunk_builder` assembles.
* litellm-responses: `litellm.responses(model="openai/...", stream=True)`, which for OpenAI forwards the
  Responses stream through litellm's own HTTP handler (respx again) and yields typed events. litellm has
  no Responses accumulator of its own: the only assembled object it hands the caller is the terminal
  event's `response` (response.completed / .incomplete / .failed), so that is what is mapped; built-in
  client calls (apply_patch_call, local_shell_call, a local shell_call, a client tool_search_call,
  mcp_approval_request) are read from its output items as litellm passes them on. The typed
  `response.output_item.done` events litellm yields for function, custom and built-in client calls are
  reported as `events`, with `after_chunk` = the number of SSE events the mock had handed out by then, - 1.

What the result types cannot express (left out of `capabilities`, judged n/a)
* Chat (`ModelResponse`): no text annotations for Chat (the contract defines none), no reasoning
  signature, no item ids, no streaming events (litellm yields deltas only). A call's `extra_content` is
  read from its `provider_specific_fields`, where litellm keeps a tool call's provider fields (Gemini 3's
  thought signature) and stream_chunk_builder merges them across chunks; the message's own `extra_content`
  (on its text part) from the message's `provider_specific_fields`, litellm's place for a message's
  provider fields.
* Anthropic through the OpenAI-shaped `ModelResponse`: usage is litellm's `Usage`
  (prompt_tokens/completion_tokens...), not Anthropic's usage object, so usage is n/a; every other field is
  mapped from what litellm put on the message, including where litellm merges or reorders blocks (one text
  string for all text blocks; parts are emitted in the message's own field order: thinking_blocks, content,
  refusal, tool_calls, function_call, then provider_specific_fields server_tool_calls, web_search_results,
  tool_results). finish_reason is n/a: litellm exposes only its OpenAI-style translation (`end_turn` ->
  `stop`, ...), not Anthropic's own stop_reason, and stop_sequence is not on its message at all.
* Usage: `Usage.model_dump(exclude_none=True)` as litellm hands it over, its own `cost` key (the bill it
  stamps on usage from its cost map) included. litellm fills in a token-count estimate when none streamed;
  that estimate is reported as is.
* Mid-stream errors: litellm raises its own exception (e.g. `MidStreamFallbackError`) whose message is
  decorated and which carries no error type; it is left to propagate (the harness records `error`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from importlib.metadata import version as _dist_version
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map over the network

import httpx  # noqa: E402
import litellm  # noqa: E402
import respx  # noqa: E402

from deltacheck.adapter import Adapter  # noqa: E402
from deltacheck.model import AssemblyRequest  # noqa: E402

litellm.suppress_debug_info = True  # litellm prints "Give Feedback" banners to stdout on errors

FAKE_BASE = "https://deltacheck.invalid"
DUMMY_KEY = "sk-deltacheck-dummy"
MESSAGES = [{"role": "user", "content": "deltacheck replay"}]
LITELLM_VERSION = _dist_version("litellm")


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "litellm keeps a call's arguments as text; no field of its message marks them unparsable"

class _Replay:
    """Serves `request.sse` unchanged, one SSE event at a time, counting the events handed out so far.

    Every event of `deltacheck.protocols.sse.render_sse` ends with a blank line and its JSON has no raw newline, so
    splitting after each `\\n\\n` yields exactly one piece per chunk (plus `[DONE]` for Chat).
    """

    def __init__(self, request: AssemblyRequest) -> None:
        self.chunk_count = len(request.chunks)
        body = request.sse
        self.pieces = [piece + b"\n\n" for piece in body.split(b"\n\n")[:-1]]
        rest = body[sum(len(p) for p in self.pieces):]
        if rest:
            self.pieces.append(rest)
        self.served = 0

    def _stream(self):
        for piece in self.pieces:
            self.served += 1
            yield piece

    @property
    def last_chunk(self) -> int | None:
        """0-based index of the last chunk handed to the library so far."""
        served = min(self.served, self.chunk_count)
        return served - 1 if served else None

    def mock(self) -> respx.MockRouter:
        router = respx.mock(assert_all_called=False, assert_all_mocked=True)
        router.post(url__startswith=FAKE_BASE).mock(side_effect=lambda _request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=self._stream()))
        return router


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _arguments(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value  # None, litellm holding no arguments at all, is "no arguments" to the comparator
    return json.dumps(value, ensure_ascii=False)


def _tool_call_part(call: Any, kind: str = "function") -> dict[str, Any]:
    function = _get(call, "function")
    part = {"type": "tool_call", "kind": kind, "id": _get(call, "id"), "item_id": None,
            "name": _get(function, "name"), "arguments": _arguments(_get(function, "arguments"))}
    # A call's provider fields live in its provider_specific_fields (stream_chunk_builder keeps and merges them)
    extension = (_get(call, "provider_specific_fields") or {}).get("extra_content")
    if extension is not None:
        part["extra_content"] = extension
    return part


def _message_parts(message: Any) -> list[dict[str, Any]]:
    """The parts of one litellm `Message`, in the message's own field order."""
    parts: list[dict[str, Any]] = []
    thinking_blocks = _get(message, "thinking_blocks")
    reasoning_content = _get(message, "reasoning_content")
    if thinking_blocks:
        for block in thinking_blocks:
            if _get(block, "type") == "redacted_thinking":
                parts.append({"type": "redacted_reasoning", "data": _get(block, "data")})
            else:
                parts.append({"type": "reasoning", "text": _get(block, "thinking") or "", "summary": [],
                              "signature": _get(block, "signature")})
    elif reasoning_content is not None:
        parts.append({"type": "reasoning", "text": reasoning_content, "summary": [], "signature": None})
    content = _get(message, "content")
    provider_fields = _get(message, "provider_specific_fields") or {}
    # The message's own provider fields live in its provider_specific_fields, as a call's do
    message_extension = provider_fields.get("extra_content")
    if content or message_extension is not None:  # None or "": "no text" in litellm's OpenAI-shaped message
        citations = provider_fields.get("citations") or []
        annotations = [c for group in citations for c in (group if isinstance(group, list) else [group])]
        text = {"type": "text", "text": content or "", "annotations": annotations}
        if message_extension is not None:
            text["extra_content"] = message_extension
        parts.append(text)
    refusal = _get(message, "refusal")
    if refusal is not None:
        parts.append({"type": "refusal", "text": refusal})
    for call in _get(message, "tool_calls") or []:
        parts.append(_tool_call_part(call))
    function_call = _get(message, "function_call")
    if function_call is not None:
        parts.append({"type": "tool_call", "kind": "function", "id": None, "item_id": None,
                      "name": _get(function_call, "name"), "arguments": _arguments(_get(function_call, "arguments"))})
    provider_fields = _get(message, "provider_specific_fields") or {}
    for call in provider_fields.get("server_tool_calls") or []:
        parts.append(_tool_call_part(call, kind="server"))
    for key in ("web_search_results", "tool_results"):
        for block in provider_fields.get(key) or []:
            parts.append({"type": "server_tool_result", "block_type": _get(block, "type"),
                          "tool_use_id": _get(block, "tool_use_id"), "content": _get(block, "content")})
    return parts


def _chat_usage(response: Any) -> dict[str, Any] | None:
    usage = _get(response, "usage")
    if usage is None:
        return None
    # as litellm hands it over, `cost` included: the comparator judges keys the stream did not carry
    dumped = usage.model_dump(exclude_none=True)
    return dumped


def _complete(model: str, request: AssemblyRequest) -> list[Any]:
    with _Replay(request).mock():
        stream = litellm.completion(model=model, messages=MESSAGES, api_base=FAKE_BASE, api_key=DUMMY_KEY,
                                    stream=True, max_retries=0)
        return list(stream)


def assembled_result(chunks: list[Any], message_parts: Callable[[Any], list[dict[str, Any]]],
                     usage: Callable[[Any], dict[str, Any] | None] = lambda built: None) -> dict[str, Any]:
    """The canonical result of what `litellm.stream_chunk_builder(chunks)` assembles, each choice's message
    read by the provider's `message_parts` (every litellm adapter reads the built response this way)."""
    built = litellm.stream_chunk_builder(chunks, messages=MESSAGES)
    if built is None:  # stream_chunk_builder returns None when the wrapper yielded no chunk
        return {"choices": [], "usage": None, "error": None}
    choices = [{"index": _get(choice, "index"), "parts": message_parts(_get(choice, "message")),
                "finish_reason": _get(choice, "finish_reason"), "finish_detail": None}
               for choice in built.choices]
    return {"choices": choices, "usage": usage(built), "error": None}


class _LitellmCompletion(Adapter):
    model: str
    with_usage: bool

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        usage = _chat_usage if self.with_usage else (lambda built: None)
        return assembled_result(_complete(self.model, request), _message_parts, usage)


class LitellmOpenAIAdapter(_LitellmCompletion):
    name = "litellm-openai"
    library = "litellm"
    version = LITELLM_VERSION
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"refusal", "reasoning", "finish_reason", "usage", "error", "multiple_choices",
                              "extra_content", "message_extra_content"})
    capability_notes = dict(flags=FLAGS_NOTE,
        events='CustomStreamWrapper yields deltas only and stream_chunk_builder returns one ModelResponse: no tool-call completion events')
    code_path = ("litellm.completion(model='openai/...', stream=True) through the openai SDK over a respx-mocked "
                 "httpx client serving the fixture SSE, then litellm.stream_chunk_builder(chunks)")
    model = "openai/gpt-4o"
    with_usage = True


class LitellmAnthropicAdapter(_LitellmCompletion):
    name = "litellm-anthropic"
    library = "litellm"
    version = LITELLM_VERSION
    protocols = frozenset({"anthropic-messages"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "annotations", "server_tools", "error"})
    capability_notes = dict(flags=FLAGS_NOTE,
        events='CustomStreamWrapper yields OpenAI-style deltas only and stream_chunk_builder returns one ModelResponse: no tool-call completion events',
        finish_detail="stop_sequence is not on litellm's OpenAI-shaped message",
        finish_reason=("litellm exposes its OpenAI-style translation of stop_reason (end_turn -> stop); Anthropic's own value "
                       "is kept (provider_specific_fields['stop_reason']) only for refusal and pause_turn"),
        usage="litellm's Usage (prompt_tokens / completion_tokens) replaces Anthropic's usage object")
    code_path = ("litellm.completion(model='anthropic/...', stream=True) through litellm's Anthropic handler over a "
                 "respx-mocked httpx client serving the fixture SSE, then litellm.stream_chunk_builder(chunks)")
    model = "anthropic/claude-sonnet-4-5"
    with_usage = False


def _responses_parts(output: Any) -> list[dict[str, Any]]:
    """The parts of a Responses `output` list, in output order."""
    parts: list[dict[str, Any]] = []
    for item in output or []:
        kind = _get(item, "type")
        if kind == "message":
            for content in _get(item, "content") or []:
                ctype = _get(content, "type")
                if ctype == "output_text":
                    annotations = [a.model_dump(exclude_unset=True) if hasattr(a, "model_dump") else a
                                   for a in _get(content, "annotations") or []]
                    parts.append({"type": "text", "text": _get(content, "text"), "annotations": annotations})
                elif ctype == "refusal":
                    parts.append({"type": "refusal", "text": _get(content, "refusal")})
        elif kind == "reasoning":
            text = "".join(_get(c, "text") or "" for c in _get(item, "content") or []
                           if _get(c, "type") == "reasoning_text")
            summary = [_get(s, "text") for s in _get(item, "summary") or []]
            parts.append({"type": "reasoning", "text": text, "summary": summary,
                          "signature": _get(item, "encrypted_content")})
        elif kind == "function_call":
            parts.append({"type": "tool_call", "kind": "function", "id": _get(item, "call_id"),
                          "item_id": _get(item, "id"), "name": _get(item, "name"),
                          "arguments": _arguments(_get(item, "arguments"))})
        elif kind == "custom_tool_call":
            parts.append({"type": "tool_call", "kind": "custom", "id": _get(item, "call_id"),
                          "item_id": _get(item, "id"), "name": _get(item, "name"),
                          "arguments": _arguments(_get(item, "input"))})
        else:
            parts.extend(_builtin_call(item))
    return parts


def _builtin_call(item: Any) -> list[dict[str, Any]]:
    """A built-in call the client carries out or answers (CONTRACT 3.3 openai-responses rule 7), from the output
    item litellm passes on: apply_patch_call.operation, local_shell_call.action, shell_call.action (its
    environment says whether the API ran it in a container), tool_search_call.arguments (with its execution),
    mcp_approval_request's server_label, name and arguments. Any other item is not one."""
    kind = _get(item, "type")
    if kind == "apply_patch_call":
        payload = _dump(_get(item, "operation"))
    elif kind in ("local_shell_call", "shell_call"):
        environment = _get(item, "environment")
        if environment is not None and _get(environment, "type") != "local":
            return []  # run by the API in a hosted container
        payload = _dump(_get(item, "action"))
    elif kind == "tool_search_call":
        if _get(item, "execution") != "client":
            return []  # executed by the server
        payload = _dump(_get(item, "arguments"))
    elif kind == "mcp_approval_request":
        payload = {key: _get(item, key) for key in ("server_label", "name", "arguments")}
    else:
        return []
    answer = _get(item, "id") if kind == "mcp_approval_request" else _get(item, "call_id")
    return [{"type": "tool_call", "kind": "builtin", "id": answer, "item_id": _get(item, "id"), "name": kind,
             "arguments": _arguments(payload)}]


def _dump(value: Any) -> Any:
    if value is None:
        return None
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_unset=True)
    return value


TERMINAL_EVENTS = {"response.completed", "response.incomplete", "response.failed"}


class LitellmResponsesAdapter(Adapter):
    name = "litellm-responses"
    library = "litellm"
    version = LITELLM_VERSION
    protocols = frozenset({"openai-responses"})
    capabilities = frozenset({"finish_detail", "refusal", "reasoning", "reasoning_signature", "annotations", "item_id", "custom_tools",
                              "builtin_tools", "finish_reason", "usage", "error", "events"})
    capability_notes = dict(flags=FLAGS_NOTE)
    code_path = ("litellm.responses(model='openai/...', stream=True) over a respx-mocked httpx client serving the "
                 "fixture SSE; the terminal event's response (litellm has no Responses accumulator) is mapped")

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        terminal = None
        events: list[dict[str, Any]] = []
        replay = _Replay(request)
        with replay.mock():
            stream = litellm.responses(model="openai/gpt-4o", input="deltacheck replay", api_base=FAKE_BASE,
                                       api_key=DUMMY_KEY, stream=True, max_retries=0)
            for event in stream:
                kind = _get(event, "type")
                kind = getattr(kind, "value", kind)
                if kind in TERMINAL_EVENTS:
                    terminal = event
                elif kind == "response.output_item.done":
                    for call in _responses_parts([_get(event, "item")]):
                        if call["type"] == "tool_call":
                            events.append({"type": "tool_call_done", "choice": 0, "id": call["id"],
                                           "name": call["name"], "arguments": call["arguments"],
                                           "after_chunk": replay.last_chunk})
        if terminal is None:  # the stream ended without a terminal event: litellm handed over no response
            return {"choices": [], "usage": None, "error": None, "events": events}
        response = _get(terminal, "response")
        details = _get(response, "incomplete_details")
        error = _get(response, "error")
        usage = _dump(_get(response, "usage"))
        # as litellm hands it over, its own `cost` key included (the comparator judges a key the
        # stream did not carry, CONTRACT 4; an adapter never edits the library's output)
        return {
            "choices": [{"index": 0, "parts": _responses_parts(_get(response, "output")),
                         "finish_reason": _get(response, "status"), "finish_detail": _get(details, "reason")}],
            "usage": usage,
            "error": None if error is None else {"type": _get(error, "code"), "message": _get(error, "message")},
            "events": events,
        }
