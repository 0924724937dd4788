"""Broken Anthropic Messages assemblers, one per known bug class of this protocol: the corpus must catch every one.

Each is the reference assembler with exactly one bug put back in. `deltacheck.adequacy.mutants`
turns the declarations at the end into the mutants `deltacheck mutants` runs.
"""

from __future__ import annotations

from deltacheck.protocols.anthropic_messages.reference import AnthropicAssembler


class _EmptyInputAsEmptyString(AnthropicAssembler):
    def finish(self):
        outcome = super().finish()
        blocks = [self.blocks[i] for i in sorted(self.blocks)]
        calls = [b for b in blocks if b.type in ("tool_use", "server_tool_use", "mcp_tool_use")]
        parts = [p for p in outcome.result["choices"][0]["parts"] if p["type"] == "tool_call"]
        for block, part in zip(calls, parts):
            if not block.partial_json:
                part["arguments"] = ""
        return outcome


# (number, name, the bug class in one sentence, broken assembler, the real system it models or "");
# the number is the mutant's M number in REPORT.md (see deltacheck.adequacy.mutants).
MUTANTS = [
    (
        15,
        "anthropic-empty-input-empty-string",
        "Anthropic empty tool input left as an empty string instead of {}",
        _EmptyInputAsEmptyString,
        "",
    ),
]
