"""smolagents adapter: `OpenAIServerModel.generate_stream` + `agglomerate_stream_deltas`.

Code path: `smolagents.OpenAIServerModel(model_id, api_base=<fake>, api_key=<dummy>, client_kwargs={"http_client":
httpx2.Client(transport=httpx2.MockTransport(...))})` -- the openai SDK client smolagents builds gets an httpx2
client (openai-python 3.x's own transport library) whose mock transport serves the fixture's SSE bytes one
event at a time, so the openai SDK's SSE decoder runs. `model.generate_stream(messages, tools_to_call_from=[tool])`
yields smolagents' `ChatMessageStreamDelta`s, and smolagents' own `agglomerate_stream_deltas(deltas)` builds
the `ChatMessage` that is mapped.

What the result type cannot express (left out of `capabilities`, judged n/a)
* finish_reason: `generate_stream` drops it (a delta carries content, tool_calls and token_usage only);
* refusal and reasoning: never read from the delta;
* usage: `ChatMessage.token_usage` is smolagents' own `TokenUsage(input_tokens, output_tokens)`, summed over
  the deltas -- not the provider's usage object;
* multiple choices: only `choices[0]` of each chunk is read;
* events: smolagents yields deltas only.
So `finish_reason`/`finish_detail` are written as null and `usage` as null only to satisfy the result schema;
the harness strips them from the comparison.

Errors: a `{"error": ...}` chunk makes the openai SDK raise `openai.APIError` (carrying the provider's
message and type), which smolagents lets through `generate_stream` unchanged; the adapter reports that
exception as the canonical `error` with `choices` = [] (agglomerate_stream_deltas never runs). Every other
exception (smolagents' own ValueError for an index-less tool call, a TypeError, ...) propagates.
"""

from __future__ import annotations

import json
from importlib.metadata import version as _dist_version
from typing import Any

import httpx2
import openai
from smolagents import ChatMessage, MessageRole, OpenAIServerModel, Tool
from smolagents.models import agglomerate_stream_deltas

from deltacheck.adapter import Adapter
from deltacheck.model import AssemblyRequest

FAKE_BASE = "https://deltacheck.invalid/v1"
DUMMY_KEY = "sk-deltacheck-dummy"


# Why `flags` (CONTRACT 3.3: a call kept but marked not executable) is left out.
FLAGS_NOTE = "smolagents keeps a call's arguments as text; nothing in its message marks them unparsable"

class _LookupTool(Tool):
    """A placeholder tool so the request carries `tools`; the replayed stream decides which calls come back."""

    name = "lookup"
    description = "Placeholder tool for deltacheck replays."
    inputs = {"query": {"type": "string", "description": "anything"}}
    output_type = "string"

    def forward(self, query: str) -> str:  # never called: the adapter only assembles the stream
        return query


def _pieces(sse: bytes) -> list[bytes]:
    """`request.sse` unchanged, cut after each blank line: one piece per SSE event."""
    pieces = [piece + b"\n\n" for piece in sse.split(b"\n\n")[:-1]]
    rest = sse[sum(len(p) for p in pieces):]
    return pieces + ([rest] if rest else [])


def _transport(request: AssemblyRequest) -> httpx2.MockTransport:
    pieces = _pieces(request.sse)

    def handler(_http_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=iter(pieces))

    return httpx2.MockTransport(handler)


class SmolagentsOpenAIAdapter(Adapter):
    name = "smolagents-openai"
    library = "smolagents"
    version = _dist_version("smolagents")
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"error"})
    capability_notes = dict(flags=FLAGS_NOTE,
        events='generate_stream yields ChatMessageStreamDeltas only: no tool-call completion events',
        extra_content=("ChatMessageToolCallStreamDelta (index, id, type, function) and ChatMessageToolCall (function, id, "
                       "type) have no field for a call's provider extension"),
        finish_reason='generate_stream drops finish_reason: a delta carries content, tool_calls and token_usage only',
        message_extra_content=("ChatMessageStreamDelta (content, tool_calls, token_usage) has no field for a message's "
                               "provider extension, and agglomerate_stream_deltas builds the ChatMessage from those "
                               "fields only (its `raw` stays unset)"),
        multiple_choices='smolagents reads only choices[0] of each chunk',
        reasoning='generate_stream never reads reasoning from the delta, and ChatMessageStreamDelta has no reasoning field',
        refusal='generate_stream never reads refusal from the delta, and ChatMessageStreamDelta has no refusal field',
        usage="ChatMessage.token_usage is smolagents' own TokenUsage(input_tokens, output_tokens), not the provider's usage object")
    code_path = ("smolagents OpenAIServerModel.generate_stream(messages, tools_to_call_from=[tool]) through the openai "
                 "SDK over an httpx2 MockTransport serving the fixture SSE, then "
                 "smolagents.models.agglomerate_stream_deltas(deltas)")

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        model = OpenAIServerModel(model_id="gpt-4o", api_base=FAKE_BASE, api_key=DUMMY_KEY,
                                  client_kwargs={"http_client": httpx2.Client(transport=_transport(request)),
                                                 "max_retries": 0})
        messages = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "deltacheck replay"}])]
        deltas = []
        try:
            for delta in model.generate_stream(messages, tools_to_call_from=[_LookupTool()]):
                deltas.append(delta)
        except openai.APIError as exc:
            if isinstance(exc, openai.APIStatusError) or exc.body is None:
                raise  # not a provider error carried by the stream
            return {"choices": [], "usage": None,
                    "error": {"type": exc.type if exc.type is not None else exc.code, "message": exc.message}}
        message = agglomerate_stream_deltas(deltas)
        parts: list[dict[str, Any]] = []
        if message.content is not None:  # "" too: the comparator omits an empty text (CONTRACT 3.2)
            parts.append({"type": "text", "text": message.content, "annotations": []})
        for call in message.tool_calls or []:
            arguments = call.function.arguments
            parts.append({"type": "tool_call", "kind": "function", "id": call.id, "item_id": None,
                          "name": call.function.name,
                          "arguments": arguments if arguments is None or isinstance(arguments, str)
                          else json.dumps(arguments, ensure_ascii=False)})
        return {"choices": [{"index": 0, "parts": parts, "finish_reason": None, "finish_detail": None}],
                "usage": None, "error": None}

