"""The wire protocols deltacheck speaks, one package each, and the registry the rest of the harness asks.

Everything that knows one wire format lives in its package, `deltacheck/protocols/<package>/`;
no other module of the harness names a protocol. A package holds:

    __init__.py      PROTOCOL: its name, title, endpoint, provider, framing codec and capability notes
                     (`deltacheck.protocols.spec.Protocol`); standard library only
    reference.py     Assembler: the strict reference assembler (CONTRACT.md, the protocol's section)

and the modules the concerns of the harness look up through `Protocol.part(...)`: its mutants,
re-chunking edits and unknown event, long-stream layouts, capture and redaction rules, drafting
scaffold, reproduction defaults, and its sides of gateway translation, stream validity and client
requests (docs/ARCHITECTURE.md lists each module with what it must define). Adding a protocol is
adding one package and its name to `PACKAGES` below, plus its fixtures, its chunk schema (a
`$defs` entry of corpus/schema/chunks.schema.json), its CONTRACT.md section and its adapters.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from deltacheck.protocols.spec import Protocol, Transport

# In the order reports list them; the first is the default upstream of a gateway.
PACKAGES = ("openai_chat", "openai_responses", "anthropic_messages", "gemini", "bedrock_converse")

REGISTRY: dict[str, Protocol] = {}
for _package in PACKAGES:
    _protocol: Protocol = importlib.import_module(f"{__name__}.{_package}").PROTOCOL
    REGISTRY[_protocol.name] = _protocol

PROTOCOLS: tuple[str, ...] = tuple(REGISTRY)

# Every other wire a protocol's events travel on, by its name: (the protocol, the transport).
TRANSPORTS: dict[str, tuple[Protocol, Transport]] = {
    _transport.name: (_protocol, _transport) for _protocol in REGISTRY.values() for _transport in _protocol.transports
}


class UnknownProtocol(LookupError):
    """A protocol name no package declares."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown protocol {name!r}; known protocols: {', '.join(PROTOCOLS)}")
        self.name = name


def protocol(name: str) -> Protocol:
    """The registered protocol of that name; UnknownProtocol otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownProtocol(name) from None


class UnknownTransport(LookupError):
    """A transport name no protocol declares."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown transport {name!r}; known transports: {', '.join(TRANSPORTS) or 'none'}")
        self.name = name


def transport(name: str) -> tuple[Protocol, Transport]:
    """(the protocol whose events it carries, the transport) for a transport's name; UnknownTransport otherwise."""
    try:
        return TRANSPORTS[name]
    except KeyError:
        raise UnknownTransport(name) from None


def transport_for(protocol_name: str, transport_name: str | None) -> Transport | None:
    """The transport an adapter that declares `transport_name` reads a stream of `protocol_name` on: the declared
    one when it carries that protocol, else None (the protocol's own framing)."""
    if transport_name is None:
        return None
    owner, found = transport(transport_name)
    return found if owner.name == protocol_name else None


def all_protocols() -> tuple[Protocol, ...]:
    return tuple(REGISTRY.values())


def render_stream(name: str, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
    """The bytes a server of that protocol sends for these chunks."""
    return protocol(name).framing.render(chunks, stream_end)


def decode_stream(name: str, body: bytes) -> tuple[list[Any], bool]:
    """(the chunks a body of that protocol carries, whether the protocol's terminator ended it)."""
    return protocol(name).framing.decode(body)


__all__ = [
    "PROTOCOLS",
    "TRANSPORTS",
    "Protocol",
    "Transport",
    "UnknownProtocol",
    "UnknownTransport",
    "all_protocols",
    "decode_stream",
    "protocol",
    "render_stream",
    "transport",
    "transport_for",
]
