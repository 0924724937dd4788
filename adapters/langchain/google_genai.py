"""langchain-google-genai `ChatGoogleGenerativeAI`, streamed and merged with `+`, on the Gemini protocol.

Code path: a real `ChatGoogleGenerativeAI` (Gemini Developer API backend, dummy API key, base URL on a
host that is never resolved) whose google-genai `Client` gets an `httpx2.MockTransport` through the
model's own `client_args` (google-genai 3.x builds its `httpx2.Client` from them). The transport answers
the one `:streamGenerateContent?alt=sse` request with the fixture's SSE bytes (`request.sse`, one event
per network read, or a byte-level fixture's cuts: adapters/replay.py), so google-genai's own SSE reader
and its `GenerateContentResponse` model, then langchain-google-genai's `_stream` (`_response_to_result`,
`_parse_response_candidate`, `_StreamBlockIndexer`), run end to end. The adapter calls the public
`.stream(messages)` and sums the yielded `AIMessageChunk`s with `+` (langchain-core's documented merge,
`add_ai_message_chunks`), the assembly LangChain's documentation gives for a streamed message; the sum
is what is mapped.

Mapping (the merged chunk, nothing more):
- `content` as a string (what langchain-google-genai yields for a model version before Gemini 3 when no
  part carries a signature or thought) -> one text part. As a list: each `text` block -> text, with
  `signature` = the block's `extras.signature` (langchain-google-genai re-encodes the SDK's decoded
  signature bytes as base64); each `thinking` block -> reasoning (`thinking`, `signature`); a bare
  string in the list -> text.
- `tool_call_chunks` (one per `functionCall` part, each with an index of its own) -> tool_call kind
  function, through langchain-core's own derivation (`tool_calls`, or `invalid_tool_calls` flagged) as
  in adapter.py; `id` = the chunk's id (langchain-google-genai writes `functionCall.id`, or a uuid4 it
  invents when the part has none); `signature` = the entry for that id in
  `additional_kwargs['__gemini_function_call_thought_signatures__']`, where the library keeps a
  function call's thoughtSignature.
- Order: content blocks and tool-call chunks carry the `index` langchain-google-genai's
  `_StreamBlockIndexer` gives them from one counter in stream order; parts follow that index (a string
  content, which has none, comes first).
- finish_reason = `response_metadata['finish_reason']` (the SDK's `FinishReason` enum name, which is
  the wire value); finish_detail = `response_metadata['finish_message']`, which the library fills for
  the refusal finish reasons (SAFETY, PROHIBITED_CONTENT, BLOCKLIST) only, from the SDK's
  `Candidate.finish_message` (which google-genai's Gemini API converter, `_Candidate_from_mldev`, does
  not fill from `finishMessage`). A blocked prompt (a chunk
  without candidates) gives a message whose `response_metadata['prompt_feedback']` holds the
  promptFeedback: its `block_reason` and `block_reason_message` are the finish reason and detail.
- error: google-genai raises its `APIError` for an `{"error": ...}` chunk; langchain-google-genai
  re-raises it as a LangChain error `from` the SDK's (or as its `GoogleAPIError` subclass, which is
  one). The result keeps what `.stream()` yielded before, merged, and `error` = the SDK error's
  `status`, else its `code` as text, and its `message`. Anything else propagates.

Cannot express (judged n/a): usage (`usage_metadata` is LangChain's own per-chunk delta shape, computed
by subtracting the previous cumulative counts; the provider's usageMetadata object is not kept),
several candidates (`_stream` yields `generations[0]` of every chunk only: the chunk's first candidate,
whatever its index), events (`.stream()` yields
message chunks, no tool-call completion events).
"""

from __future__ import annotations

from importlib.metadata import version as _dist_version
from typing import Any

import httpx2
from langchain_core.messages import AIMessageChunk, HumanMessage

from deltacheck.adapter import Adapter
from deltacheck.model import AssemblyRequest

from ..replay import API_KEY, Replay
from .merging import call_part, merge_stream

BASE_URL = "http://deltacheck.invalid"  # never resolved: the mock transport answers every request
MESSAGES = [HumanMessage(content="deltacheck replay")]
# Where langchain-google-genai keeps each function call's thoughtSignature, by tool call id.
CALL_SIGNATURES_KEY = "__gemini_function_call_thought_signatures__"


def _provider_error(exc: BaseException) -> dict[str, Any] | None:
    """The Gemini error the SDK raised, found on the exception or the one it was raised from."""
    from google.genai.errors import APIError

    seen: BaseException | None = exc
    while seen is not None and not isinstance(seen, APIError):
        seen = seen.__cause__
    if seen is None:
        return None
    status = seen.status
    return {"type": status if status else None if seen.code is None else str(seen.code), "message": seen.message}



def _content_parts(content: Any) -> list[tuple[int, dict[str, Any]]]:
    """(position, part) for each text and thinking block, position = the block's stream index."""
    if isinstance(content, str):
        return [(-1, {"type": "text", "text": content, "annotations": []})]
    parts: list[tuple[int, dict[str, Any]]] = []
    position = -1
    for block in content:
        if isinstance(block, str):
            parts.append((position, {"type": "text", "text": block, "annotations": []}))
            continue
        if isinstance(block.get("index"), int):
            position = block["index"]
        kind = block.get("type")
        if kind == "text":
            extras = block.get("extras") or {}
            parts.append((position, {"type": "text", "text": block.get("text", ""), "annotations": [],
                                     "signature": extras.get("signature")}))
        elif kind == "thinking":
            parts.append((position, {"type": "reasoning", "text": block.get("thinking") or "", "summary": [],
                                     "signature": block.get("signature")}))
    return parts


def _call_parts(merged: AIMessageChunk) -> list[tuple[int, dict[str, Any]]]:
    """(position, part) for each tool-call chunk, derived as a LangChain user reads it (adapter.py)."""
    signatures = merged.additional_kwargs.get(CALL_SIGNATURES_KEY) or {}
    parts = []
    for chunk in merged.tool_call_chunks:
        part = call_part(chunk)
        part["signature"] = signatures.get(part["id"])
        index = chunk.get("index")
        parts.append((index if isinstance(index, int) else -1, part))
    return parts


class LangChainGoogleGenAI(Adapter):
    name = "langchain-google-genai"
    library = "langchain-google-genai"
    version = _dist_version("langchain-google-genai")
    protocols = frozenset({"gemini"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "finish_reason", "finish_detail", "error", "flags"})
    capability_notes = dict(
        events=".stream() yields AIMessageChunks only, with no tool-call completion events",
        multiple_choices="ChatGoogleGenerativeAI._stream yields generations[0] of every chunk: one candidate",
        usage=("usage_metadata is LangChain's own shape (each chunk's counts minus the previous cumulative ones); "
               "the provider's usageMetadata object is not kept in response_metadata"))
    code_path = ("langchain_google_genai.ChatGoogleGenerativeAI(client_args={'transport': httpx2.MockTransport}).stream(), "
                 "the yielded AIMessageChunks summed with +; the fixture SSE goes through google-genai's own SSE reader")

    def __init__(self) -> None:
        import langchain_google_genai  # noqa: F401  (imported when the driver starts, not per fixture)

    def _model(self, replay: Replay) -> Any:
        from langchain_google_genai import ChatGoogleGenerativeAI

        transport = httpx2.MockTransport(replay.handler(httpx2.Response))
        return ChatGoogleGenerativeAI(model="gemini-3-flash-preview", api_key=API_KEY, base_url=BASE_URL,
                                      client_args={"transport": transport}, max_retries=0)

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        merged, error = merge_stream(self._model(Replay(request)).stream(MESSAGES), _provider_error)
        if merged is None:
            return {"choices": [], "usage": None, "error": error}
        located = _content_parts(merged.content) + _call_parts(merged)
        parts = [part for _, part in sorted(located, key=lambda item: item[0])]  # stable: ties keep their order
        reason, detail = _finish(merged.response_metadata)
        choice = {"index": 0, "parts": parts, "finish_reason": reason, "finish_detail": detail}
        return {"choices": [choice], "usage": None, "error": error}


def _finish(meta: dict[str, Any]) -> tuple[Any, Any]:
    """The candidate's finish reason and message, else, for a blocked prompt (no candidates), the
    `prompt_feedback` langchain-google-genai keeps in response_metadata: its block reason and message."""
    if meta.get("finish_reason") is not None:
        return meta["finish_reason"], meta.get("finish_message")
    feedback = meta.get("prompt_feedback")
    if not isinstance(feedback, dict) or feedback.get("block_reason") is None:
        return None, meta.get("finish_message")
    reason = feedback["block_reason"]
    return getattr(reason, "value", reason), feedback.get("block_reason_message")
