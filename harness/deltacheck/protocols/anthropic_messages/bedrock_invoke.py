"""Anthropic Messages over AWS Bedrock's InvokeModelWithResponseStream: each event inside an event-stream message.

`POST /model/{modelId}/invoke-with-response-stream` answers (`application/vnd.amazon.eventstream`) with one
binary message per Anthropic stream event, no SSE framing and no terminator:

    headers  :event-type chunk, :content-type application/json, :message-type event
    payload  {"bytes": "<base64 of the event's JSON, the text an SSE `data:` line would carry>"}

The stream's `ResponseStream` union has one event member, `chunk` (a `PayloadPart` whose `bytes` is "Base64-encoded
bytes of payload data"), and its exceptions as messages of their own (`:message-type` exception). Sources:
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_PayloadPart.html; the header order and the
payload of a message a live server sent: awsdocs/aws-doc-sdk-examples#5541; the SDKs that read it:
anthropic-sdk-python `lib/bedrock/_stream_decoder.py` (botocore's reader, then the event's `type` as the SSE
event name) and @anthropic-ai/bedrock-sdk `core/streaming` (the AWS SDK's `ResponseStream` deserialiser).

An Anthropic `error` event travels the same way, inside a `chunk` (anthropic-sdk-python#1472: an in-band
error envelope on a 200 stream; anthropic-sdk-typescript#1021), so every chunk of a fixture is one message.
The framing codec is the shared `protocols/eventstream.py`; standard library only.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any

from deltacheck.json_spec import refuse_non_json_word
from deltacheck.protocols import eventstream
from deltacheck.protocols.sse import encode_chunk

EVENT_TYPE = "chunk"  # the ResponseStream member that carries a payload part
HEADERS = {":event-type": EVENT_TYPE, ":content-type": "application/json", ":message-type": "event"}


def encode_event(chunk: Any) -> bytes:
    """The message that carries one Anthropic event: its JSON (as an SSE data line writes it), base64, in `bytes`."""
    data = encode_chunk(chunk).encode("utf-8")
    payload = {"bytes": base64.b64encode(data).decode("ascii")}
    return eventstream.encode_message(HEADERS, json.dumps(payload, separators=(",", ":")).encode("utf-8"))


def decode_message(message: eventstream.Message) -> Any:
    """The Anthropic event a `chunk` message carries; ValueError for any other message (an exception has no
    Anthropic event to read back)."""
    headers = message.headers
    if headers.get(":message-type") != "event" or headers.get(":event-type") != EVENT_TYPE:
        kind = headers.get(":exception-type") or headers.get(":error-code") or headers.get(":event-type")
        raise ValueError(f"a {headers.get(':message-type')!r} message ({kind!r}) carries no Anthropic event")
    part = json.loads(message.payload.decode("utf-8"))
    data = base64.b64decode(part["bytes"], validate=True).decode("utf-8")
    return json.loads(data, parse_constant=refuse_non_json_word)


class InvokeStreamFraming:
    """The `Framing` of the bedrock-invoke transport (deltacheck.protocols.spec): one message per event."""

    terminator: str | None = None  # the stream ends when the body does
    content_type = "application/vnd.amazon.eventstream"
    binary = True

    def render(self, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
        return b"".join(encode_event(chunk) for chunk in chunks)

    def decode(self, body: bytes) -> tuple[list[Any], bool]:
        """The events of the body's whole messages (a damaged message raises eventstream.FrameError)."""
        reader = eventstream.MessageReader()
        return [decode_message(message) for message in reader.feed(body)], False

    def pieces(self, body: bytes) -> list[bytes]:
        """The body as a server flushes it: one piece per message."""
        return [body[start:end] for start, end in eventstream.message_spans(body)]
