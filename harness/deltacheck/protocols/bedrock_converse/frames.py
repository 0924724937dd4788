"""Bedrock ConverseStream events as event-stream messages, and back: the protocol's framing codec.

A chunk is one message as botocore presents a parsed ConverseStream event, with the payload's values as the
wire carries them (a blob as its base64 text, the padding field `p` kept):

- an event, `{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}`: a message with
  `:message-type` event, `:event-type` the one key, `:content-type` application/json, the value as payload;
- a modelled exception, `{"throttlingException": {"message": "..."}}` (a key ending in `Exception`): a message
  with `:message-type` exception and `:exception-type` the key;
- an unmodelled error, `{"Error": {"Code": "...", "Message": "..."}}` (botocore's form of one): a message with
  `:message-type` error, `:error-code`, `:error-message` and no payload;
- a frame the reader must not trust, `{":frame-error": "message checksum mismatch"}` (one of
  `eventstream.FAULTS`): a reader stops at it, so it is a stream's last chunk. A fixture that holds one
  carries its own bytes; rendered from the chunk alone it is a minimal message damaged that way.

Standard library only (the package `__init__` builds the Protocol from it).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from typing import Any

from deltacheck.json_spec import refuse_non_json_word
from deltacheck.protocols import eventstream

FRAME_ERROR = ":frame-error"
ERROR = "Error"  # botocore's key for an unmodelled error (`:message-type` error)
EXCEPTION_SUFFIX = "Exception"


def encode_payload(value: Any) -> bytes:
    """JSON written compactly, non-ASCII characters kept as UTF-8 (CONTRACT.md 2)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def encode_chunk(chunk: Any) -> bytes:
    """The message that carries one chunk."""
    if not isinstance(chunk, dict) or len(chunk) != 1:
        raise ValueError("a bedrock-converse chunk is an object with exactly one key, the event or exception type")
    ((name, value),) = chunk.items()
    if name == FRAME_ERROR:
        return damaged_message(value)
    if name == ERROR:
        value = value if isinstance(value, dict) else {}
        headers = {":message-type": "error"}
        headers[":error-code"] = str(value.get("Code", ""))
        headers[":error-message"] = str(value.get("Message", ""))
        return eventstream.encode_message(headers, b"")
    kind = "exception" if name.endswith(EXCEPTION_SUFFIX) else "event"
    return eventstream.encode_message(
        {":message-type": kind, f":{kind}-type": name, ":content-type": "application/json"}, encode_payload(value)
    )


def damaged_message(fault: Any) -> bytes:
    """A minimal event message broken the way `fault` says."""
    whole = eventstream.encode_message(
        {":message-type": "event", ":event-type": "damaged", ":content-type": "application/json"}, b"{}"
    )
    if fault == eventstream.MESSAGE_CHECKSUM:
        return whole[:-4] + struct.pack("!I", eventstream.crc32(whole[:-4]) ^ 1)
    if fault == eventstream.PRELUDE_CHECKSUM:
        return whole[:8] + struct.pack("!I", eventstream.crc32(whole[:8]) ^ 1) + whole[12:]
    if fault == eventstream.MALFORMED:  # a header of an unknown value type, every checksum right
        headers = b"\x01x\x0e"
        prelude = struct.pack("!II", eventstream.OVERHEAD + len(headers), len(headers))
        body = prelude + struct.pack("!I", eventstream.crc32(prelude)) + headers
        return body + struct.pack("!I", eventstream.crc32(body))
    raise ValueError(f"{FRAME_ERROR} {fault!r} is none of {', '.join(eventstream.FAULTS)}")


def decode_message(message: eventstream.Message) -> dict[str, Any]:
    """The chunk one message carries; ValueError when the message is no ConverseStream message."""
    headers = message.headers
    kind = headers.get(":message-type")
    if kind == "error":
        return {ERROR: {"Code": headers.get(":error-code", ""), "Message": headers.get(":error-message", "")}}
    if kind not in ("event", "exception"):
        raise ValueError(f"`:message-type` is {kind!r}, not event, exception or error")
    name = headers.get(f":{kind}-type")
    if not isinstance(name, str) or not name:
        raise ValueError(f"an {kind} message without a `:{kind}-type` header")
    text = message.payload.decode("utf-8")
    return {name: json.loads(text, parse_constant=refuse_non_json_word) if text else {}}


class EventStreamFraming:
    """The `Framing` of Bedrock ConverseStream (deltacheck.protocols.spec): binary messages, no terminator."""

    terminator: str | None = None  # the stream ends when the body does
    content_type = "application/vnd.amazon.eventstream"
    binary = True  # its body is bytes, not text: a transport fixture spells it as base64 `frames`, never `sse`

    def render(self, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
        """One message per chunk. A chunk that is not one key (a damaged variant robustness fuzzing makes) is one
        message per key, in order: `{}` is a message that never arrived, an extra key a message of its own."""
        out = bytearray()
        for chunk in chunks:
            if not isinstance(chunk, dict):
                raise ValueError(f"a bedrock-converse chunk is an object, not {type(chunk).__name__}")
            for name, value in chunk.items():
                out += encode_chunk({name: value})
        return bytes(out)

    def decode(self, body: bytes) -> tuple[list[Any], bool]:
        """The chunks of the whole messages, up to and including a damaged one (which ends the stream, as the
        spec demands); bytes of a message cut off by the end of the body carry no chunk."""
        return decode_pieces([body]), False

    def pieces(self, body: bytes) -> list[bytes]:
        """The body as a server flushes it: one piece per message."""
        return [body[start:end] for start, end in eventstream.message_spans(body)]


def decode_pieces(pieces: Iterable[bytes]) -> list[dict[str, Any]]:
    """The chunks of a body read in these pieces (see EventStreamFraming.decode)."""
    reader = eventstream.MessageReader()
    chunks: list[dict[str, Any]] = []
    for piece in pieces:
        try:
            messages = reader.feed(piece)
        except eventstream.FrameError as exc:
            chunks.extend(decode_message(message) for message in exc.messages)
            chunks.append({FRAME_ERROR: exc.fault})
            return chunks
        chunks.extend(decode_message(message) for message in messages)
    return chunks
