"""SSE both ways: render a fixture's chunks as a provider sends them, and read raw SSE back.

The reader follows the WHATWG "parsing an event stream" rules exactly (HTML Living Standard 9.2.5,
9.2.6); lint uses it to check that a transport-level fixture's raw `sse` text decodes to its chunks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

NAMED_EVENTS = {"openai-responses", "anthropic-messages"}


def encode_chunk(chunk: Any) -> str:
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))


def render_sse(protocol: str, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
    """Chat: `data:` lines then `data: [DONE]`; Responses and Anthropic: `event:` + `data:` pairs."""
    lines: list[str] = []
    for chunk in chunks:
        if protocol in NAMED_EVENTS and isinstance(chunk, dict) and isinstance(chunk.get("type"), str):
            lines.append(f"event: {chunk['type']}\n")
        lines.append(f"data: {encode_chunk(chunk)}\n\n")
    if protocol == "openai-chat" and stream_end == "terminator":
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode("utf-8")


@dataclass(frozen=True)
class Event:
    type: str
    data: str


def parse_event_stream(body: bytes) -> list[Event]:
    """The events a conforming EventSource would dispatch for `body` (WHATWG 9.2.5 and 9.2.6)."""
    text = body.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]  # one leading BOM is stripped
    events: list[Event] = []
    data: list[str] = []
    kind = ""
    for line in _lines(text):
        if line == "":  # dispatch; an empty data buffer dispatches nothing
            if data:
                events.append(Event(kind or "message", "\n".join(data)))
            data, kind = [], ""
            continue
        if line.startswith(":"):
            continue  # a comment
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            kind = value
        # `id`, `retry` and unknown fields carry nothing a message is made of
    return events  # an event not closed by a blank line at EOF is discarded


def _lines(text: str) -> list[str]:
    """Lines ended by CRLF, LF or a lone CR; the text after the last line end is not a line."""
    lines, start, i = [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "\r\n":
            lines.append(text[start:i])
            if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
                i += 1
            start = i + 1
        i += 1
    return lines


def decode_stream(protocol: str, body: bytes) -> tuple[list[Any], bool]:
    """(the chunks the stream's `data` carries, whether an openai-chat `[DONE]` ended it)."""
    chunks: list[Any] = []
    done = False
    for event in parse_event_stream(body):
        if protocol == "openai-chat" and event.data == "[DONE]":
            done = True
            break  # nothing after [DONE] is part of the stream
        chunks.append(json.loads(event.data))
    return chunks, done
