"""Broken Chat Completions assemblers, one per known bug class of this protocol: the corpus must catch every one.

Each is the reference assembler with exactly one bug put back in; the ones named after a real system
model its documented behaviour as closely as its bug report allows. `deltacheck.adequacy.mutants`
turns the declarations at the end into the mutants `deltacheck mutants` runs.
"""

from __future__ import annotations

from deltacheck.protocols.openai_chat.reference import ChatAssembler, _complete, _nonempty
from deltacheck.reference.json_prefix import is_json_prefix


class _AppendsFragments(ChatAssembler):
    """Every tool_calls entry becomes a call of its own, as it arrived."""

    def _feed_tool_call(self, n, choice, entry):
        call = self._open_call(choice, entry.get("index"), None, n)
        function = entry.get("function") or {}
        call.id, call.name = _nonempty(entry.get("id")), _nonempty(function.get("name"))
        if isinstance(function.get("arguments"), str):
            call.arguments = function["arguments"]


class _DropsRefusal(ChatAssembler):
    def _feed_choice(self, n, raw):
        if isinstance(raw, dict) and isinstance(raw.get("delta"), dict):
            raw = {**raw, "delta": {k: v for k, v in raw["delta"].items() if k != "refusal"}}
        super()._feed_choice(n, raw)


class _DropsReasoning(ChatAssembler):
    def _feed_choice(self, n, raw):
        if isinstance(raw, dict) and isinstance(raw.get("delta"), dict):
            raw = {
                **raw,
                "delta": {k: v for k, v in raw["delta"].items() if k not in ("reasoning_content", "reasoning")},
            }
        super()._feed_choice(n, raw)


class _BraintrustSpringAI(_AppendsFragments, _DropsRefusal, _DropsReasoning):
    """Braintrust's reassembleOpenAISSE: appends tool_calls entries, reads only content and tool_calls."""


class _FirstCallPerChunkOnly(ChatAssembler):
    def _feed_choice(self, n, raw):
        delta = raw.get("delta") if isinstance(raw, dict) else None
        if isinstance(delta, dict) and isinstance(delta.get("tool_calls"), list):
            raw = {**raw, "delta": {**delta, "tool_calls": delta["tool_calls"][:1]}}
        super()._feed_choice(n, raw)


class _SpringAIChunkMerger(ChatAssembler):
    """Spring AI 2.0.0 ChunkMerger.mergeDeltas: at most one tool call per chunk (asserted); an entry
    with an id starts a new call, one without is appended to the last call; index is never read;
    chunkToChatCompletion calls Optional.get() on the id and name."""

    def _feed_tool_call(self, n, choice, entry):
        raise AssertionError("replaced by _feed_choice")

    def _feed_choice(self, n, raw):
        delta = raw.get("delta") if isinstance(raw, dict) else None
        calls = delta.get("tool_calls") if isinstance(delta, dict) else None
        if isinstance(calls, list):
            if len(calls) > 1:
                raise AssertionError("no more than one tool call per message currently supported")
            raw = {**raw, "delta": {k: v for k, v in delta.items() if k != "tool_calls"}}
        super()._feed_choice(n, raw)
        if calls:
            choice = self.choices[raw["index"]]
            entry = calls[0]
            function = entry.get("function") or {}
            if entry.get("id") is not None or not choice.calls:
                call = self._open_call(choice, len(choice.calls), None, n)
                call.id, call.name = entry.get("id"), function.get("name")
            call = choice.calls[-1]
            if isinstance(function.get("arguments"), str):
                call.arguments += function["arguments"]

    def finish(self):
        for choice in self.choices.values():
            for call in choice.calls:
                if call.id is None or call.name is None:
                    raise LookupError("NoSuchElementException: No value present")
        return super().finish()


class _LenBoundedLoop(ChatAssembler):
    """weave-os/router ResponsesWriter.assembleOutput: `for i := 0; i < len(toolItems); i++` over a
    map keyed by the upstream tool-call index; a call at an index >= the number of calls is lost."""

    def finish(self):
        for choice in self.choices.values():
            by_index = {call.slot: call for call in choice.calls}
            choice.calls = [by_index[i] for i in range(len(by_index)) if i in by_index]
        return super().finish()


class _KoogStreamFrameBuilder(ChatAssembler):
    """JetBrains Koog buildStreamFrameFlow: one pending call, flushed (completed) whenever a fragment
    with another index arrives; the next fragment for the old index starts a new, nameless call."""

    def _feed_tool_call(self, n, choice, entry):
        slot = entry.get("index")
        function = entry.get("function") or {}
        pending = choice.calls[-1] if choice.calls and not choice.calls[-1].done_emitted else None
        if pending is None or pending.slot != slot:
            if pending is not None:
                pending.done_emitted = True
                self.events.append(
                    {
                        "type": "tool_call_done",
                        "choice": choice.index,
                        "id": pending.id,
                        "name": pending.name,
                        "arguments": pending.arguments,
                        "after_chunk": n,
                    }
                )
            pending = self._open_call(choice, slot, None, n)
            choice.calls.sort(key=lambda c: c.first_seen)
        if _nonempty(entry.get("id")) and pending.id is None:
            pending.id = entry["id"]
        if _nonempty(function.get("name")) and pending.name is None:
            pending.name = function["name"]
        if isinstance(function.get("arguments"), str):
            pending.arguments += function["arguments"]

    def finish(self):
        for choice in self.choices.values():  # keep Koog's flush order, not the index order
            for position, call in enumerate(choice.calls):
                call.slot = position
        return super().finish()


class _IdStartsNewCall(ChatAssembler):
    def _feed_tool_call(self, n, choice, entry):
        if _nonempty(entry.get("id")) is not None and isinstance(entry.get("index"), int):
            choice.current.pop(entry["index"], None)  # forget the call at this index: a fresh one opens
        super()._feed_tool_call(n, choice, entry)


class _SameIndexKeptApart(ChatAssembler):
    """openai-python 3.3.1 accumulate_delta: the first chunk's tool_calls list is stored as is, so a
    second entry for the same index stays a separate (orphaned) call."""

    def _feed_choice(self, n, raw):
        delta = raw.get("delta") if isinstance(raw, dict) else None
        entries = delta.get("tool_calls") if isinstance(delta, dict) else None
        existing = self.choices.get(raw.get("index")) if isinstance(raw, dict) else None
        if not isinstance(entries, list) or (existing is not None and existing.calls):
            return super()._feed_choice(n, raw)
        seen = set()
        kept, orphans = [], []
        for entry in entries:
            slot = entry.get("index") if isinstance(entry, dict) else None
            (orphans if slot in seen else kept).append(entry)
            seen.add(slot)
        super()._feed_choice(n, {**raw, "delta": {**delta, "tool_calls": kept}})
        choice = self.choices[raw["index"]]
        for entry in orphans:  # stored beside the first, never merged with anything again
            call = self._open_call(choice, entry.get("index"), None, n)
            function = entry.get("function") or {}
            call.id, call.name = _nonempty(entry.get("id")), _nonempty(function.get("name"))
            call.arguments = function["arguments"] if isinstance(function.get("arguments"), str) else ""


class _AppendsToLatestCall(ChatAssembler):
    """A fragment for an index already seen goes to the most recently opened call, whoever it belongs to."""

    def _feed_tool_call(self, n, choice, entry):
        slot = entry.get("index")
        if choice.calls and slot in choice.current and choice.calls[-1] is not choice.current[slot]:
            choice.current[slot] = choice.calls[-1]
        super()._feed_tool_call(n, choice, entry)


class _ConcatenatesSetOnce(ChatAssembler):
    """openai-python accumulate_delta: every string is concatenated, ids and names included."""

    def _feed_tool_call(self, n, choice, entry):
        slot = entry.get("index")
        call = choice.current.get(slot) if isinstance(slot, int) else None
        function = entry.get("function") or {}
        repeated_id = call is not None and call.id is not None and entry.get("id") == call.id
        repeated_name = call is not None and call.name is not None and function.get("name") == call.name
        super()._feed_tool_call(n, choice, entry)
        if call is not None and choice.current.get(slot) is call:
            if repeated_id:
                call.id += entry["id"]
            if repeated_name:
                call.name += function["name"]


class _CompletesOnIndexChange(ChatAssembler):
    """Assembles correctly, but reports a call complete as soon as a fragment of another index arrives."""

    def _feed_tool_call(self, n, choice, entry):
        slot = entry.get("index")
        for call in choice.calls:
            if call.slot != slot and not call.done_emitted:
                call.done_emitted = True
                self.events.append(
                    {
                        "type": "tool_call_done",
                        "choice": choice.index,
                        "id": call.id,
                        "name": call.name,
                        "arguments": call.arguments,
                        "after_chunk": n,
                    }
                )
        super()._feed_tool_call(n, choice, entry)


class _EmptyFinishReasonFinishes(ChatAssembler):
    """ "First non-null finish_reason wins", so an empty string finishes the choice and completes its calls."""

    def _feed_choice(self, n, raw):
        fresh = isinstance(raw, dict) and raw.get("finish_reason") == "" and isinstance(raw.get("index"), int)
        choice = self.choices.get(raw.get("index")) if fresh else None
        super()._feed_choice(n, raw)
        choice = choice or (self.choices.get(raw["index"]) if fresh else None)
        if choice is not None and choice.finish_reason is None:
            choice.finish_reason = ""
            self._complete_calls(choice, after_chunk=n)


class _MetadataEntryOpensCall(ChatAssembler):
    """Every tool_calls entry is a fragment of a call, even one that carries only provider metadata."""

    def _feed_tool_call(self, n, choice, entry):
        function = entry.get("function") if isinstance(entry, dict) else None
        carries = isinstance(entry, dict) and (
            _nonempty(entry.get("id"))
            or (
                isinstance(function, dict)
                and (_nonempty(function.get("name")) or function.get("arguments") not in (None, ""))
            )
        )
        if isinstance(entry, dict) and not carries:
            slot = entry.get("index")
            key = -1 if slot is None else slot
            current = choice.current.get(key)
            if current is None or (slot is None and _complete(current)):  # the old rule: open a call
                self._open_call(choice, slot, key, n)
            return
        super()._feed_tool_call(n, choice, entry)


class _NameSnapshotAppended(ChatAssembler):
    """Name fragments always appended: a name re-sent whole after a partial one is doubled."""

    def _feed_tool_call(self, n, choice, entry):
        function = entry.get("function") if isinstance(entry, dict) else None
        slot = entry.get("index") if isinstance(entry, dict) else None
        call = choice.current.get(-1 if slot is None else slot)
        name = _nonempty(function.get("name")) if isinstance(function, dict) else None
        before = call.name if call is not None else None
        super()._feed_tool_call(n, choice, entry)
        if call is not None and before and name and name != before and name.startswith(before) and call.name == name:
            call.name = before + name


class _NumericErrorCodeDropped(ChatAssembler):
    """Only a textual error type or code is read: a numeric code (OpenRouter's 502) is lost."""

    def feed(self, n, chunk):
        super().feed(n, chunk)
        error = chunk.get("error") if isinstance(chunk, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), int) and not error.get("type") and self.error:
            self.error["type"] = None


class _ResentCallArgumentsAppended(ChatAssembler):
    """A whole call emitted again joins the call it repeats, but its arguments are appended to the call's."""

    @staticmethod
    def _take_call_emitted_again(n, call, arguments):
        call.last_chunk = n
        if isinstance(arguments, str):
            call.fragments.append(arguments)


class _SnapshotRewritesArguments(ChatAssembler):
    """The old snapshot rule: a fragment that begins with the arguments so far, where appending could no
    longer form JSON but the fragment alone still can, replaces them, whether or not the stream re-sends."""

    def _add_arguments(self, n, call, value):
        so_far = call.arguments if isinstance(value, str) else ""
        if so_far and value.startswith(so_far) and is_json_prefix(value) and not is_json_prefix(so_far + value):
            call.last_chunk = n
            call.arguments = value
        else:
            super()._add_arguments(n, call, value)


class _ResentCallOpensNewCall(ChatAssembler):
    """A whole call emitted again (same index, id and name) is taken as a second call."""

    @staticmethod
    def _is_resent(call, new_id, new_name, arguments):
        return False


class _IndexlessContinuationOpensCall(ChatAssembler):
    """An index-less fragment always belongs to the index-less sequence, even one that continues an indexed call."""

    @staticmethod
    def _continued_indexed_call(choice):
        return None


class _ExtraContentDropped(ChatAssembler):
    """A tool call's extra_content (Gemini's thought signature) is not kept: the next request is rejected."""

    def finish(self):
        outcome = super().finish()
        for choice in outcome.result["choices"]:
            for part in choice["parts"]:
                if part["type"] == "tool_call":
                    part.pop("extra_content", None)
        return outcome


class _MessageExtraContentDropped(ChatAssembler):
    """The delta's own extra_content (Gemini's thought signature on an answer without function calls) is not
    read: only the OpenAI delta fields and the tool calls' extension objects are kept."""

    def _feed_choice(self, n, raw):
        if isinstance(raw, dict) and isinstance(raw.get("delta"), dict):
            raw = {**raw, "delta": {k: v for k, v in raw["delta"].items() if k != "extra_content"}}
        super()._feed_choice(n, raw)


class _LegacyStubOpensCall(ChatAssembler):
    """Any delta.function_call opens a legacy call, even an empty stub beside tool_calls."""

    def _feed_legacy_function_call(self, n, choice, fragment):
        if choice.legacy is None and isinstance(fragment, dict):
            choice.legacy = self._open_call(choice, None, None, n)
        super()._feed_legacy_function_call(n, choice, fragment)


class _LastFinishReasonWins(ChatAssembler):
    """finish_reason overwritten by every later non-empty value of the choice."""

    def _feed_choice(self, n, raw):
        super()._feed_choice(n, raw)
        if isinstance(raw, dict) and raw.get("finish_reason") not in (None, "") and raw.get("index") in self.choices:
            self.choices[raw["index"]].finish_reason = raw["finish_reason"]


class _ReasoningFieldsBothTaken(ChatAssembler):
    """reasoning_content and reasoning in one delta each contribute their text."""

    def _feed_choice(self, n, raw):
        delta = raw.get("delta") if isinstance(raw, dict) else None
        if (
            isinstance(delta, dict)
            and isinstance(delta.get("reasoning"), str)
            and isinstance(delta.get("reasoning_content"), str)
        ):
            super()._feed_choice(n, {**raw, "delta": {k: v for k, v in delta.items() if k != "reasoning"}})
            self.choices[raw["index"]].reasoning.append(delta["reasoning"])
            return
        super()._feed_choice(n, raw)


# (number, name, the bug class in one sentence, broken assembler, the real system it models or "");
# the number is the mutant's M number in REPORT.md (see deltacheck.adequacy.mutants).
MUTANTS = [
    (
        1,
        "append-instead-of-merge",
        "tool-call fragments appended as new calls instead of merged by index",
        _AppendsFragments,
        "",
    ),
    (
        2,
        "first-call-per-chunk-only",
        "at most one tool call per chunk assumed: later entries of a chunk ignored",
        _FirstCallPerChunkOnly,
        "",
    ),
    (
        3,
        "len-bounded-sparse-loop",
        "calls emitted by a len-bounded loop over a map keyed by sparse indices",
        _LenBoundedLoop,
        "",
    ),
    (
        4,
        "flush-on-index-change",
        "a single pending call flushed whenever the index changes",
        _KoogStreamFrameBuilder,
        "",
    ),
    (5, "id-starts-new-call", "every delta that carries an id is treated as a new call", _IdStartsNewCall, ""),
    (
        7,
        "same-index-entries-kept-apart",
        "duplicate entries for one index in the first chunk kept apart",
        _SameIndexKeptApart,
        "",
    ),
    (
        8,
        "append-to-latest-call",
        "fragments concatenated onto the most recent call regardless of identity",
        _AppendsToLatestCall,
        "",
    ),
    (9, "set-once-concatenated", "set-once fields (id, name) concatenated when repeated", _ConcatenatesSetOnce, ""),
    (
        16,
        "complete-before-last-fragment",
        "a call reported complete before its last fragment",
        _CompletesOnIndexChange,
        "",
    ),
    (
        17,
        "empty-finish-reason-finishes",
        "an empty-string finish_reason taken as the finish reason, completing calls early",
        _EmptyFinishReasonFinishes,
        "",
    ),
    (
        18,
        "metadata-entry-opens-call",
        "a tool_calls entry with only provider metadata opens a phantom call",
        _MetadataEntryOpensCall,
        "",
    ),
    (
        19,
        "name-snapshot-appended",
        "a tool name re-sent whole after a partial fragment is appended to it",
        _NameSnapshotAppended,
        "",
    ),
    (
        20,
        "numeric-error-code-dropped",
        "an error's numeric code (no textual type) lost from the error",
        _NumericErrorCodeDropped,
        "",
    ),
    (
        21,
        "resent-call-arguments-appended",
        "a whole call emitted again has its arguments appended to the call it repeats",
        _ResentCallArgumentsAppended,
        "",
    ),
    (
        22,
        "resent-call-opens-new-call",
        "a whole call emitted again with its own id and name taken as a second call",
        _ResentCallOpensNewCall,
        "",
    ),
    (
        23,
        "legacy-stub-opens-call",
        "an empty legacy function_call stub beside tool_calls opens a phantom call",
        _LegacyStubOpensCall,
        "",
    ),
    (
        24,
        "last-finish-reason-wins",
        "a later finish_reason of the same choice replaces the first",
        _LastFinishReasonWins,
        "",
    ),
    (
        25,
        "reasoning-fields-both-taken",
        "reasoning mirrored into reasoning_content and reasoning taken twice",
        _ReasoningFieldsBothTaken,
        "",
    ),
    (
        26,
        "braintrust-java-springai",
        "tool_calls entries appended, refusal and reasoning deltas dropped",
        _BraintrustSpringAI,
        "Braintrust Java SDK, BraintrustSpringAI.reassembleOpenAISSE (seed 000)",
    ),
    (
        27,
        "spring-ai-2.0.0-chunkmerger",
        "one tool call per chunk asserted; ids open calls, index ignored",
        _SpringAIChunkMerger,
        "Spring AI 2.0.0 OpenAiChatModel.ChunkMerger (seed 002)",
    ),
    (
        28,
        "weave-router-responses-writer",
        "len-bounded loop drops calls at non-contiguous indices",
        _LenBoundedLoop,
        "weave-os/router translate/responses.go assembleOutput (seed 001)",
    ),
    (
        29,
        "koog-stream-frame-builder",
        "interleaved calls completed when the index changes, losing identity",
        _KoogStreamFrameBuilder,
        "JetBrains Koog buildStreamFrameFlow (seed 003, part 2)",
    ),
    (
        44,
        "snapshot-rewrites-arguments",
        "a fragment that begins with the arguments so far replaces them instead of being appended",
        _SnapshotRewritesArguments,
        "",
    ),
    (
        45,
        "indexless-continuation-opens-call",
        "an index-less fragment continuing a call sent with an index opens a nameless call of its own",
        _IndexlessContinuationOpensCall,
        "",
    ),
    (
        46,
        "extra-content-dropped",
        "a tool call's extra_content (Gemini's thought signature) is lost",
        _ExtraContentDropped,
        "",
    ),
    (
        63,
        "message-extra-content-dropped",
        "the delta's own extra_content (Gemini's thought signature on an answer without calls) is lost",
        _MessageExtraContentDropped,
        "",
    ),
]
# Bug classes every protocol shares that this one breaks its own way: the real bugs drop the deltas
# before they are read, where the shared mutant drops the assembled parts.
JOINS = {"refusal-dropped": _DropsRefusal, "reasoning-dropped": _DropsReasoning}
