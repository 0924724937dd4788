"""litellm's gemini provider: `litellm.completion(model='gemini/...', stream=True)` + `litellm.stream_chunk_builder`.

Code path: `litellm.completion(model="gemini/gemini-3-flash-preview", api_base=<fake>, api_key=<dummy>,
stream=True)`, litellm's own Google AI Studio handler (`VertexLLM` in
litellm/llms/vertex_ai/gemini/vertex_and_google_ai_studio_gemini.py) posting to
`{api_base}/models/{model}:streamGenerateContent?alt=sse` through its `HTTPHandler`, an httpx client that
respx intercepts. respx answers with the fixture's SSE bytes (`request.sse`, one event per network read,
or a byte-level fixture's cuts: adapters/replay.py), so litellm's own SSE reading and its
`ModelResponseIterator.chunk_parser` (Gemini chunk -> OpenAI-style `ModelResponseStream`) run, then
`CustomStreamWrapper`. The chunks it yields are assembled with `litellm.stream_chunk_builder(chunks,
messages)`, litellm's documented way to rebuild the complete response from a stream; the `ModelResponse`
it returns is what is mapped.

Mapping (litellm's message, read the way litellm itself reads it):
- `reasoning_content` (litellm joins every `thought: true` part's text) -> one reasoning part; its
  `signature` from `thinking_blocks`, the message field litellm keeps a thought signature in (its
  gemini streaming path does not fill it: a thought's signature then only reaches the message-level
  list below).
- `content` (one string: litellm joins every non-thought text part of the stream) -> one text part.
  Its `signature`: litellm keeps the signatures of a streamed message's parts as one message-level list,
  `provider_specific_fields['thought_signatures']`, and when it sends the message back to Gemini it puts
  that list's first signature on the text part, unless a tool call of the message carries it
  (litellm/llms/vertex_ai/gemini/transformation.py, assistant content); the adapter reads it the same way.
- `tool_calls` -> tool_call kind function: `id` as litellm gives it (`functionCall.id`, else a
  `call_<uuid>` of its own; either with `__thought__<signature>` appended when the part carries a
  signature, litellm's default `thought_signature_in_tool_call_id`), `arguments` as text, `signature` =
  the call's `provider_specific_fields['thought_signature']`.

Cannot express (judged n/a): finish_reason (litellm keeps only its OpenAI-style translation, STOP ->
`stop`, a call -> `tool_calls`; the streamed choice keeps no `native_finish_reason`), finish_detail
(finishMessage is not on litellm's message), usage (litellm's `Usage`, prompt_tokens / completion_tokens,
replaces the usageMetadata object), events (deltas only). Mid-stream errors: litellm raises its own
exception (`MidStreamFallbackError` around a `VertexAIError`) whose message it decorates and which carries
no error status of its own; it is left to propagate (the harness records `error`).
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map over the network

import httpx  # noqa: E402
import litellm  # noqa: E402
import respx  # noqa: E402

from deltacheck.adapter import Adapter  # noqa: E402
from deltacheck.model import AssemblyRequest  # noqa: E402

from ..replay import Replay  # noqa: E402
from .adapter import DUMMY_KEY, FAKE_BASE, LITELLM_VERSION, MESSAGES, _arguments, _get, assembled_result  # noqa: E402

MODEL = "gemini/gemini-3-flash-preview"


def _reasoning_parts(message: Any) -> list[dict[str, Any]]:
    blocks = _get(message, "thinking_blocks")
    if blocks:
        return [{"type": "reasoning", "text": _get(block, "thinking") or "", "summary": [],
                 "signature": _get(block, "signature")} for block in blocks]
    reasoning = _get(message, "reasoning_content")
    if reasoning is None:
        return []
    return [{"type": "reasoning", "text": reasoning, "summary": [], "signature": None}]


def _tool_call_part(call: Any) -> dict[str, Any]:
    function = _get(call, "function")
    return {"type": "tool_call", "kind": "function", "id": _get(call, "id"), "item_id": None,
            "name": _get(function, "name"), "arguments": _arguments(_get(function, "arguments")),
            "signature": (_get(call, "provider_specific_fields") or {}).get("thought_signature")}


def _text_signature(message: Any, calls: list[dict[str, Any]]) -> str | None:
    """The signature litellm gives the text part when it sends the message back: the message list's first,
    unless one of the message's tool calls carries that one."""
    signatures = (_get(message, "provider_specific_fields") or {}).get("thought_signatures")
    if not isinstance(signatures, list) or not signatures:
        return None
    first = signatures[0]
    return None if first in {call["signature"] for call in calls} else first


def _message_parts(message: Any) -> list[dict[str, Any]]:
    calls = [_tool_call_part(call) for call in _get(message, "tool_calls") or []]
    parts = _reasoning_parts(message)
    content = _get(message, "content")
    if content is not None:  # "" too: the comparator decides what an empty part is
        parts.append({"type": "text", "text": content, "annotations": [],
                      "signature": _text_signature(message, calls)})
    return parts + calls


class LitellmGeminiAdapter(Adapter):
    name = "litellm-gemini"
    library = "litellm"
    version = LITELLM_VERSION
    protocols = frozenset({"gemini"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "error", "multiple_choices"})
    capability_notes = dict(
        flags="litellm keeps a call's arguments as text; no field of its message marks them unparsable",
        events="CustomStreamWrapper yields OpenAI-style deltas only and stream_chunk_builder returns one ModelResponse: no tool-call completion events",
        finish_detail="finishMessage is not on litellm's OpenAI-shaped message",
        finish_reason=("litellm exposes its OpenAI-style translation of finishReason (STOP -> stop, a function call -> "
                       "tool_calls); the streamed choice keeps no native_finish_reason"),
        usage="litellm's Usage (prompt_tokens / completion_tokens) replaces Gemini's usageMetadata object")
    code_path = ("litellm.completion(model='gemini/...', stream=True) through litellm's Google AI Studio handler over a "
                 "respx-mocked httpx client serving the fixture SSE, then litellm.stream_chunk_builder(chunks)")

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        replay = Replay(request)
        with respx.mock(assert_all_called=False, assert_all_mocked=True) as router:
            router.post(url__startswith=FAKE_BASE).mock(side_effect=replay.handler(httpx.Response))
            stream = litellm.completion(model=MODEL, messages=MESSAGES, api_base=FAKE_BASE, api_key=DUMMY_KEY,
                                        stream=True, max_retries=0)
            chunks = list(stream)
        return assembled_result(chunks, _message_parts)
