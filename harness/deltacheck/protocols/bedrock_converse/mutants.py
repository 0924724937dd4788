"""Broken Bedrock ConverseStream assemblers, one per known bug class of this protocol: the corpus must catch each.

Each is the reference assembler with exactly one bug put back in. `deltacheck.adequacy.mutants` turns the
declarations at the end into the mutants `deltacheck mutants` runs. (A damaged or cut-off message is a
reader's bug below the events these assemblers see: the transport fixtures judge it on real clients.)
"""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.bedrock_converse.reference import BedrockConverseAssembler, _Block


class _DeltaWithoutStartDropped(BedrockConverseAssembler):
    """Keeps only blocks a contentBlockStart opened: text and reasoning blocks, which have none, are lost."""

    def _delta(self, n, event):
        if event.get("contentBlockIndex") in self.blocks:
            super()._delta(n, event)


class _BlockIndexAsChoiceIndex(BedrockConverseAssembler):
    """Puts each block on the choice its contentBlockIndex names, as an OpenAI choice index."""

    def finish(self):
        outcome = super().finish()
        parts, choices = outcome.result["choices"][0]["parts"], {}
        kept = [self.blocks[i] for i in sorted(self.blocks) if _has_part(self.blocks[i])]
        for block, part in zip(kept, parts):
            choices.setdefault(block.index, []).append(part)
        first = outcome.result["choices"][0]
        outcome.result["choices"] = [{**first, "index": i, "parts": choices[i]} for i in sorted(choices)] or [first]
        return outcome


def _has_part(block: _Block) -> bool:
    from deltacheck.protocols.bedrock_converse.reference import _canonical

    return _canonical(block) is not None


class _EmptyInputParsedAsJson(BedrockConverseAssembler):
    """Parses each call's joined input as JSON when it stops: an empty input raises, as json.loads("") does."""

    def _complete(self, n, block):
        if block.kind == "tool" and not block.input.text():
            raise ValueError("Expecting value: line 1 column 1 (char 0)")
        super()._complete(n, block)


class _SignatureOnlyDeltaSkipped(BedrockConverseAssembler):
    """Reads a reasoningContent delta only when its text is truthy, so the signature delta is skipped."""

    def _apply(self, n, block, member, value):
        if member == "reasoningContent" and "redactedContent" not in value and not value.get("text"):
            return
        super()._apply(n, block, member, value)


class _ConsecutiveCallsMerged(BedrockConverseAssembler):
    """Merges each toolUse block into the call before it when the two follow each other, joining their ids, names
    and inputs (a dict merge that concatenates strings)."""

    def finish(self):
        outcome = super().finish()
        parts: list[dict[str, Any]] = []
        for part in outcome.result["choices"][0]["parts"]:
            last = parts[-1] if parts else None
            if last is not None and last["type"] == part["type"] == "tool_call":
                for key in ("id", "name", "arguments"):
                    last[key] = (last[key] or "") + (part[key] or "")
            else:
                parts.append(part)
        outcome.result["choices"][0]["parts"] = parts
        return outcome


class _OnlyLastCallKept(BedrockConverseAssembler):
    """Holds one current tool call: each toolUse start replaces the one before."""

    def finish(self):
        outcome = super().finish()
        parts = outcome.result["choices"][0]["parts"]
        calls = [p for p in parts if p["type"] == "tool_call"]
        outcome.result["choices"][0]["parts"] = [p for p in parts if p["type"] != "tool_call" or p is calls[-1]]
        return outcome


class _ExceptionIgnored(BedrockConverseAssembler):
    """Skips exception and error messages as unknown events: the stream looks merely cut off."""

    def feed(self, n, chunk):
        if isinstance(chunk, dict) and len(chunk) == 1 and next(iter(chunk)).endswith(("Exception", "Error")):
            self.chunks_seen = n + 1
            return
        super().feed(n, chunk)


class _SignatureOnlyBlockDropped(BedrockConverseAssembler):
    """Drops a reasoning block whose text is empty when it stops, its signature with it."""

    def finish(self):
        outcome = super().finish()
        choice = outcome.result["choices"][0]
        choice["parts"] = [p for p in choice["parts"] if p["type"] != "reasoning" or p["text"]]
        return outcome


class _CallsOnlyOnToolUseStop(BedrockConverseAssembler):
    """Reports tool calls only when stopReason is tool_use."""

    def finish(self):
        outcome = super().finish()
        if self.stop_reason != "tool_use":
            choice = outcome.result["choices"][0]
            choice["parts"] = [p for p in choice["parts"] if p["type"] != "tool_call"]
        return outcome


class _InputNeverJoined(BedrockConverseAssembler):
    """Builds each call from its start alone: the input deltas are never folded back, so every call has {}."""

    def _apply(self, n, block, member, value):
        if member != "toolUse":
            super()._apply(n, block, member, value)


class _ParallelInputsConcatenated(BedrockConverseAssembler):
    """Keeps one input buffer for the whole message: every call's input lands on the first call."""

    def _apply(self, n, block, member, value):
        if member == "toolUse":
            first = next(b for i, b in sorted(self.blocks.items()) if b.kind == "tool")
            first.input.append(value["input"])
            first.last_chunk = n
            return
        super()._apply(n, block, member, value)


# (number, name, the bug class in one sentence, broken assembler, the real system it models or "");
# the number is the mutant's M number in REPORT.md (see deltacheck.adequacy.mutants).
MUTANTS = [
    (
        64,
        "bedrock-delta-without-block-start-dropped",
        "Bedrock text and reasoning deltas of a block no contentBlockStart opened are dropped",
        _DeltaWithoutStartDropped,
        "hermes-agent's Converse reader before NousResearch/hermes-agent#115290 and #109753",
    ),
    (
        65,
        "bedrock-block-index-as-choice-index",
        "Bedrock contentBlockIndex is used as the choice index, so a call after text lands on choice 1",
        _BlockIndexAsChoiceIndex,
        "LiteLLM's Bedrock Converse chunk parser before BerriAI/litellm#19506",
    ),
    (
        66,
        "bedrock-empty-input-parsed-as-json",
        "a Bedrock toolUse whose input is empty is parsed as JSON and fails instead of having no arguments",
        _EmptyInputParsedAsJson,
        "LiteLLM's Bedrock tool-call handling before BerriAI/litellm#11550 (a 500 on '')",
    ),
    (
        67,
        "bedrock-signature-only-delta-skipped",
        "a Bedrock reasoningContent delta without text is skipped, losing the signature that comes alone",
        _SignatureOnlyDeltaSkipped,
        "llama-index BedrockConverse's truthiness check on reasoningContent text (run-llama/llama_index#20851)",
    ),
    (
        68,
        "bedrock-consecutive-calls-merged",
        "two Bedrock toolUse blocks in a row are merged into one call, their ids, names and inputs joined",
        _ConsecutiveCallsMerged,
        "llama-index BedrockConverse's join_two_dicts merge of tool calls (run-llama/llama_index#18760)",
    ),
    (
        69,
        "bedrock-only-last-call-kept",
        "of several Bedrock toolUse blocks only the last is kept",
        _OnlyLastCallKept,
        "pipecat's AWS Bedrock service before pipecat-ai/pipecat#4918",
    ),
    (
        70,
        "bedrock-exception-ignored",
        "a Bedrock exception message inside the stream is skipped, so the cut-off answer looks whole",
        _ExceptionIgnored,
        "",
    ),
    (
        71,
        "bedrock-signature-only-block-dropped",
        "a Bedrock reasoning block with a signature and no text is dropped",
        _SignatureOnlyBlockDropped,
        "rig-bedrock's ContentBlockStop handling before 0xPlaygrounds/rig#1683 (issue #1684)",
    ),
    (
        72,
        "bedrock-calls-only-on-tool-use-stop",
        "Bedrock toolUse blocks are dropped unless stopReason is tool_use",
        _CallsOnlyOnToolUseStop,
        "strands-agents' stop-reason override before strands-agents/harness-sdk#1838 (issue #1810)",
    ),
    (
        73,
        "bedrock-tool-input-never-joined",
        "Bedrock toolUse input deltas are never joined into the call, which keeps {} as its arguments",
        _InputNeverJoined,
        "crewAI's Bedrock streaming before crewAIInc/crewAI#6150 (issues #6149, #7243)",
    ),
    (
        74,
        "bedrock-parallel-inputs-concatenated",
        "the input deltas of several Bedrock toolUse blocks are joined into the first call",
        _ParallelInputsConcatenated,
        "@ai-sdk/amazon-bedrock before vercel/ai#3071 (issue #3068: {..}{..} arguments)",
    ),
]
