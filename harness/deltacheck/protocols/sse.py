"""The SSE framing codec: render a stream's chunks as a provider sends them, and read raw SSE back.

Shared by the protocols whose transport is server-sent events; each one's package says how it uses
SSE (`SseFraming`: whether events are named after the chunk's `type`, and which data line ends the
stream). The reader follows the WHATWG "parsing an event stream" rules exactly (HTML Living
Standard 9.2.5, 9.2.6); lint uses it to check that a transport-level fixture's raw `sse` text
decodes to its chunks. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from deltacheck.json_spec import refuse_non_json_word


def encode_chunk(chunk: Any) -> str:
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SseFraming:
    """One protocol's use of SSE."""

    named_events: bool  # an `event:` line named after the chunk's `type` precedes each `data:` line
    terminator: str | None = None  # the data of the event that ends the stream (`[DONE]`), if any

    def render(self, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
        """`data:` lines (after an `event:` line when events are named), then the terminator if the stream has one."""
        lines: list[str] = []
        for chunk in chunks:
            if self.named_events and isinstance(chunk, dict) and isinstance(chunk.get("type"), str):
                lines.append(f"event: {chunk['type']}\n")
            lines.append(f"data: {encode_chunk(chunk)}\n\n")
        if self.terminator is not None and stream_end == "terminator":
            lines.append(f"data: {self.terminator}\n\n")
        return "".join(lines).encode("utf-8")

    def decode(self, body: bytes) -> tuple[list[Any], bool]:
        """(the chunks the stream's `data` carries, whether the terminator ended it)."""
        chunks: list[Any] = []
        for event in parse_event_stream(body):
            if self.terminator is not None and event.data == self.terminator:
                return chunks, True  # nothing after the terminator is part of the stream
            chunks.append(json.loads(event.data, parse_constant=refuse_non_json_word))  # NaN is no JSON
        return chunks, False


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


def event_name_problems(names: list[str], chunks: list[Any]) -> list[str]:
    """Where a stream whose events are named after their data's `type` names one otherwise (an unnamed
    event, `message`, is let be): a client that dispatches on the name would misread it."""
    problems = []
    for position, (name, chunk) in enumerate(zip(names, chunks)):
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if name != "message" and name != kind:
            problems.append(f"event {position}: the SSE event name {name!r} is not the data's type {kind!r}")
    return problems
