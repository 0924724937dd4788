"""Deliberately broken accumulators, one per known bug class: the corpus must catch every one.

Each mutant is the reference assembler with exactly one bug put back in. The ones named after a
real system model that system's documented behaviour as closely as its bug report allows (the
reports are in the project's seeds). A mutant no fixture catches means a fixture is missing.

Mutants are not adapters: they are not registered, not listed by `deltacheck adapters`, and not
part of the implementation matrix; `deltacheck mutants` runs them and REPORT.md shows the kill matrix.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from deltacheck.adapter import CAPABILITIES
from deltacheck.model import AssemblyRequest
from deltacheck.reference import flag_calls_that_cannot_run
from deltacheck.protocols.anthropic_messages.reference import AnthropicAssembler
from deltacheck.protocols.openai_chat.reference import ChatAssembler, _complete, _nonempty
from deltacheck.protocols.openai_responses.reference import ResponsesAssembler


class Mutant:
    """Duck-types the in-process adapter interface, so the runner and judge treat it like one."""

    name: ClassVar[str]
    bug: ClassVar[str]  # the bug class, one sentence
    models: ClassVar[str] = ""  # the real system whose documented behaviour it reproduces, if any
    protocols: ClassVar[frozenset[str]]
    assemblers: ClassVar[dict[str, type]]
    capabilities = frozenset(CAPABILITIES)
    library = "deltacheck mutants"
    version = "-"
    code_path = "a reference assembler with one bug put back in"

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        assembler = self.assemblers[request.protocol]()
        for n, chunk in enumerate(request.chunks):
            assembler.feed(n, chunk)
        result = assembler.finish().result
        flag_calls_that_cannot_run(result)  # as the reference does: only the one bug differs
        return result

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {"name": cls.name, "bug": cls.bug, "models": cls.models, "protocols": sorted(cls.protocols)}


def _mutant(name: str, bug: str, assemblers: dict[str, type], models: str = "") -> type[Mutant]:
    return type(name, (Mutant,), {"name": name, "bug": bug, "models": models, "assemblers": assemblers,
                                  "protocols": frozenset(assemblers)})


# -- OpenAI Chat Completions ---------------------------------------------------------------------


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
            raw = {**raw, "delta": {k: v for k, v in raw["delta"].items() if k not in ("reasoning_content", "reasoning")}}
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
                self.events.append({"type": "tool_call_done", "choice": choice.index, "id": pending.id,
                                    "name": pending.name, "arguments": pending.arguments, "after_chunk": n})
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
        seen: set[Any] = set()
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
                self.events.append({"type": "tool_call_done", "choice": choice.index, "id": call.id, "name": call.name,
                                    "arguments": call.arguments, "after_chunk": n})
        super()._feed_tool_call(n, choice, entry)


class _EmptyFinishReasonFinishes(ChatAssembler):
    """"First non-null finish_reason wins", so an empty string finishes the choice and completes its calls."""

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
        carries = isinstance(entry, dict) and (_nonempty(entry.get("id")) or (isinstance(function, dict) and (
            _nonempty(function.get("name")) or function.get("arguments") not in (None, ""))))
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


class _CumulativeArgumentsAppended(ChatAssembler):
    """Every arguments fragment is appended, even one that re-sends the whole arguments so far."""

    def _add_arguments(self, n, call, value):
        if isinstance(value, str):
            call.last_chunk = n
            call.arguments += value
        else:
            super()._add_arguments(n, call, value)


class _ResentCallOpensNewCall(ChatAssembler):
    """A whole call emitted again (same index, id and name) is taken as a second call."""

    @staticmethod
    def _is_resent(call, new_id, new_name, arguments):
        return False


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
        if isinstance(delta, dict) and isinstance(delta.get("reasoning"), str) and isinstance(delta.get("reasoning_content"), str):
            super()._feed_choice(n, {**raw, "delta": {k: v for k, v in delta.items() if k != "reasoning"}})
            self.choices[raw["index"]].reasoning.append(delta["reasoning"])
            return
        super()._feed_choice(n, raw)


# -- OpenAI Responses ----------------------------------------------------------------------------


class _KoogResponsesIdentity(ResponsesAssembler):
    """JetBrains Koog OpenAILLMClient: argument deltas are tracked under the event's item_id while the
    completion (output_item.done) is matched by call_id, so the two never meet."""

    def __init__(self):
        super().__init__()
        self.by_item_id: dict[str, Any] = {}

    def _arguments_delta(self, n, event):
        from deltacheck.protocols.openai_responses.reference import _Item
        key = event.get("item_id")
        if key not in self.by_item_id:
            self.by_item_id[key] = _Item(type="function_call", id=None, call_id=key)
            self.items[1000 + len(self.by_item_id)] = self.by_item_id[key]  # a call of its own, after the rest
        self.by_item_id[key].arguments += event.get("delta", "")


class _TerminalOutputIgnored(ResponsesAssembler):
    """The terminal response's output is never read: what the events did not bring is lost."""

    def _fill_from_terminal(self):
        pass


class _CompletesAtArgumentsDone(ResponsesAssembler):
    """The call completes at function_call_arguments.done, though output_item.done may still replace its arguments."""

    def _arguments_done(self, n, event, name):
        super()._arguments_done(n, event, name)
        self._call_done(n, self._item_at(n, event))


def _dropping(base: type, part_types: set[str]) -> type:
    """`base`, losing every part of these types from its result."""
    class Dropping(base):
        def finish(self):
            outcome = super().finish()
            for choice in outcome.result["choices"]:
                choice["parts"] = [p for p in choice["parts"] if p["type"] not in part_types]
            return outcome

    Dropping.__name__ = f"{base.__name__}Dropping{''.join(sorted(part_types)).title()}"
    return Dropping


_ResponsesDropsRefusal = _dropping(ResponsesAssembler, {"refusal"})
_ResponsesDropsReasoning = _dropping(ResponsesAssembler, {"reasoning"})


class _OutputFromCompleted(ResponsesAssembler):
    """Ignores the deltas and copies the terminal response's `output`."""

    def finish(self):
        outcome = super().finish()
        output = (self.terminal or {}).get("output") or []
        fresh = ResponsesAssembler()
        for position, item in enumerate(output):
            fresh.feed(0, {"type": "response.output_item.done", "output_index": position, "item": item})
        fresh.terminal, fresh.error = self.terminal, self.error
        result = fresh.finish().result
        result["events"] = outcome.result["events"]
        outcome.result = result
        return outcome


# -- every protocol ------------------------------------------------------------------------------


def _closed(text: str) -> str:
    """Cut-off JSON text closed the way partial-JSON parsers repair it: open string, then brackets."""
    closers, in_string, escaped = [], False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]" and closers:
            closers.pop()
    return text + ('"' if in_string else "") + "".join(reversed(closers))


def _repairing(base: type) -> type:
    """Arguments cut off mid-JSON are closed into valid JSON and kept as an executable call."""

    class Repairing(base):
        def finish(self):
            outcome = super().finish()
            for choice in outcome.result["choices"]:
                for part in choice["parts"]:
                    if part["type"] == "tool_call" and part["kind"] != "custom" and part["arguments"].strip():
                        try:
                            json.loads(part["arguments"])
                        except ValueError:
                            part["arguments"] = _closed(part["arguments"])
            return outcome

    Repairing.__name__ = f"{base.__name__}Repairing"
    return Repairing


# -- Anthropic Messages --------------------------------------------------------------------------


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


_AnthropicDropsReasoning = _dropping(AnthropicAssembler, {"reasoning", "redacted_reasoning"})


MUTANTS: list[type[Mutant]] = [
    _mutant("append-instead-of-merge", "tool-call fragments appended as new calls instead of merged by index",
            {"openai-chat": _AppendsFragments}),
    _mutant("first-call-per-chunk-only", "at most one tool call per chunk assumed: later entries of a chunk ignored",
            {"openai-chat": _FirstCallPerChunkOnly}),
    _mutant("len-bounded-sparse-loop", "calls emitted by a len-bounded loop over a map keyed by sparse indices",
            {"openai-chat": _LenBoundedLoop}),
    _mutant("flush-on-index-change", "a single pending call flushed whenever the index changes",
            {"openai-chat": _KoogStreamFrameBuilder}),
    _mutant("id-starts-new-call", "every delta that carries an id is treated as a new call",
            {"openai-chat": _IdStartsNewCall}),
    _mutant("responses-delta-item-id-vs-call-id", "Responses argument deltas keyed by item id while completion uses call id",
            {"openai-responses": _KoogResponsesIdentity}),
    _mutant("same-index-entries-kept-apart", "duplicate entries for one index in the first chunk kept apart",
            {"openai-chat": _SameIndexKeptApart}),
    _mutant("append-to-latest-call", "fragments concatenated onto the most recent call regardless of identity",
            {"openai-chat": _AppendsToLatestCall}),
    _mutant("set-once-concatenated", "set-once fields (id, name) concatenated when repeated",
            {"openai-chat": _ConcatenatesSetOnce}),
    _mutant("refusal-dropped", "refusal content dropped",
            {"openai-chat": _DropsRefusal, "openai-responses": _ResponsesDropsRefusal}),
    _mutant("reasoning-dropped", "reasoning content dropped",
            {"openai-chat": _DropsReasoning, "openai-responses": _ResponsesDropsReasoning,
             "anthropic-messages": _AnthropicDropsReasoning}),
    _mutant("responses-output-from-completed", "Responses output taken from the final completed event instead of the deltas",
            {"openai-responses": _OutputFromCompleted}),
    _mutant("responses-terminal-output-ignored", "items or arguments only the terminal response carries are lost",
            {"openai-responses": _TerminalOutputIgnored}),
    _mutant("responses-completes-at-arguments-done", "a call reported complete with arguments its output_item.done then replaces",
            {"openai-responses": _CompletesAtArgumentsDone}),
    _mutant("anthropic-empty-input-empty-string", "Anthropic empty tool input left as an empty string instead of {}",
            {"anthropic-messages": _EmptyInputAsEmptyString}),
    _mutant("complete-before-last-fragment", "a call reported complete before its last fragment",
            {"openai-chat": _CompletesOnIndexChange}),
    _mutant("empty-finish-reason-finishes", "an empty-string finish_reason taken as the finish reason, completing calls early",
            {"openai-chat": _EmptyFinishReasonFinishes}),
    _mutant("metadata-entry-opens-call", "a tool_calls entry with only provider metadata opens a phantom call",
            {"openai-chat": _MetadataEntryOpensCall}),
    _mutant("name-snapshot-appended", "a tool name re-sent whole after a partial fragment is appended to it",
            {"openai-chat": _NameSnapshotAppended}),
    _mutant("numeric-error-code-dropped", "an error's numeric code (no textual type) lost from the error",
            {"openai-chat": _NumericErrorCodeDropped}),
    _mutant("cumulative-arguments-appended", "arguments re-sent whole so far appended to themselves instead of replacing them",
            {"openai-chat": _CumulativeArgumentsAppended}),
    _mutant("resent-call-opens-new-call", "a whole call emitted again with its own id and name taken as a second call",
            {"openai-chat": _ResentCallOpensNewCall}),
    _mutant("legacy-stub-opens-call", "an empty legacy function_call stub beside tool_calls opens a phantom call",
            {"openai-chat": _LegacyStubOpensCall}),
    _mutant("last-finish-reason-wins", "a later finish_reason of the same choice replaces the first",
            {"openai-chat": _LastFinishReasonWins}),
    _mutant("reasoning-fields-both-taken", "reasoning mirrored into reasoning_content and reasoning taken twice",
            {"openai-chat": _ReasoningFieldsBothTaken}),
    _mutant("braintrust-java-springai", "tool_calls entries appended, refusal and reasoning deltas dropped",
            {"openai-chat": _BraintrustSpringAI},
            models="Braintrust Java SDK, BraintrustSpringAI.reassembleOpenAISSE (seed 000)"),
    _mutant("spring-ai-2.0.0-chunkmerger", "one tool call per chunk asserted; ids open calls, index ignored",
            {"openai-chat": _SpringAIChunkMerger},
            models="Spring AI 2.0.0 OpenAiChatModel.ChunkMerger (seed 002)"),
    _mutant("weave-router-responses-writer", "len-bounded loop drops calls at non-contiguous indices",
            {"openai-chat": _LenBoundedLoop},
            models="weave-os/router translate/responses.go assembleOutput (seed 001)"),
    _mutant("koog-stream-frame-builder", "interleaved calls completed when the index changes, losing identity",
            {"openai-chat": _KoogStreamFrameBuilder},
            models="JetBrains Koog buildStreamFrameFlow (seed 003, part 2)"),
    _mutant("koog-responses-adapter", "argument deltas carry the item id, completion the call id",
            {"openai-responses": _KoogResponsesIdentity},
            models="JetBrains Koog OpenAILLMClient Responses streaming (seed 003, part 1)"),
    _mutant("cut-arguments-repaired", "tool arguments cut off mid-JSON closed into valid JSON and presented as a finished call",
            {"openai-chat": _repairing(ChatAssembler), "openai-responses": _repairing(ResponsesAssembler),
             "anthropic-messages": _repairing(AnthropicAssembler)},
            models="LangChain's parse_partial_json repair of truncated tool-call arguments (langchain-ai/langchainjs#11469)"),
]


def mutants_by_name() -> dict[str, type[Mutant]]:
    return {m.name: m for m in MUTANTS}


def run_mutants(corpus, timeout: float = 5.0):
    """One record per mutant x fixture: was the mutant caught (any verdict but pass, n/a, skip)?"""
    from deltacheck.running.runner import run_fixtures  # the runner imports the verdict machinery; keep this module light

    for mutant in MUTANTS:
        fixtures = [f for f in corpus.fixtures if f.protocol in mutant.protocols]
        for record in run_fixtures(mutant(), corpus, fixtures, timeout):
            verdict = record.verdict
            yield {"kind": "kill", "mutant": mutant.name, "fixture": verdict.fixture, "protocol": verdict.protocol,
                   "killed": verdict.verdict in ("fail", "error", "crash", "timeout"), "verdict": verdict.verdict,
                   "message": verdict.message.splitlines()[0] if verdict.message else ""}
