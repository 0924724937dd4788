"""Broken Gemini assemblers, one per known bug class of this protocol: the corpus must catch every one.

Each is the reference assembler with exactly one bug put back in. `deltacheck.adequacy.mutants`
turns the declarations at the end into the mutants `deltacheck mutants` runs.
"""

from __future__ import annotations

from deltacheck.protocols.gemini.reference import GeminiAssembler, _Call, _Candidate, _Text, _write_partial_arg


class _SignedPartsJoined(GeminiAssembler):
    """Joins every text part into the one before it, signed or not; the joined part keeps the first signature."""

    def _part(self, n, candidate, part):
        if isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("thoughtSignature"):
            last = candidate.parts[-1] if candidate.parts else None
            kind = "reasoning" if part.get("thought") else "text"
            if isinstance(last, _Text) and last.type == kind:
                last.fragments.append(part["text"])
                last.signature = last.signature or part["thoughtSignature"]
                return
        super()._part(n, candidate, part)


class _SignaturesDropped(GeminiAssembler):
    """Reads a part's text or call and nothing beside it: every thoughtSignature is lost."""

    def _part(self, n, candidate, part):
        if isinstance(part, dict):
            part = {key: value for key, value in part.items() if key != "thoughtSignature"}
        super()._part(n, candidate, part)


class _EmptySignedPartDropped(GeminiAssembler):
    """Skips a text part whose text is empty before looking at its signature (gemini-cli's isValidContent)."""

    def _part(self, n, candidate, part):
        if isinstance(part, dict) and part.get("text") == "" and part.get("functionCall") is None:
            return
        super()._part(n, candidate, part)


class _UsageSummed(GeminiAssembler):
    """Adds each chunk's usageMetadata counts to the counts so far, as if they were deltas."""

    def feed(self, n, chunk):
        before = self.usage
        super().feed(n, chunk)
        if before is not None and self.usage is not None and self.usage is not before:
            summed = dict(before)
            for key, value in self.usage.items():
                if isinstance(value, int) and not isinstance(value, bool) and isinstance(summed.get(key), int):
                    summed[key] += value
                else:
                    summed[key] = value
            self.usage = summed


class _CallsKeyedByPositionInChunk(GeminiAssembler):
    """Keys each call by its position among the calls of its chunk, as an OpenAI-style `index`: a call at a
    position an earlier call of the candidate took is merged into that call (BerriAI/litellm PR 11558)."""

    def __init__(self) -> None:
        super().__init__()
        self._positions: dict[int, int] = {}  # candidate index -> calls seen in the chunk being read

    def feed(self, n, chunk):
        self._positions = {}
        super().feed(n, chunk)

    def _function_call(self, n, candidate, call, signature):
        if isinstance(call, dict) and call.get("name") and not call.get("willContinue"):
            position = self._positions.get(candidate.index, 0)
            self._positions[candidate.index] = position + 1
            earlier = [p for p in candidate.parts if isinstance(p, _Call)]
            if position < len(earlier):
                target = earlier[position]
                if isinstance(call.get("args"), dict):
                    target.args = {**(target.args or {}), **call["args"]}
                return
        super()._function_call(n, candidate, call, signature)


class _PartialArgsSetNotAppended(GeminiAssembler):
    """Sets each partialArgs value at its path, strings included: the closing "" empties every streamed string."""

    def _write_partial_arg(self, n, call, position, raw):
        _write_partial_arg(n, call, position, raw, strings="replace")


class _KeepAliveEndsCall(GeminiAssembler):
    """Takes a functionCall part without name or partialArgs as the end of the streaming call, keep-alives too."""

    def _function_call(self, n, candidate, call, signature):
        if isinstance(call, dict) and not call.get("name") and not call.get("partialArgs"):
            call = {}
        super()._function_call(n, candidate, call, signature)


class _CallWithoutArgsDropped(GeminiAssembler):
    """Waits for args or partialArgs before it records a call: one without either is lost (vercel/ai#14847)."""

    def _function_call(self, n, candidate, call, signature):
        if (
            isinstance(call, dict)
            and call.get("name")
            and call.get("args") is None
            and not call.get("partialArgs")
            and not call.get("willContinue")
        ):
            return
        super()._function_call(n, candidate, call, signature)


class _SignatureMovedToReasoning(GeminiAssembler):
    """Gives the signature of the part after a thought part to that thought part (pydantic-ai#3481)."""

    def finish(self):
        for candidate in self.candidates.values():
            for before, after in zip(candidate.parts, candidate.parts[1:]):
                if isinstance(before, _Text) and before.type == "reasoning" and after.signature is not None:
                    before.signature, after.signature = after.signature, None
        return super().finish()


class _FinishOnlyWithContent(GeminiAssembler):
    """Reads a candidate's finishReason only when its chunk also carries content."""

    def _candidate(self, n, raw):
        if isinstance(raw, dict) and raw.get("content") is None:
            raw = {key: value for key, value in raw.items() if key not in ("finishReason", "finishMessage")}
        super()._candidate(n, raw)


class _FinishMessageDropped(GeminiAssembler):
    def finish(self):
        outcome = super().finish()
        for choice in outcome.result["choices"]:
            choice["finish_detail"] = None
        return outcome


class _ErrorChunkIgnored(GeminiAssembler):
    """Skips a chunk without candidates as one that carries nothing, the error object too (hydra#869)."""

    def feed(self, n, chunk):
        if isinstance(chunk, dict) and "error" in chunk and "candidates" not in chunk:
            self.chunks_seen = n + 1
            return
        super().feed(n, chunk)


class _FirstCandidateOnly(GeminiAssembler):
    def _candidate(self, n, raw):
        if isinstance(raw, dict) and raw.get("index", 0) != 0:
            return
        super()._candidate(n, raw)


class _ThoughtFlagIgnored(GeminiAssembler):
    """Reads every text part as answer text: thought summaries leak into the answer (OmniRoute#1298)."""

    def _part(self, n, candidate, part):
        if isinstance(part, dict) and part.get("thought"):
            part = {key: value for key, value in part.items() if key != "thought"}
        super()._part(n, candidate, part)


class _BlockedPromptIgnored(GeminiAssembler):
    """Reads candidates only: a blocked prompt's promptFeedback leaves an empty result."""

    def _prompt_feedback(self, n, feedback):
        pass


class _CompletesAtOpening(GeminiAssembler):
    """Reports a Vertex streamed call complete when its opening part arrives, before its arguments."""

    def _function_call(self, n, candidate: _Candidate, call, signature):
        opened = candidate.open_call
        super()._function_call(n, candidate, call, signature)
        if candidate.open_call is not None and candidate.open_call is not opened:
            self._complete_early(candidate.open_call, candidate, n)

    def _complete_early(self, call: _Call, candidate: _Candidate, n: int) -> None:
        self.events.append(
            {
                "type": "tool_call_done",
                "choice": candidate.index,
                "id": call.id,
                "name": call.name,
                "arguments": "",
                "after_chunk": n,
            }
        )
        call.done = True


class _LastSignatureWins(GeminiAssembler):
    """Keeps one signature per response, the last one seen, on every part that had one (BerriAI/litellm#25869)."""

    def finish(self):
        for candidate in self.candidates.values():
            signed = [part for part in candidate.parts if part.signature is not None]
            for part in signed:
                part.signature = signed[-1].signature
        return super().finish()


# (number, name, the bug class in one sentence, broken assembler, the real system it models or "");
# the number is the mutant's M number in REPORT.md (see deltacheck.adequacy.mutants).
MUTANTS = [
    (
        47,
        "gemini-signed-part-joined",
        "a Gemini part carrying a thoughtSignature is joined with the text part before it",
        _SignedPartsJoined,
        "Gemini CLI's history consolidation, `lastPart.text += part.text` (google-gemini/gemini-cli#25808)",
    ),
    (
        48,
        "gemini-signature-dropped",
        "a Gemini part's thoughtSignature is not kept on the part it came with",
        _SignaturesDropped,
        "streaming paths that rebuild calls from name and args only (crewAIInc/crewAI PR 5552, "
        "strands-agents/sdk-python PR 1212)",
    ),
    (
        49,
        "gemini-empty-signed-part-dropped",
        "an empty Gemini text part is dropped even when it carries the turn's thoughtSignature",
        _EmptySignedPartDropped,
        "Gemini CLI's isValidContent (google-gemini/gemini-cli#25808)",
    ),
    (
        50,
        "gemini-usage-summed",
        "Gemini's cumulative usageMetadata counts are added up across chunks",
        _UsageSummed,
        "",
    ),
    (
        51,
        "gemini-calls-keyed-by-position-in-chunk",
        "Gemini calls keyed by their position within a chunk: a later chunk's call merges into an earlier one",
        _CallsKeyedByPositionInChunk,
        "LiteLLM before PR 11558, which gave each chunk's calls OpenAI indices from 0 (BerriAI/litellm PR 11558)",
    ),
    (
        52,
        "gemini-partial-args-set-not-appended",
        "a Vertex streamed string value is set at its path, not appended: the closing empty piece empties it",
        _PartialArgsSetNotAppended,
        "",
    ),
    (
        53,
        "gemini-keep-alive-ends-call",
        "a Vertex keep-alive functionCall part ({willContinue: true}) ends the streaming call",
        _KeepAliveEndsCall,
        "",
    ),
    (
        54,
        "gemini-call-without-args-dropped",
        "a Gemini functionCall without args or partialArgs is dropped, with its signature",
        _CallWithoutArgsDropped,
        "@ai-sdk/google before PR 14968 (vercel/ai#14847)",
    ),
    (
        55,
        "gemini-signature-moved-to-reasoning",
        "the signature of the Gemini part after a thought part is moved onto the thought part",
        _SignatureMovedToReasoning,
        "pydantic-ai's GoogleModel after PR 3647 (pydantic/pydantic-ai#3481)",
    ),
    (
        56,
        "gemini-finish-reason-needs-content",
        "a Gemini finishReason is read only from a candidate that also carries content",
        _FinishOnlyWithContent,
        "",
    ),
    (57, "gemini-finish-message-dropped", "a Gemini finishMessage is lost", _FinishMessageDropped, ""),
    (
        58,
        "gemini-error-chunk-ignored",
        "a Gemini error object mid-stream is skipped as a chunk without candidates",
        _ErrorChunkIgnored,
        "hydra's streamGemini (ankit373/hydra#869); OmniRoute's Gemini translator (diegosouzapw/OmniRoute#4177)",
    ),
    (59, "gemini-first-candidate-only", "only the first Gemini candidate is read", _FirstCandidateOnly, ""),
    (
        60,
        "gemini-thought-flag-ignored",
        "Gemini thought parts are read as answer text",
        _ThoughtFlagIgnored,
        "OmniRoute's Gemini translator (diegosouzapw/OmniRoute#1298)",
    ),
    (
        61,
        "gemini-blocked-prompt-ignored",
        "a Gemini promptFeedback.blockReason without candidates is ignored: nothing says the prompt was blocked",
        _BlockedPromptIgnored,
        "",
    ),
    (
        62,
        "gemini-last-signature-wins",
        "one Gemini signature per response, the last seen, is given to every signed part",
        _LastSignatureWins,
        "LiteLLM's stream_chunk_builder, which keeps the last list value of provider_specific_fields "
        "(BerriAI/litellm#25869)",
    ),
]

# Shared bug classes this protocol breaks in its own way.
JOINS = {"complete-before-last-fragment": _CompletesAtOpening}
