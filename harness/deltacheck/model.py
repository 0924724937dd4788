"""The fixture model: what a fixture is, and the slice of it an adapter is allowed to see."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from deltacheck.protocols import protocol, transport_for
from deltacheck.protocols.spec import Framing


@dataclass(frozen=True)
class AssemblyRequest:
    """What an adapter receives: the stream and nothing else (never the expected result)."""

    fixture_id: str
    protocol: str
    chunks: tuple[Any, ...]
    stream_end: str = "terminator"
    raw_sse: bytes | None = None  # a transport-level fixture's own bytes (SSE text, or binary frames)
    sse_cuts: tuple[int, ...] | None = None  # byte offsets where the body is cut into network reads
    # Another wire the adapter reads this protocol on (a `Transport` of the protocol: "bedrock-invoke"); None: the
    # protocol's own framing.
    transport: str | None = None

    @cached_property
    def sse(self) -> bytes:
        """The response body, exactly as the loopback server and respx replay serve it: SSE bytes, or the binary
        frames of a framing that is not SSE (Bedrock's event stream, or the transport the request names)."""
        if self.raw_sse is not None:
            return self.raw_sse
        return self.framing.render(self.chunks, self.stream_end)

    @property
    def framing(self) -> Framing:
        """How the body is framed: the transport's framing when the request names one, else the protocol's."""
        carried = transport_for(self.protocol, self.transport)
        return carried.framing if carried is not None else protocol(self.protocol).framing

    @cached_property
    def binary(self) -> bool:
        """Whether the body is binary (a framing that is not SSE: Bedrock's event stream), never text. A request read
        from the wire knows it from the wire (`body_base64`), without asking the protocol registry."""
        return bool(getattr(self.framing, "binary", False))

    @property
    def content_type(self) -> str:
        """The media type of the body: `text/event-stream`, or the binary framing's own."""
        return str(getattr(self.framing, "content_type", "text/event-stream"))

    def to_json(self) -> dict[str, Any]:
        wire = {
            "fixture": self.fixture_id,
            "protocol": self.protocol,
            "chunks": list(self.chunks),
            "stream_end": self.stream_end,
        }
        if self.transport is not None:
            wire["transport"] = self.transport
        if self.sse_cuts:
            wire["sse_cuts"] = list(self.sse_cuts)
        return wire

    def sse_pieces(self) -> list[bytes]:
        """The body as a client reads it: cut at `sse_cuts`, else one piece per event (as a server flushes them)."""
        body = self.sse
        if self.sse_cuts:
            edges = [0, *self.sse_cuts, len(body)]
            return [body[start:end] for start, end in zip(edges, edges[1:])]
        if self.binary:  # one piece per message, as its framing cuts them
            pieces_of = self.framing.pieces  # type: ignore[attr-defined]
            return list(pieces_of(body))
        pieces, start = [], 0
        while (end := body.find(b"\n\n", start)) >= 0:
            pieces.append(body[start : end + 2])
            start = end + 2
        if start < len(body):
            pieces.append(body[start:])
        return pieces


@dataclass(frozen=True)
class Fixture:
    id: str
    title: str
    protocol: str
    tags: tuple[str, ...]
    provenance: dict[str, Any]
    chunks: tuple[Any, ...]
    expected: dict[str, Any] | None  # None for a stream whose recommended outcome is a rejection
    path: str
    stream_end: str = "terminator"
    implementation_defined: dict[str, Any] | None = None
    comment: str | None = None
    sse: str | None = None  # raw SSE text, for transport-level fixtures
    frames: tuple[str, ...] | None = None  # a binary framing's own messages, base64 each, for transport-level fixtures
    sse_cuts: tuple[int, ...] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any], path: str) -> Fixture:
        return cls(
            id=data["id"],
            title=data["title"],
            protocol=data["protocol"],
            tags=tuple(data["tags"]),
            provenance=data["provenance"],
            chunks=tuple(data["chunks"]),
            expected=data.get("expected"),
            path=path,
            stream_end=data.get("stream_end", "terminator"),
            implementation_defined=data.get("implementation_defined"),
            comment=data.get("comment"),
            sse=data.get("sse"),
            frames=tuple(data["frames"]) if data.get("frames") else None,
            sse_cuts=tuple(data["sse_cuts"]) if data.get("sse_cuts") else None,
            raw=data,
        )

    def request(self, transport: str | None = None) -> AssemblyRequest:
        """The fixture with its expectations stripped: all an adapter may know. `transport`: the wire the adapter
        reads (a manifest's `transport`); it applies to fixtures of the protocol it carries, and ValueError says
        why a fixture cannot travel on it (`transport_problem`)."""
        carried = transport_for(self.protocol, transport)
        if carried is None:
            return self._request
        problem = self.transport_problem(transport)
        if problem is not None:
            raise ValueError(f"{self.id}: {problem}")
        return AssemblyRequest(self.id, self.protocol, self.chunks, self.stream_end, transport=carried.name)

    def transport_problem(self, transport: str | None) -> str | None:
        """Why this fixture cannot travel on the transport an adapter reads (its verdict is then n/a), or None.

        Decided here once for every adapter: a fixture that carries its own body (a transport fixture's SSE text:
        comments, split `data:` lines, cuts inside an event) is about bytes another wire cannot carry; any other
        fixture's chunks are rendered by the transport's framing, and its expected result is unchanged.
        """
        carried = transport_for(self.protocol, transport)
        if carried is None or self.own_body is None:
            return None
        body = "SSE text" if self.sse is not None else "frames"
        return f"its own {body} (a transport fixture) has no rendering on {carried.title}, which carries whole events"

    @cached_property
    def _request(self) -> AssemblyRequest:
        # One per fixture: every adapter of a run gets the same request, and its SSE is rendered once.
        return AssemblyRequest(self.id, self.protocol, self.chunks, self.stream_end, self.own_body, self.sse_cuts)

    @property
    def own_body(self) -> bytes | None:
        """A transport-level fixture's own response body: its `sse` text, or its binary `frames` joined."""
        if self.sse is not None:
            return self.sse.encode("utf-8")
        if self.frames is not None:
            return frames_body(self.frames)
        return None

    @property
    def acceptable(self) -> list[dict[str, Any]]:
        return list((self.implementation_defined or {}).get("acceptable", []))

    @property
    def forbidden(self) -> list[dict[str, Any]]:
        return list((self.implementation_defined or {}).get("forbidden", []))

    @property
    def rejection(self) -> dict[str, str] | None:
        """`{"reason", "matches"}` when the recommended outcome is a strict rejection of the stream."""
        return self.raw.get("rejected")

    @property
    def raise_acceptable(self) -> str | None:
        return (self.implementation_defined or {}).get("raise_acceptable")

    @property
    def raise_matches(self) -> str | None:
        return (self.implementation_defined or {}).get("raise_matches")

    @property
    def basis(self) -> dict[str, Any] | None:
        """What the expected result rests on: `{"kind", "source", "servers"?}` (corpus/README.md, Basis)."""
        return self.raw.get("basis")

    @property
    def reports(self) -> list[str]:
        return list(self.provenance.get("reports", []))


def frames_body(frames: tuple[str, ...] | list[str]) -> bytes:
    """The body a fixture's `frames` spell: each message's bytes, base64, joined in order (ValueError if one is
    not base64)."""
    return b"".join(base64.b64decode(frame, validate=True) for frame in frames)
