"""The project's own assemblers, one per protocol (in each protocol's package), written for clarity and strictness.

Every fixture's `expected` result must equal what these produce (`deltacheck lint` checks it).
A disagreement is a bug in the fixture or there, decided from the provider's documentation. This
package holds what they share: the canonical parts they build (`parts`), fragment joining
(`fragments`, `json_prefix`), and the rules that hold for every protocol (below).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from deltacheck.json_spec import is_json
from deltacheck.protocols import protocol
from deltacheck.reference.parts import ReferenceOutcome


def assemble(protocol_name: str, chunks: Iterable[Any]) -> ReferenceOutcome:
    """Assemble a whole stream; raises AssemblyError naming the chunk it cannot assemble."""
    assembler = protocol(protocol_name).assembler()
    for n, chunk in enumerate(chunks):
        assembler.feed(n, chunk)
    outcome = assembler.finish()
    flag_calls_that_cannot_run(outcome.result)
    return outcome


def flag_calls_that_cannot_run(result: dict[str, Any]) -> None:
    """CONTRACT 3.3, every protocol: a call whose arguments are not JSON when the stream ends is kept,
    with its text as received, and flagged, since no client can execute it. JSON is RFC 8259's
    (json_spec): NaN arguments are flagged, a 5000-digit integer is not."""
    for choice in result["choices"]:
        for part in choice["parts"]:
            if part["type"] == "tool_call" and part["kind"] != "custom" and part["arguments"].strip():
                if not is_json(part["arguments"]):
                    part["flagged"] = True


__all__ = ["ReferenceOutcome", "assemble", "flag_calls_that_cannot_run"]
