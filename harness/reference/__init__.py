"""The project's own assemblers, one per protocol, written for clarity and strictness.

Every fixture's `expected` result must equal what these produce (`deltacheck lint` checks it).
A disagreement is a bug in the fixture or here, decided from the provider's documentation.
"""

from __future__ import annotations

from typing import Any, Iterable

from deltacheck.reference._parts import ReferenceOutcome
from deltacheck.reference.anthropic import AnthropicAssembler
from deltacheck.reference.chat import ChatAssembler
from deltacheck.reference.responses import ResponsesAssembler

ASSEMBLERS = {
    "openai-chat": ChatAssembler,
    "openai-responses": ResponsesAssembler,
    "anthropic-messages": AnthropicAssembler,
}
PROTOCOLS = tuple(ASSEMBLERS)


def assemble(protocol: str, chunks: Iterable[Any]) -> ReferenceOutcome:
    """Assemble a whole stream; raises AssemblyError naming the chunk it cannot assemble."""
    assembler = ASSEMBLERS[protocol]()
    for n, chunk in enumerate(chunks):
        assembler.feed(n, chunk)
    return assembler.finish()


__all__ = ["ASSEMBLERS", "PROTOCOLS", "ReferenceOutcome", "assemble"]
