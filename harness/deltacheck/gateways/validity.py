"""Is a downstream stream a valid stream of its protocol, on its own? (CONTRACT.md 6.5)

A gateway's output is read by clients that trust its framing: an item whose end never comes, a
block that is never stopped, a missing terminator or ids that change between events break them
even when every fragment of the message arrived. These rules are the `validity` axis, judged apart
from the content.

This module reads the server-sent events and asks the registry the rest: each protocol's package
has a `validity.py` with

    owns_event_type(kind: str) -> bool     an event `type` only its chunks carry
    owns_shape(chunk: dict) -> bool        an untyped chunk is one of its own by its shape
    stream_problems(chunks, event_names, terminated) -> list[str]
                                           its rules broken by the stream's JSON chunks, given the SSE
                                           event name of each and whether its framing's terminator
                                           ended the stream
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deltacheck.json_spec import NotJson
from deltacheck.json_spec import parse as parse_json
from deltacheck.protocols import all_protocols, protocol
from deltacheck.protocols.sse import parse_event_stream


class NotAStream(Exception):
    """The body cannot be read as a stream of the declared protocol at all."""


@dataclass
class StreamCheck:
    chunks: list[Any]
    problems: list[str] = field(default_factory=list)


def read_stream(name: str, body: bytes) -> StreamCheck:
    """The chunks of `body` and every validity problem; NotAStream when it is no stream of protocol `name`."""
    events = parse_event_stream(body)
    if not events:
        raise NotAStream("the body holds no server-sent event")
    terminator = protocol(name).framing.terminator
    chunks: list[Any] = []
    names: list[str] = []
    terminated = False
    problems: list[str] = []
    not_json: str | None = None
    spoken: str | None = None  # the protocol the stream is plainly written in, by the first event that says
    for position, event in enumerate(events):
        if terminator is not None and event.data == terminator:
            if position != len(events) - 1:
                problems.append(f"{len(events) - position - 1} event(s) after data: {terminator}")
            terminated = True
            break
        try:
            chunk = parse_json(event.data)
        except ValueError as exc:  # not JSON (RFC 8259: NaN is not), or nested too deep to read
            if not_json is None:
                what = "not JSON" if isinstance(exc, NotJson) else "JSON nested too deep to read"
                not_json = f"event {position}: data is {what}: {event.data[:80]!r}"
            spoken = spoken or _terminated_by(event.data)  # another protocol's terminator says which protocol this is
            continue
        chunks.append(chunk)
        names.append(event.type)
        spoken = spoken or detect_protocol([chunk])
    if spoken is not None and spoken != name:
        raise NotAStream(f"it streams {spoken}, not the declared {name}")
    if not_json is not None:
        raise NotAStream(not_json)
    problems += protocol(name).part("validity").stream_problems(chunks, names, terminated)
    return StreamCheck(chunks, problems)


def _terminated_by(data: str) -> str | None:
    return next(
        (p.name for p in all_protocols() if p.framing.terminator is not None and p.framing.terminator == data), None
    )


def detect_protocol(chunks: list[Any]) -> str | None:
    """The protocol the chunks are plainly written in (by the first chunk that says), or None.

    A chunk's event `type` names its protocol before its shape does: a typed event that happens to hold
    what looks like another protocol's fields is still its own protocol's.
    """
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        kind = chunk.get("type")
        if isinstance(kind, str):
            owner = next((p.name for p in all_protocols() if p.part("validity").owns_event_type(kind)), None)
            if owner is not None:
                return owner
        owner = next((p.name for p in all_protocols() if p.part("validity").owns_shape(chunk)), None)
        if owner is not None:
            return owner
    return None
