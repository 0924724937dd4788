"""The project's own assemblers, one per protocol, written for clarity and strictness.

Every fixture's `expected` result must equal what these produce (`deltacheck lint` checks it).
A disagreement is a bug in the fixture or here, decided from the provider's documentation.
"""

from __future__ import annotations

import json
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
    outcome = assembler.finish()
    flag_calls_that_cannot_run(outcome.result)
    return outcome


def flag_calls_that_cannot_run(result: dict[str, Any]) -> None:
    """CONTRACT 3.3, every protocol: a call whose arguments are not JSON when the stream ends is kept,
    with its text as received, and flagged, since no client can execute it."""
    for choice in result["choices"]:
        for part in choice["parts"]:
            if part["type"] == "tool_call" and part["kind"] != "custom" and part["arguments"].strip():
                try:
                    json.loads(part["arguments"])
                except ValueError:
                    part["flagged"] = True


__all__ = ["ASSEMBLERS", "PROTOCOLS", "ReferenceOutcome", "assemble"]
