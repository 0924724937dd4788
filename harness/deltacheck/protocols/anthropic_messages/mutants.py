"""Broken Anthropic Messages assemblers, one per known bug class of this protocol: the corpus must catch every one.

Each is the reference assembler with exactly one bug put back in. `deltacheck.adequacy.mutants`
turns the declarations at the end into the mutants `deltacheck mutants` runs.
"""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.anthropic_messages.reference import TOOL_KINDS, AnthropicAssembler, _Block
from deltacheck.reference.parts import json_text


def _calls_with_parts(
    assembler: AnthropicAssembler, parts: list[dict[str, Any]]
) -> list[tuple[_Block, dict[str, Any]]]:
    """Each tool block with the tool_call part the reference made of it, in block order."""
    calls = [assembler.blocks[i] for i in sorted(assembler.blocks) if assembler.blocks[i].type in TOOL_KINDS]
    return list(zip(calls, [p for p in parts if p["type"] == "tool_call"], strict=True))


class _EmptyInputAsEmptyString(AnthropicAssembler):
    def finish(self):
        outcome = super().finish()
        for block, part in _calls_with_parts(self, outcome.result["choices"][0]["parts"]):
            if not block.partial_json:
                part["arguments"] = ""
        return outcome


class _MessageStartContentIgnored(AnthropicAssembler):
    """Reads only usage from message_start, as the reference did before rule 7 (langchain-ai/langchain#34406)."""

    def _message_so_far(self, n, message):
        pass


class _McpToolUseAsFunction(AnthropicAssembler):
    def finish(self):
        outcome = super().finish()
        for block, part in _calls_with_parts(self, outcome.result["choices"][0]["parts"]):
            if block.type == "mcp_tool_use":
                part["kind"] = "function"
        return outcome


class _StartInputThenDeltas(AnthropicAssembler):
    """Takes a start block's input (unless the {} placeholder) as the first fragment of the input text."""

    def _open_block(self, n, index, raw):
        block = super()._open_block(n, index, raw)
        if block.type in TOOL_KINDS and "input" in raw and raw["input"] != {}:
            block.json_fragments.append(json_text(raw["input"]))
        return block


class _ToolCallsOnlyOnToolUseStop(AnthropicAssembler):
    def finish(self):
        outcome = super().finish()
        if self.stop_reason != "tool_use":
            for choice in outcome.result["choices"]:
                choice["parts"] = [p for p in choice["parts"] if p["type"] != "tool_call" or p["kind"] != "function"]
        return outcome


class _StartTextDiscarded(AnthropicAssembler):
    """Starts every text and thinking block from "", whatever its start event carries (earendil-works/pi#7283)."""

    def _open_block(self, n, index, raw):
        block = super()._open_block(n, index, raw)
        if block.type in ("text", "thinking"):
            block.text = ""
        return block


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
    (
        32,
        "anthropic-message-start-content-ignored",
        "Anthropic blocks and stop_reason that message_start already carries are ignored",
        _MessageStartContentIgnored,
        "langchain-anthropic's message_start handler, which builds an empty chunk whatever the message carries "
        "(langchain-ai/langchain#34406)",
    ),
    (
        33,
        "anthropic-mcp-tool-use-as-function",
        "an Anthropic mcp_tool_use block, which the API runs itself, is reported as a function call for the client to run",
        _McpToolUseAsFunction,
        "",
    ),
    (
        34,
        "anthropic-start-input-then-deltas",
        "an Anthropic tool_use start block's input (null or filled) is taken as the first fragment of the input deltas",
        _StartInputThenDeltas,
        "the Anthropic Go SDK's accumulator as trpc-group/trpc-agent-go#1649 and #1997 describe it",
    ),
    (
        35,
        "anthropic-tool-calls-only-on-tool-use-stop",
        "Anthropic tool_use blocks are dropped unless stop_reason is tool_use",
        _ToolCallsOnlyOnToolUseStop,
        "ECA's dispatch on stop_reason (editor-code-assistant/eca#576)",
    ),
    (
        36,
        "anthropic-start-text-discarded",
        "text or thinking already in an Anthropic block's start event is discarded",
        _StartTextDiscarded,
        "pi's Anthropic stream parser (earendil-works/pi#7283)",
    ),
]
