"""What a protocol package declares about its wire protocol: the `Protocol` every package exports.

Standard library only, like the package `__init__` files that build one: the generic driver
imports the registry inside an adapter's own environment.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any
from typing import Protocol as Interface

if TYPE_CHECKING:
    from deltacheck.reference.parts import ReferenceOutcome


class Framing(Interface):
    """How a protocol's chunks travel as bytes: rendered for replay, read back for lint and capture."""

    def render(self, chunks: Iterable[Any], stream_end: str = "terminator") -> bytes:
        """The bytes a server sends for these chunks (`stream_end`: "terminator" or "eof")."""
        ...

    def decode(self, body: bytes) -> tuple[list[Any], bool]:
        """(the chunks the body carries, whether the protocol's terminator ended it)."""
        ...

    @property
    def terminator(self) -> str | None:
        """The data that ends a stream on the wire (Chat's `[DONE]`), or None when the stream just ends."""
        ...


@dataclass(frozen=True)
class Transport:
    """Another wire a protocol's stream travels on, for the adapters that declare it (a manifest's `transport`).

    Its framing renders the protocol's chunks in its own bytes (Anthropic Messages events inside Bedrock's
    event-stream messages); the fixtures and their expected results are the protocol's, unchanged. A fixture
    that carries its own body (a transport fixture's SSE text) has no rendering on another wire: it is n/a for
    such an adapter (`deltacheck.model.Fixture.transport_problem`).
    """

    name: str  # as manifests and run requests name it: "bedrock-invoke"
    title: str  # for people: "AWS Bedrock InvokeModelWithResponseStream"
    endpoint: str  # what the request path ends with: "/invoke-with-response-stream"
    framing: Framing  # binary framings also have `binary`, `content_type` and `pieces(body)`


class Assembler(Interface):
    """A reference assembler: fed one chunk at a time, then asked for the outcome."""

    def feed(self, n: int, chunk: Any) -> None: ...

    def finish(self) -> ReferenceOutcome: ...


@dataclass(frozen=True)
class Protocol:
    """One wire protocol, as its package declares it.

    The modules of the package (`reference`, `mutants`, ...) are imported on first use through
    `part`, so listing the protocols costs nothing.
    """

    name: str  # as fixtures, adapters and results name it: "openai-chat"
    package: str  # the dotted name of the package that holds everything about it
    title: str  # for people: "OpenAI Chat Completions"
    short: str  # in route names of gateways: "chat" in litellm-proxy-chat-to-anthropic
    endpoint: str  # the streaming endpoint under a base URL: "/chat/completions"
    # Whose wire format this is: the slug of the provider's own API in corpus/servers.json ("openai").
    # Its documentation is what a `documented` fixture basis cites, and its SDKs promise to read its
    # streams; a shape observed only on other servers is outside that promise.
    provider: str
    framing: Framing
    # Why a capability is absent for every adapter of this protocol: the protocol itself has no such
    # field (or the corpus defines none for it). Adapters add only their library's own reasons.
    capability_notes: dict[str, str] = field(default_factory=dict)
    # CONTRACT 3.2: true where the canonical form omits an empty text, refusal or reasoning part (Chat,
    # whose fields are concatenations, not content parts); the comparator then reads such a part,
    # wherever an implementation reports one, as no part at all.
    empty_parts_omitted: bool = False
    # CONTRACT 4: true where the canonical form joins consecutive text parts that carry nothing but text
    # (Gemini, 3.3 rule 2: the joining is the contract's, Google defines no merged form); the comparator then
    # reads such neighbours as one part, on both sides, so a library that keeps them apart has lost nothing.
    plain_text_parts_join: bool = False
    # Tags (corpus/tags.json) that describe this protocol's ordinary streams rather than a deviation from
    # them, so a smoke check may run fixtures that carry them (a Gemini call has no id and a signature).
    ordinary_tags: frozenset[str] = frozenset()
    # Other wires that carry this protocol's events, each declared by the adapters that read it.
    transports: tuple[Transport, ...] = ()

    def part(self, module: str) -> ModuleType:
        """One module of the protocol's package (`reference`, `mutants`, ...), imported on first use."""
        name = f"{self.package}.{module}"
        return sys.modules.get(name) or importlib.import_module(name)

    def optional_part(self, module: str) -> ModuleType | None:
        """The module if the package has one by that name (a rule only some protocols need), else None."""
        name = f"{self.package}.{module}"
        if name in sys.modules or importlib.util.find_spec(name) is not None:
            return self.part(module)
        return None

    def assembler(self) -> Assembler:
        """A fresh reference assembler for one stream."""
        assembler: Assembler = self.part("reference").Assembler()
        return assembler
