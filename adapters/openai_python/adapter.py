"""openai-python's streaming helpers, driven end to end through the SDK's own HTTP client.

Code paths:

* `openai-python-chat`: `OpenAI().chat.completions.stream(...)` (the `ChatCompletionStream` context
  manager), iterated to the end, then `get_final_completion()`. The helper's
  `tool_calls.function.arguments.done` events become `tool_call_done` events.
* `openai-python-responses`: `OpenAI().responses.stream(...)` (the `ResponseStream` context manager),
  iterated to the end, then `get_final_response()`. The helper's `response.output_item.done` events
  for function, custom and built-in client tool calls become `tool_call_done` events. The helper relays these from
  the wire as typed events; it synthesises none of its own for tool calls.

How the bytes get in: the fixture's SSE rendering (`request.sse`, byte for byte) is the body of a
200 `text/event-stream` response served by respx to a plain `httpx.Client` passed as `http_client`.
openai 3.x is built on `httpx2`, which respx does not patch, but it still accepts a legacy
`httpx.Client`; openai 2.x is httpx-based. The body is handed over one SSE event per network chunk,
so the index of the last chunk the SDK had pulled when it emitted an event is known (`after_chunk`).
The SDK's own SSE decoder, `Stream` and stream helpers run unchanged. No network is used.

One class serves both pinned versions (requirements.txt: openai 3.x; requirements-2.txt: the newest
openai 2.x); `version` is read from the installed distribution, and the manifest name arrives in
`DELTACHECK_ADAPTER_NAME` (e.g. `openai-python-chat@2`).

Mapping (never repaired): each choice's message as the SDK returns it. Chat: reasoning parts come
from the SDK's untyped extra fields `reasoning_content` / `reasoning` (one part per field the SDK
kept, in that order); text from `content`; refusal from `refusal`; tool calls from `tool_calls` in the
SDK's list order (a call's `extra_content`, and the message's own on its text part, from their untyped extra fields,
`model_extra`), then a legacy
`function_call`. Empty strings give no part (the canonical Chat
form). Library objects (usage, Responses annotations) are written as the SDK's own `to_dict()` does
(`model_dump(mode="json", exclude_unset=True)`): what the stream set, without fields the SDK's
types merely default to null (see DUMP_OPTIONS). A tool call whose arguments the SDK holds
as None is reported with None, which the comparator reads as no arguments (CONTRACT 4). Responses: the output items of the final response as the SDK returns them, in its order; a built-in call
the client carries out or answers (`apply_patch_call`, `local_shell_call`, a local `shell_call`, a
client-executed `tool_search_call`, `mcp_approval_request`) is read from the SDK's typed item.

What it cannot express: Chat annotations (no canonical Chat annotations), reasoning signatures in
Chat (the SDK has none). The chat done event carries no call id and no choice index: `id` is read
from the SDK's own snapshot (`current_completion_snapshot`) at the event's tool-call index when the
event is emitted, and the choice is the one the current chunk carries (when a chunk carries several
choices, the one whose snapshot holds a call at that index with that name and arguments).
A provider error frame (`{"error": ...}`) makes the SDK raise `openai.APIError`; that exception is
reported as the stream's error with no choices (the helper exposes no final completion then).
Every other exception propagates.
"""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

import httpx
import openai
import respx

from deltacheck.adapter import Adapter, manifest_name
from deltacheck.model import AssemblyRequest

from ..openai_builtin_calls import arguments_text, builtin_call
from ..replay import Replay

BASE_URL = "http://deltacheck.invalid/v1"
API_KEY = "sk-deltacheck-dummy"
MODEL = "gpt-4o"


# -- transport -----------------------------------------------------------------------------------


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "the SDK keeps a call's arguments as text and marks nothing: `parsed_arguments` is filled only for strict tools given to the stream helper, with no invalid state"

# httpx's default TLS context (certifi's CA bundle), built once: building it for every client cost
# about 20 ms per fixture. respx answers before any connection is made, so TLS is never used anyway.
_TLS = httpx.create_ssl_context()


class _Served:
    """An OpenAI client whose HTTP requests to `path` are answered with the replay, via respx."""

    def __init__(self, replay: Replay, path: str) -> None:
        self.router = respx.mock(base_url=BASE_URL, assert_all_called=False, assert_all_mocked=True)
        self.router.post(path).mock(side_effect=lambda _request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=replay.iterate()))
        self.http = httpx.Client(verify=_TLS)
        self.client = openai.OpenAI(api_key=API_KEY, base_url=BASE_URL, http_client=self.http, max_retries=0)

    def __enter__(self) -> openai.OpenAI:
        self.router.__enter__()
        return self.client

    def __exit__(self, *exc: Any) -> None:
        try:
            self.client.close()
            self.http.close()
        finally:
            self.router.__exit__(*exc)


def _provider_error(exc: BaseException) -> dict[str, Any] | None:
    """The SDK's own representation of an error frame the provider streamed, or None."""
    if type(exc) is not openai.APIError:  # subclasses are connection/status errors, not stream frames
        return None
    kind = exc.type if exc.type is not None else exc.code
    return {"type": kind, "message": exc.message}  # as APIError holds them: a numeric type compares as its text


# How the SDK's objects are written: the SDK's own `to_dict()` form (`exclude_unset`), which holds what
# the API sent and leaves out fields the SDK's types merely default to null.
DUMP_OPTIONS: dict[str, Any] = {"exclude_unset": True}


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", **DUMP_OPTIONS) if model is not None else None


# -- Chat Completions ----------------------------------------------------------------------------


class _Base(Adapter):
    library = "openai"
    version = importlib.metadata.version("openai")


class OpenAIChatAdapter(_Base):
    name = manifest_name("openai-python-chat")
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"refusal", "reasoning", "finish_reason", "usage", "error", "multiple_choices", "events",
                              "extra_content", "message_extra_content"})
    capability_notes = dict(flags=FLAGS_NOTE)
    code_path = ("openai.OpenAI().chat.completions.stream(...) iterated to the end, then get_final_completion(); "
                 "the fixture's SSE bytes are served by respx to the httpx.Client passed as http_client")

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        events: list[dict[str, Any]] = []
        with _Served(replay, "/chat/completions") as client:
            try:
                with client.chat.completions.stream(model=MODEL, messages=[{"role": "user", "content": "hi"}]) as stream:
                    chunk = None
                    for event in stream:
                        if event.type == "chunk":
                            chunk = event.chunk
                        elif event.type == "tool_calls.function.arguments.done":
                            events.append(self._done_event(stream, chunk, event, replay.after_chunk()))
                    completion = stream.get_final_completion()
            except openai.APIError as exc:
                error = _provider_error(exc)
                if error is None:
                    raise
                return {"choices": [], "usage": None, "error": error, "events": events}
        return {
            "choices": [self._choice(choice) for choice in completion.choices],
            "usage": _dump(completion.usage),
            "error": None,
            "events": events,
        }

    @staticmethod
    def _done_event(stream: Any, chunk: Any, event: Any, after_chunk: int | None) -> dict[str, Any]:
        snapshot = stream.current_completion_snapshot

        def call_at(choice_index: int) -> Any:
            for snap_choice in snapshot.choices:
                if snap_choice.index == choice_index:
                    calls = snap_choice.message.tool_calls or []
                    return calls[event.index] if 0 <= event.index < len(calls) else None
            return None

        candidates = [c.index for c in (chunk.choices if chunk is not None else [])]
        if len(candidates) > 1:  # the event does not say which choice it belongs to
            matching = [i for i in candidates if (call := call_at(i)) is not None and call.type == "function"
                        and call.function.name == event.name and call.function.arguments == event.arguments]
            candidates = matching or candidates
        choice = candidates[0] if candidates else 0
        call = call_at(choice)
        return {"type": "tool_call_done", "choice": choice, "id": call.id if call is not None else None,
                "name": event.name, "arguments": arguments_text(event.arguments), "after_chunk": after_chunk}

    @staticmethod
    def _choice(choice: Any) -> dict[str, Any]:
        message = choice.message
        extra = getattr(message, "model_extra", None) or {}
        parts: list[dict[str, Any]] = []
        for field in ("reasoning_content", "reasoning"):  # one text in both fields (mirrored) is read once
            value = extra.get(field)
            if value is not None and not any(p["text"] == value for p in parts):
                parts.append({"type": "reasoning", "text": value if isinstance(value, str) else json.dumps(value),
                              "summary": [], "signature": None})
        # The message's own extra_content (a delta field the SDK does not type) is kept by the helper's dict
        # accumulation as an untyped extra field, as a call's is.
        message_extension = extra.get("extra_content")
        if message.content is not None or message_extension is not None:  # "" too: the comparator decides (3.2)
            text = {"type": "text", "text": message.content or "", "annotations": []}
            if message_extension is not None:
                text["extra_content"] = message_extension
            parts.append(text)
        if message.refusal is not None:
            parts.append({"type": "refusal", "text": message.refusal})
        for call in message.tool_calls or []:
            if call.type == "custom":
                parts.append({"type": "tool_call", "kind": "custom", "id": call.id, "item_id": None,
                              "name": call.custom.name, "arguments": arguments_text(call.custom.input)})
            else:
                part = {"type": "tool_call", "kind": "function", "id": call.id, "item_id": None,
                        "name": call.function.name, "arguments": arguments_text(call.function.arguments)}
                extension = (getattr(call, "model_extra", None) or {}).get("extra_content")
                if extension is not None:  # kept by the helper's dict accumulation as an untyped extra field
                    part["extra_content"] = extension
                parts.append(part)
        if message.function_call is not None:
            parts.append({"type": "tool_call", "kind": "function", "id": None, "item_id": None,
                          "name": message.function_call.name, "arguments": arguments_text(message.function_call.arguments)})
        return {"index": choice.index, "parts": parts, "finish_reason": choice.finish_reason, "finish_detail": None}


# -- Responses -----------------------------------------------------------------------------------


class OpenAIResponsesAdapter(_Base):
    name = manifest_name("openai-python-responses")
    protocols = frozenset({"openai-responses"})
    capabilities = frozenset({"finish_detail", "refusal", "reasoning", "reasoning_signature", "annotations", "item_id", "custom_tools",
                              "builtin_tools", "finish_reason", "usage", "error", "events"})
    capability_notes = dict(flags=FLAGS_NOTE)
    code_path = ("openai.OpenAI().responses.stream(...) iterated to the end, then get_final_response(); "
                 "the fixture's SSE bytes are served by respx to the httpx.Client passed as http_client")

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        events: list[dict[str, Any]] = []
        with _Served(replay, "/responses") as client:
            try:
                with client.responses.stream(model=MODEL, input="hi") as stream:
                    for event in stream:
                        if event.type == "response.output_item.done":
                            calls = [p for p in self._parts(event.item) if p["type"] == "tool_call"]
                            for call in calls:
                                events.append({"type": "tool_call_done", "choice": 0, "id": call["id"],
                                               "name": call["name"], "arguments": call["arguments"],
                                               "after_chunk": replay.after_chunk()})
                    response = stream.get_final_response()
            except openai.APIError as exc:
                error = _provider_error(exc)
                if error is None:
                    raise
                return {"choices": [], "usage": None, "error": error, "events": events}
        parts: list[dict[str, Any]] = []
        for item in response.output or []:
            parts.extend(self._parts(item))
        details = response.incomplete_details
        failure = response.error
        return {
            "choices": [{"index": 0, "parts": parts, "finish_reason": response.status,
                         "finish_detail": details.reason if details is not None else None}],
            "usage": _dump(response.usage),
            "error": {"type": failure.code, "message": failure.message} if failure is not None else None,
            "events": events,
        }

    @staticmethod
    def _parts(item: Any) -> list[dict[str, Any]]:
        if item.type == "message":
            parts = []
            for content in item.content or []:
                if content.type == "output_text":
                    parts.append({"type": "text", "text": content.text,
                                  "annotations": [_dump(a) for a in content.annotations or []]})
                elif content.type == "refusal":
                    parts.append({"type": "refusal", "text": content.refusal})
            return parts
        if item.type == "reasoning":
            return [{"type": "reasoning",
                     "text": "".join(c.text for c in item.content or [] if c.type == "reasoning_text"),
                     "summary": [s.text for s in item.summary or []],
                     "signature": item.encrypted_content}]
        if item.type == "function_call":
            return [{"type": "tool_call", "kind": "function", "id": item.call_id, "item_id": item.id,
                     "name": item.name, "arguments": arguments_text(item.arguments)}]
        if item.type == "custom_tool_call":
            return [{"type": "tool_call", "kind": "custom", "id": item.call_id, "item_id": item.id,
                     "name": item.name, "arguments": arguments_text(item.input)}]
        return builtin_call(item)


