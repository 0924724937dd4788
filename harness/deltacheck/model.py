"""The fixture model: what a fixture is, and the slice of it an adapter is allowed to see."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from deltacheck.protocols import render_stream


@dataclass(frozen=True)
class AssemblyRequest:
    """What an adapter receives: the stream and nothing else (never the expected result)."""

    fixture_id: str
    protocol: str
    chunks: tuple[Any, ...]
    stream_end: str = "terminator"
    raw_sse: bytes | None = None  # a transport-level fixture's own bytes
    sse_cuts: tuple[int, ...] | None = None  # byte offsets where the body is cut into network reads

    @cached_property
    def sse(self) -> bytes:
        """The stream as SSE bytes, exactly as the loopback server and respx replay serve it."""
        if self.raw_sse is not None:
            return self.raw_sse
        return render_stream(self.protocol, self.chunks, self.stream_end)

    def to_json(self) -> dict[str, Any]:
        wire = {
            "fixture": self.fixture_id,
            "protocol": self.protocol,
            "chunks": list(self.chunks),
            "stream_end": self.stream_end,
        }
        if self.sse_cuts:
            wire["sse_cuts"] = list(self.sse_cuts)
        return wire

    def sse_pieces(self) -> list[bytes]:
        """The body as a client reads it: cut at `sse_cuts`, else one piece per event (as a server flushes them)."""
        body = self.sse
        if self.sse_cuts:
            edges = [0, *self.sse_cuts, len(body)]
            return [body[start:end] for start, end in zip(edges, edges[1:])]
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
            sse_cuts=tuple(data["sse_cuts"]) if data.get("sse_cuts") else None,
            raw=data,
        )

    def request(self) -> AssemblyRequest:
        """The fixture with its expectations stripped: all an adapter may know."""
        return self._request

    @cached_property
    def _request(self) -> AssemblyRequest:
        # One per fixture: every adapter of a run gets the same request, and its SSE is rendered once.
        raw = self.sse.encode("utf-8") if self.sse is not None else None
        return AssemblyRequest(self.id, self.protocol, self.chunks, self.stream_end, raw, self.sse_cuts)

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
