"""Read a captured stream: raw SSE (as `curl -N` saves it), JSON lines of chunks, or a HAR file.

`read_capture` returns the chunks, the protocol they are in, how the stream ended and, for SSE, the
exact body with its line structure (so redaction can rewrite the `data` values in place and keep
the framing). Anything that is not one of these formats, mixes protocols, is truncated or is empty
raises `BadCapture` with one line saying what was expected and where the input stopped matching.

Every registered protocol is asked: its package's `capture` module says which chunks are its own,
and its framing which data line (if any) ends its streams.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from deltacheck.protocols import PROTOCOLS, all_protocols, protocol, render_stream

# A fixture is a file people read and review in a pull request: a capture above this is refused unread.
MAX_CAPTURE_BYTES = 4 * 1024 * 1024


class BadCapture(Exception):
    """The capture cannot be read; the message names the file and where it stopped matching."""


@dataclass
class SseLine:
    """One line of an event stream: its field (None for a blank line, "" for a comment), value and ending."""

    text: str
    ending: str
    field: str | None = None
    value: str = ""


@dataclass
class SseEvent:
    data_lines: list[int]  # indices into Capture.lines of this event's `data` lines
    event_type: str
    line_number: int  # 1-based, of the event's first line, for messages

    def data(self, lines: list[SseLine]) -> str:
        return "\n".join(lines[i].value for i in self.data_lines)


@dataclass
class Capture:
    fmt: str  # "sse", "jsonl" or "har"
    protocol: str
    chunks: list[Any]
    stream_end: str = "terminator"
    lines: list[SseLine] = field(default_factory=list)  # SSE only: the body line by line
    events: list[SseEvent] = field(default_factory=list)  # SSE only: the events that carry a chunk
    bom: bool = False

    def body(self) -> str:
        """The SSE body as captured (after any redaction applied to `lines`)."""
        return ("\ufeff" if self.bom else "") + "".join(line.text + line.ending for line in self.lines)

    def framing_matters(self) -> bool:
        """Whether the captured body differs from the SSE the harness would render from the chunks."""
        if self.fmt == "jsonl":
            return False
        return render_stream(self.protocol, self.chunks, self.stream_end) != self.body().encode("utf-8")


def read_capture(path: Path) -> Capture:
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_CAPTURE_BYTES + 1)  # never more than the limit in memory
    except OSError as exc:
        raise BadCapture(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(raw) > MAX_CAPTURE_BYTES:
        raise BadCapture(
            f"{path}: larger than {MAX_CAPTURE_BYTES // (1024 * 1024)} MiB, the most a fixture holds; "
            "cut the capture down to the one response that shows the behaviour"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadCapture(
            f"{path}: not UTF-8 text (byte {exc.start}); expected raw SSE, JSON lines or a HAR file"
        ) from None
    if not text.strip():
        raise BadCapture(f"{path}: empty; expected raw SSE, JSON lines of chunks, or a HAR file")
    start = text.lstrip("\ufeff \t\r\n")
    if start.startswith("{") and _is_har(text):
        return _read_har(path, json.loads(text))
    if start.startswith("{"):
        return _read_jsonl(path, text)
    if start.startswith("HTTP/"):  # `curl -N -i`: the response headers first (never written), then the body
        parts = re.split(r"\r?\n\r?\n", text.lstrip("\ufeff"), maxsplit=1)
        if len(parts) < 2:
            raise BadCapture(f"{path}: HTTP response headers with no blank line after them, so no body")
        return _read_sse(path, parts[1], where=f"{path} (the body after the HTTP headers)")
    return _read_sse(path, text, where=str(path))


def _is_har(text: str) -> bool:
    try:
        document = json.loads(text)
    except ValueError:
        return False
    return isinstance(document, dict) and isinstance(document.get("log"), dict)


# -- JSON lines ----------------------------------------------------------------------------------


def _json_object(text: str, what: str, expected: str) -> dict[str, Any]:
    """One chunk: a JSON object, or a BadCapture naming where it is and what was expected."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BadCapture(f"{what} is not a JSON object ({exc}); {expected}") from None
    if not isinstance(value, dict):
        raise BadCapture(f"{what} is JSON but not an object; {expected}")
    return value


def _read_jsonl(path: Path, text: str) -> Capture:
    chunks = []
    numbers = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        chunks.append(_json_object(line, f"{path}: line {number}", "expected one chunk per line"))
        numbers.append(f"line {number}")
    name = detect_protocol(chunks, numbers, str(path))
    _one_response(name, chunks, numbers, str(path))
    return Capture("jsonl", name, chunks)


# -- SSE -----------------------------------------------------------------------------------------


def _split_lines(text: str) -> tuple[list[SseLine], str]:
    """Lines with their own endings (CRLF, LF or CR), and the text after the last ending."""
    lines, start, i = [], 0, 0
    while i < len(text):
        if text[i] in "\r\n":
            ending = "\r\n" if text[i] == "\r" and text[i + 1 : i + 2] == "\n" else text[i]
            lines.append(SseLine(text[start:i], ending))
            i += len(ending)
            start = i
        else:
            i += 1
    return lines, text[start:]


def _read_sse(path: Path | str, text: str, where: str) -> Capture:
    bom = text.startswith("\ufeff")
    lines, rest = _split_lines(text[1:] if bom else text)
    if rest.strip():
        # The server closed the stream right after its last line: kept, if that line completes an event.
        lines.append(SseLine(rest, ""))
    events: list[SseEvent] = []
    current: list[int] = []
    kind, first = "", None
    done_at = terminator = None
    for number, line in enumerate(lines, 1):
        if line.text == "" and line.ending != "":
            line.field = None
            if current:
                assert first is not None  # every field line sets it, and `current` holds a data line
                events.append(SseEvent(current, kind or "message", first))
            current, kind, first = [], "", None
            continue
        if line.text.startswith(":"):
            line.field = ""
            continue
        name, colon, value = line.text.partition(":")
        if not line.ending and (not colon or name not in ("data", "event", "id", "retry")):
            raise BadCapture(
                f"{where}: truncated: the last line ({line.text[:60]!r}) has no line ending, so the stream "
                "stopped mid-event"
            )
        if not colon or name not in ("data", "event", "id", "retry"):
            raise BadCapture(
                f"{where}: line {number} ({line.text[:60]!r}) is not an SSE field; expected "
                "`data:`, `event:`, `id:`, `retry:` or a `:` comment line"
            )
        line.field, line.value = name, value[1:] if value.startswith(" ") else value
        first = first or number
        if name == "data":
            current.append(number - 1)
        elif name == "event":
            kind = line.value
    terminators = {t for p in all_protocols() if (t := p.framing.terminator) is not None}
    if current:
        assert first is not None
        last = SseEvent(current, kind or "message", first)
        if not _complete(last.data(lines), terminators):
            raise BadCapture(f"{where}: truncated: the event at line {first} is not closed by a blank line")
        # Complete, only its closing blank line is missing (the server closed the stream): the line is added,
        # so the fixture's bytes are an event stream a client dispatches the last event of.
        ending = lines[0].ending or "\n"
        lines[-1].ending = lines[-1].ending or ending
        lines.append(SseLine("", ending))
        events.append(last)
    chunks, carriers, labels = [], [], []
    done_event = None
    for event in events:
        data = event.data(lines)
        if data in terminators:
            if done_at is not None:
                raise BadCapture(
                    f"{where}: line {event.line_number}: a second `data: {data}` (the first at line {done_at}): "
                    f"{SEVERAL_RESPONSES}"
                )
            done_at, terminator, done_event = event.line_number, data, event
            continue
        if done_at is not None:
            raise BadCapture(
                f"{where}: line {event.line_number}: an event after `data: {terminator}` (line {done_at}); "
                f"if it begins another response, {SEVERAL_RESPONSES}"
            )
        chunks.append(
            _json_object(data, f"{where}: line {event.line_number}: the event's data", "expected one chunk per event")
        )
        carriers.append(event)
        labels.append(f"line {event.line_number}")
    if not chunks:
        raise BadCapture(
            f"{where}: no event carries a JSON chunk; expected `data: {{...}}` lines separated by blank lines"
        )
    name = detect_protocol(chunks, labels, where)
    _one_response(name, chunks, labels, where)
    own_terminator = protocol(name).framing.terminator
    if done_event is not None and own_terminator is None:
        # A gateway appended another protocol's end marker to a stream that has none: not part of this
        # protocol's stream (its clients never read it), so it is left out of the fixture.
        _drop_event(lines, done_event)
        done_at = None
    elif done_at is not None and terminator != own_terminator:
        ended = _one_of([p.name for p in all_protocols() if p.framing.terminator == terminator])
        raise BadCapture(f"{where}: line {done_at}: `data: {terminator}` ends only an {ended} stream, this is {name}")
    for event, chunk in zip(carriers, chunks):
        if event.event_type not in ("message", chunk.get("type")):
            raise BadCapture(
                f"{where}: line {event.line_number}: `event: {event.event_type}` names another type "
                f"than its data ({chunk.get('type')!r})"
            )
    # A stream of a protocol that has a terminator, captured without it, ended at EOF.
    stream_end = "terminator" if done_at is not None or own_terminator is None else "eof"
    return Capture("sse", name, chunks, stream_end, lines, carriers, bom)


SEVERAL_RESPONSES = (
    "the capture holds several responses end to end, and a fixture holds one stream: save each response "
    "in a file of its own and import each"
)


def _complete(data: str, terminators: set[str]) -> bool:
    """Whether an event's data is whole: a terminator, or JSON text that parses."""
    if data in terminators:
        return True
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _drop_event(lines: list[SseLine], event: SseEvent) -> None:
    """Remove an event's lines, from its first field to the blank line that closes it, from the body."""
    start = event.line_number - 1
    end = event.data_lines[-1] + 1
    while end < len(lines) and lines[end].field is not None:
        end += 1
    del lines[start : end + 1]


def _one_response(name: str, chunks: list[dict[str, Any]], labels: list[str], where: str) -> None:
    """A capture of several responses end to end is refused with where each begins."""
    rules = protocol(name).part("capture")
    starts = [label for chunk, label in zip(chunks, labels) if rules.starts_response(chunk)]
    if len(starts) > 1:
        raise BadCapture(f"{where}: {len(starts)} responses begin (at {', '.join(starts[:5])}); {SEVERAL_RESPONSES}")


# -- HAR -----------------------------------------------------------------------------------------


def _read_har(path: Path, document: dict[str, Any]) -> Capture:
    entries = document["log"].get("entries")
    if not isinstance(entries, list):
        raise BadCapture(f"{path}: a HAR file without log.entries")
    streams = []
    for position, entry in enumerate(entries):
        content = ((entry or {}).get("response") or {}).get("content") or {}
        if "text/event-stream" in str(content.get("mimeType", "")) and isinstance(content.get("text"), str):
            streams.append((position, content))
    if not streams:
        raise BadCapture(
            f"{path}: no HAR entry has a text/event-stream response with its body saved "
            f"({len(entries)} entries; save the HAR with content)"
        )
    if len(streams) > 1:
        raise BadCapture(
            f"{path}: {len(streams)} HAR entries are event streams (entries "
            f"{', '.join(str(p) for p, _ in streams)}); save a HAR with only the one to import"
        )
    position, content = streams[0]
    text = content["text"]
    if content.get("encoding") == "base64":
        try:
            text = base64.b64decode(text, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise BadCapture(
                f"{path}: entry {position}: the base64 body does not decode to UTF-8 text ({exc})"
            ) from None
    capture = _read_sse(path, text, where=f"{path} (HAR entry {position})")
    capture.fmt = "har"
    return capture


# -- protocol ------------------------------------------------------------------------------------


@cache
def _recognisers() -> list[tuple[str, ModuleType]]:
    """(name, capture rules) of every protocol: first those whose chunks name their type (a typed chunk
    may also have the shape an untyped protocol's chunks are known by), each group in the registry's order."""
    parts = [(p.name, p.part("capture")) for p in all_protocols()]
    return sorted(parts, key=lambda part: not part[1].TYPED)


def chunk_protocol(chunk: dict[str, Any]) -> str | None:
    return next((name for name, rules in _recognisers() if rules.recognises(chunk)), None)


def _is_error_frame(chunk: dict[str, Any]) -> bool:
    return any(rules.is_error_frame(chunk) for _, rules in _recognisers())


def _one_of(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def detect_protocol(chunks: list[dict[str, Any]], labels: list[str], where: str) -> str:
    """The one protocol every chunk belongs to; an unknown or mixed chunk is named."""
    found = None
    for chunk, label in zip(chunks, labels):
        this = chunk_protocol(chunk)
        if this is None:
            raise BadCapture(
                f"{where}: {label}: a chunk of no known protocol (keys {', '.join(sorted(chunk)[:6])}); "
                f"expected {_one_of(list(PROTOCOLS))}"
            )
        if found is None:
            found = this
        elif this != found:
            # An error frame alone reads as another protocol's; it belongs to the stream it is in.
            if _is_error_frame(chunk):
                continue
            raise BadCapture(
                f"{where}: {label}: this chunk is {this}, but the stream began as {found}; a capture holds one stream"
            )
    assert found is not None  # the readers pass at least one chunk (a capture without one is a BadCapture first)
    return found
