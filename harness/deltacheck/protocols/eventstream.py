"""The AWS event-stream message codec (`application/vnd.amazon.eventstream`): binary frames, not text.

Every message is, big-endian throughout:

    total_length u32 | headers_length u32 | prelude_crc u32 | headers | payload | message_crc u32

The prelude CRC covers the first 8 bytes, the message CRC every byte before it; both are the IEEE
CRC-32 (zlib's). A header is `name_length u8 | name | type u8 | value`, with ten value types (0 true,
1 false, 2 byte, 3 short, 4 integer, 5 long, 6 byte array, 7 string, 8 timestamp, 9 uuid).
Sources: the Smithy specification of the encoding (smithy-lang/smithy,
docs/source-2.0/aws/amazon-eventstream.rst) and https://docs.aws.amazon.com/lexv2/latest/dg/event-stream-encoding.html.
The spec leaves size limits to services ("Clients MUST NOT validate them"), so this reader checks
none; it checks both checksums ("If either checksum is invalid, the stream MUST be terminated").

This module knows messages only; what a message means (an event, an exception) is a protocol's
business (Bedrock ConverseStream: `deltacheck.protocols.bedrock_converse.frames`). Standard
library only.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRELUDE_LENGTH = 12  # total length, headers length, prelude CRC
OVERHEAD = PRELUDE_LENGTH + 4  # and the message CRC: the size of a message with no header and no payload

# Header value types (the Smithy spec's numbering) and, for the fixed-size ones, their struct format.
TRUE, FALSE, BYTE, SHORT, INTEGER, LONG, BYTE_ARRAY, STRING, TIMESTAMP, UUID = range(10)
_FIXED = {BYTE: "!b", SHORT: "!h", INTEGER: "!i", LONG: "!q", TIMESTAMP: "!q"}


def crc32(data: bytes, start: int = 0) -> int:
    """The IEEE CRC-32 (zlib's and binascii's): the checksum both CRC fields carry."""
    return zlib.crc32(data, start) & 0xFFFFFFFF


@dataclass(frozen=True)
class Header:
    """One typed header value. Strings are by far the commonest (`Header.string`)."""

    type: int
    value: Any

    @classmethod
    def string(cls, value: str) -> Header:
        return cls(STRING, value)


@dataclass(frozen=True)
class Message:
    headers: dict[str, Any]  # name -> value: bool, int, bytes (byte array and uuid) or str, as botocore reads them
    payload: bytes


class FrameError(ValueError):
    """A message that cannot be trusted: a checksum that does not match, or a frame that is not well formed.

    `fault` is one of FAULTS; `offset` is where the message starts in the body.
    """

    def __init__(self, fault: str, offset: int, detail: str) -> None:
        super().__init__(f"{fault} in the message at byte {offset}: {detail}")
        self.fault = fault
        self.offset = offset
        self.messages: list[Message] = []  # the whole messages the same piece completed before this one


PRELUDE_CHECKSUM = "prelude checksum mismatch"
MESSAGE_CHECKSUM = "message checksum mismatch"
MALFORMED = "malformed message"
FAULTS = (PRELUDE_CHECKSUM, MESSAGE_CHECKSUM, MALFORMED)


# -- writing ------------------------------------------------------------------------------------------


def encode_headers(headers: Mapping[str, Header | str]) -> bytes:
    """The headers section, in the order given (a plain `str` value is a string header)."""
    out = bytearray()
    for name, header in headers.items():
        if isinstance(header, str):
            header = Header.string(header)
        raw_name = name.encode("utf-8")
        if not 0 < len(raw_name) < 256:
            raise ValueError(f"header name {name!r} must be 1 to 255 bytes")
        out += struct.pack("!B", len(raw_name)) + raw_name + struct.pack("!B", header.type)
        out += _encode_value(name, header)
    return bytes(out)


def _encode_value(name: str, header: Header) -> bytes:
    kind, value = header.type, header.value
    if kind in (TRUE, FALSE):
        return b""
    if kind in _FIXED:
        return struct.pack(_FIXED[kind], value)
    if kind in (BYTE_ARRAY, STRING):
        raw = value.encode("utf-8") if kind == STRING else bytes(value)
        if len(raw) > 0xFFFF:
            raise ValueError(f"header {name!r}: a value of {len(raw)} bytes does not fit its 16-bit length")
        return struct.pack("!H", len(raw)) + raw
    if kind == UUID:
        if len(value) != 16:
            raise ValueError(f"header {name!r}: a uuid is 16 bytes, not {len(value)}")
        return bytes(value)
    raise ValueError(f"header {name!r}: unknown value type {kind}")


def encode_message(headers: Mapping[str, Header | str], payload: bytes) -> bytes:
    """One whole message: prelude, its CRC, headers, payload, message CRC."""
    raw_headers = encode_headers(headers)
    total = OVERHEAD + len(raw_headers) + len(payload)
    prelude = struct.pack("!II", total, len(raw_headers))
    body = prelude + struct.pack("!I", crc32(prelude)) + raw_headers + payload
    return body + struct.pack("!I", crc32(body))


# -- reading ------------------------------------------------------------------------------------------


def decode_headers(data: bytes, offset: int = 0) -> dict[str, Any]:
    """The headers section as name -> value; FrameError (malformed) for a duplicate name, an unknown type or
    a value that runs past the section."""
    headers: dict[str, Any] = {}
    position = 0
    try:
        while position < len(data):
            size = data[position]
            name = data[position + 1 : position + 1 + size].decode("utf-8")
            position += 1 + size
            kind = data[position]
            position += 1
            value, position = _decode_value(data, position, kind)
            if name in headers:
                raise FrameError(MALFORMED, offset, f"header {name!r} appears twice")
            headers[name] = value
    except (IndexError, struct.error, UnicodeDecodeError) as exc:
        raise FrameError(MALFORMED, offset, f"the headers do not parse ({exc})") from None
    return headers


def _decode_value(data: bytes, position: int, kind: int) -> tuple[Any, int]:
    if kind in (TRUE, FALSE):
        return kind == TRUE, position
    if kind in _FIXED:
        size = struct.calcsize(_FIXED[kind])
        (value,) = struct.unpack(_FIXED[kind], data[position : position + size])
        return value, position + size
    if kind in (BYTE_ARRAY, STRING):
        (size,) = struct.unpack("!H", data[position : position + 2])
        raw = data[position + 2 : position + 2 + size]
        if len(raw) != size:
            raise IndexError("a value runs past the headers")
        return (raw.decode("utf-8") if kind == STRING else bytes(raw)), position + 2 + size
    if kind == UUID:
        raw = data[position : position + 16]
        if len(raw) != 16:
            raise IndexError("a uuid runs past the headers")
        return bytes(raw), position + 16
    raise IndexError(f"unknown header value type {kind}")


class MessageReader:
    """Reads messages from a body that arrives in pieces of any size (a network read each).

    `feed` returns the messages its piece completes; a message is never returned before its last byte
    arrived and both its checksums matched. `pending` is how many bytes wait for the rest of their message:
    nonzero at the end of the body means the last message was cut off.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._consumed = 0  # bytes of the body already returned as messages

    @property
    def pending(self) -> int:
        return len(self._buffer)

    def feed(self, piece: bytes) -> list[Message]:
        self._buffer += piece
        messages: list[Message] = []
        try:
            while (message := self._next()) is not None:
                messages.append(message)
        except FrameError as exc:
            exc.messages = messages
            raise
        return messages

    def _next(self) -> Message | None:
        buffer, offset = self._buffer, self._consumed
        if len(buffer) < PRELUDE_LENGTH:
            return None
        total, headers_length, prelude_crc = struct.unpack("!III", buffer[:PRELUDE_LENGTH])
        if crc32(bytes(buffer[:8])) != prelude_crc:
            raise FrameError(
                PRELUDE_CHECKSUM,
                offset,
                f"the prelude says 0x{prelude_crc:08x}, its bytes give 0x{crc32(bytes(buffer[:8])):08x}",
            )
        if total < OVERHEAD + headers_length:
            raise FrameError(MALFORMED, offset, f"{headers_length} bytes of headers do not fit a {total}-byte message")
        if len(buffer) < total:
            return None
        frame = bytes(buffer[:total])
        (message_crc,) = struct.unpack("!I", frame[-4:])
        if crc32(frame[:-4]) != message_crc:
            raise FrameError(
                MESSAGE_CHECKSUM,
                offset,
                f"the message says 0x{message_crc:08x}, its bytes give 0x{crc32(frame[:-4]):08x}",
            )
        headers = decode_headers(frame[PRELUDE_LENGTH : PRELUDE_LENGTH + headers_length], offset)
        del buffer[:total]
        self._consumed += total
        return Message(headers, frame[PRELUDE_LENGTH + headers_length : -4])


def message_spans(body: bytes) -> list[tuple[int, int]]:
    """(start, end) of each message of a body by its prelude's total length, checksums unchecked; a cut-off last
    message ends with the body. For cutting a body into one read per message."""
    spans, start = [], 0
    while start < len(body):
        end = len(body)
        if len(body) - start >= 4:
            (total,) = struct.unpack("!I", body[start : start + 4])
            end = min(start + max(total, OVERHEAD), len(body))
        spans.append((start, end))
        start = end
    return spans
