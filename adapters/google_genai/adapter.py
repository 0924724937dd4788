"""google-genai (Google's own Python SDK): a chat's model turn, as the chat keeps it after `send_message_stream`.

Code path: `genai.Client(api_key=..., http_options=HttpOptions(httpx_client=httpx2.Client(transport=
httpx2.MockTransport(...))))`, then `client.chats.create(model=...)` and `Chat.send_message_stream(prompt)`
iterated to the end. The transport answers the one request with the fixture's SSE bytes (`request.sse`), one
event per network chunk, so the SDK's own SSE line reader (`HttpResponse._iter_response_stream`), its error-chunk
check (`BaseApiClient.request_streamed`) and its response types run unchanged. No network is used.

`generate_content_stream` only yields the chunks; the one place the SDK assembles a streamed response is the
chat: `send_message_stream` records the turn in the chat's history (`_BaseChat.record_history`), and the
next `send_message` sends the curated history (`get_history(curated=True)`) as the conversation so far. That
curated history's model turn is what is mapped: each chunk's `candidates[0].content` is one model `Content`
there, kept as it came (the SDK does not join parts), and a turn the SDK judges invalid (a chunk without
candidates or content, an empty part `{}`, no finishReason: `_validate_response`) is left out of it, user
message and all: the choice then has no parts, as the chat holds none of them. One adapter covers the chat:
`AsyncChat.send_message_stream` records the same Contents and judges the turn by the same checks (its own copy
of the code, which also calls a turn with no Content invalid; the sync chat's per-chunk check already does), and
`Models.generate_content_stream` assembles nothing.

Mapping (the parts of the turn's Contents, in order; nothing joined or dropped by the adapter):
- a part with `text` -> text, or reasoning when `thought` is true; `signature` = its `thought_signature`;
- a `function_call` part -> tool_call kind function, `id` = its id, `name`, `arguments` = json.dumps of `args`
  (no args: null), `signature` = its `thought_signature`; a Vertex `partialArgs` part is one such part too;
- other parts (inline data, code execution, a part holding only a signature) carry nothing the canonical
  result holds, as in the reference.
The SDK holds a signature as the bytes it decoded from the part's base64 text (`Part.thought_signature: bytes`);
the adapter writes those bytes in the Gemini API's own JSON encoding of bytes (standard base64, padded), so a
signature the SDK kept byte for byte reads as the text received. (On its next request the SDK writes them in the
URL-safe alphabet, `_common.encode_unserializable_types`; the API's JSON reads both alphabets as the same bytes.)
An error chunk makes the SDK raise `APIError` (`status`, `code`, `message` of the chunk's `error`); the turn is
then not recorded at all, so the result is no choice and that error.

Cannot express: finish_reason, finish_detail and usage (the history keeps `Content` only: the chat reads the
finishReason only to judge the turn valid, and keeps no usage), several choices (the chat records
`candidates[0]` of every chunk, whatever its index), events (the chat yields raw chunks and records the turn
only after the stream ends), flags (a call's args are the parsed object the chunk carried; nothing is marked).
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
from typing import Any

import httpx2
from google import genai
from google.genai import errors, types

from deltacheck.adapter import Adapter, manifest_name
from deltacheck.model import AssemblyRequest

from ..replay import API_KEY, Replay

LIBRARY = "google-genai"
VERSION = importlib.metadata.version(LIBRARY)
BASE_URL = "http://deltacheck.invalid"  # never resolved: the mock transport answers every request
MODEL = "gemini-2.5-flash"
PROMPT = "deltacheck replay"


def _signature(part: types.Part) -> dict[str, Any]:
    """The part's signature, the bytes the SDK holds as standard base64, when it has one."""
    if part.thought_signature is None:
        return {}
    return {"signature": base64.b64encode(part.thought_signature).decode("ascii")}


def _canonical_part(part: types.Part) -> dict[str, Any] | None:
    if part.function_call is not None:
        call = part.function_call
        arguments = None if call.args is None else json.dumps(call.args, ensure_ascii=False)
        return {"type": "tool_call", "kind": "function", "id": call.id, "item_id": None, "name": call.name,
                "arguments": arguments, **_signature(part)}
    if part.text is not None:
        if part.thought:
            return {"type": "reasoning", "text": part.text, "summary": [],
                    "signature": _signature(part).get("signature")}
        return {"type": "text", "text": part.text, "annotations": [], **_signature(part)}
    return None  # inline data, code execution, a signature alone: nothing the canonical result holds


class GoogleGenAIChat(Adapter):
    name = manifest_name("google-genai-chat")
    library = LIBRARY
    version = VERSION
    protocols = frozenset({"gemini"})
    capabilities = frozenset({"reasoning", "reasoning_signature", "error"})
    capability_notes = {
        "finish_reason": "the chat history keeps Content only; the chat reads finishReason just to judge the turn valid",
        "finish_detail": "the chat history keeps Content only (no finishMessage)",
        "usage": "the chat history keeps Content only; the chat keeps no usageMetadata",
        "multiple_choices": "the chat records candidates[0] of every chunk, whatever its index",
        "events": "the chat yields the raw chunks and records the turn only after the stream ends",
        "flags": "a function_call part holds its args as the parsed object the chunk carried; the history marks nothing on it",
    }
    code_path = ("google.genai Chat.send_message_stream on a Client whose httpx2.Client has a MockTransport serving "
                 "request.sse; the curated history's model turn (what the next send_message sends)")

    def __init__(self) -> None:
        # One Client for every fixture, as an application keeps one: building it loads two SSL contexts (about
        # 0.3 s), which would otherwise be timed with every stream. Its transport answers with the current
        # fixture's handler; each fixture gets a chat of its own.
        self._handler: Any = None
        http_client = httpx2.Client(transport=httpx2.MockTransport(lambda request: self._handler(request)))
        self._client = genai.Client(api_key=API_KEY, http_options=types.HttpOptions(
            base_url=BASE_URL, api_version="v1beta", httpx_client=http_client))

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        self._handler = Replay(request).handler(httpx2.Response)
        chat = self._client.chats.create(model=MODEL)
        try:
            for _chunk in chat.send_message_stream(PROMPT):
                pass
        except errors.APIError as exc:
            return {"choices": [], "usage": None, "error": {"type": exc.status or exc.code, "message": exc.message},
                    "events": []}
        turn = chat.get_history(curated=True)[1:]  # the user's message, then the model's Contents
        parts = [canonical for content in turn for part in content.parts or []
                 if (canonical := _canonical_part(part)) is not None]
        return {"choices": [{"index": 0, "parts": parts, "finish_reason": None, "finish_detail": None}],
                "usage": None, "error": None, "events": []}
