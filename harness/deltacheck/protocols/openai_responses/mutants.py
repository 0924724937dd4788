"""Broken Responses assemblers, one per known bug class of this protocol: the corpus must catch every one.

Each is the reference assembler with exactly one bug put back in; the ones named after a real system
model its documented behaviour as closely as its bug report allows. `deltacheck.adequacy.mutants`
turns the declarations at the end into the mutants `deltacheck mutants` runs.
"""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.openai_responses.reference import BUILTIN_PAYLOADS, ResponsesAssembler, _Item


class _KoogResponsesIdentity(ResponsesAssembler):
    """JetBrains Koog OpenAILLMClient: argument deltas are tracked under the event's item_id while the
    completion (output_item.done) is matched by call_id, so the two never meet."""

    def __init__(self) -> None:
        super().__init__()
        self.by_item_id: dict[str, Any] = {}

    def _arguments_delta(self, n, event):
        key = event.get("item_id")
        if key not in self.by_item_id:
            # a call of its own, after the rest
            self.by_item_id[key] = _Item(
                type="function_call", id=None, call_id=key, output_index=1000 + len(self.by_item_id)
            )
            self.items.append(self.by_item_id[key])
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


class _TerminalMatchedByIdOnly(ResponsesAssembler):
    """The terminal output finds the streamed item by `id` alone (the reference before contract 3): a terminal
    call without an id never completes the call it stands for, which keeps its truncated arguments."""

    def _fill_from_terminal(self):
        output = (self.terminal or {}).get("output")
        for position, raw in enumerate(output if isinstance(output, list) else []):
            item = next((i for i in self.items if raw.get("id") and i.id == raw["id"]), None)
            if item is None and not self._items_at(position):
                item = self._new_item(self.terminal_chunk, raw, position)
            if item is not None and not item.finished and item.type == raw["type"]:
                self._apply_item(self.terminal_chunk, item, raw)


class _TerminalItemDuplicated(ResponsesAssembler):
    """A terminal output item stands for a streamed item only when its id and call_id both match; one whose
    ids a relay re-minted is taken as another item, so a finished call is reported twice."""

    def _stood_for(self, raw, position, claimed):
        return next(
            (
                i
                for i in self.items
                if id(i) not in claimed and i.id == raw.get("id") and i.call_id == raw.get("call_id")
            ),
            None,
        )


class _ArgumentsConflictUnreported(ResponsesAssembler):
    """function_call_arguments.done and output_item.done disagree, and the call is kept as if the stream were
    consistent: one of two contradictory values is presented as executable."""

    def _item_done(self, n, event):
        super()._item_done(n, event)
        for item in self.items:
            item.conflicting = False


class _CompletesOnlyAtArgumentsDone(ResponsesAssembler):
    """A call is reported complete only at function_call_arguments.done: a call whose arguments arrive in its
    output_item.done alone never completes."""

    def _arguments_done(self, n, event, name):
        super()._arguments_done(n, event, name)
        self._call_done(n, self._item_at(n, event))

    def _call_done(self, n, item):
        if item.arguments_done is not None or item.type != "function_call":
            super()._call_done(n, item)


class _BuiltinCallsDropped(ResponsesAssembler):
    """Built-in calls the client must carry out or answer are dropped (the reference before contract 3): the
    turn reads as empty and completed."""

    def finish(self):
        self.items = [item for item in self.items if item.type not in BUILTIN_PAYLOADS]
        return super().finish()


class _BuiltinFromAdded(ResponsesAssembler):
    """A built-in call keeps the item output_item.added carried: a shell_call's in-progress skeleton, with no
    commands yet, is what the client runs (microsoft/agent-framework#6763)."""

    def _apply_builtin(self, n, item, raw):
        if item.payload is None:
            super()._apply_builtin(n, item, raw)


class _HostedShellAsClientCall(ResponsesAssembler):
    """Every shell_call is taken as a call for the client, a hosted one too: the client runs again what the
    API already ran in its container (microsoft/agent-framework#8294)."""

    def _apply_builtin(self, n, item, raw):
        super()._apply_builtin(n, item, raw)
        item.runs_on_server = item.type == "tool_search_call" and item.runs_on_server


# (number, name, the bug class in one sentence, broken assembler, the real system it models or "");
# the number is the mutant's M number in REPORT.md (see deltacheck.adequacy.mutants).
MUTANTS = [
    (
        6,
        "responses-delta-item-id-vs-call-id",
        "Responses argument deltas keyed by item id while completion uses call id",
        _KoogResponsesIdentity,
        "",
    ),
    (
        12,
        "responses-output-from-completed",
        "Responses output taken from the final completed event instead of the deltas",
        _OutputFromCompleted,
        "",
    ),
    (
        13,
        "responses-terminal-output-ignored",
        "items or arguments only the terminal response carries are lost",
        _TerminalOutputIgnored,
        "",
    ),
    (
        14,
        "responses-completes-at-arguments-done",
        "a call reported complete with arguments its output_item.done then replaces",
        _CompletesAtArgumentsDone,
        "",
    ),
    (
        30,
        "koog-responses-adapter",
        "argument deltas carry the item id, completion the call id",
        _KoogResponsesIdentity,
        "JetBrains Koog OpenAILLMClient Responses streaming (seed 003, part 1)",
    ),
    (
        37,
        "responses-terminal-matched-by-id-only",
        "a terminal output item without the streamed item's id never completes it",
        _TerminalMatchedByIdOnly,
        "",
    ),
    (
        38,
        "responses-terminal-item-duplicated",
        "a finished item the terminal output lists under re-minted ids is taken twice",
        _TerminalItemDuplicated,
        "",
    ),
    (
        39,
        "responses-arguments-conflict-unreported",
        "arguments.done and output_item.done disagree and the call is kept as executable",
        _ArgumentsConflictUnreported,
        "",
    ),
    (
        40,
        "responses-completes-only-at-arguments-done",
        "a call whose arguments arrive only in output_item.done never completes",
        _CompletesOnlyAtArgumentsDone,
        "",
    ),
    (
        41,
        "responses-builtin-calls-dropped",
        "built-in calls the client must carry out or answer are dropped",
        _BuiltinCallsDropped,
        "",
    ),
    (
        42,
        "responses-builtin-from-added",
        "a built-in call keeps the in-progress skeleton of its output_item.added",
        _BuiltinFromAdded,
        "Microsoft Agent Framework streaming shell calls (microsoft/agent-framework#6763)",
    ),
    (
        43,
        "responses-hosted-shell-as-client-call",
        "a shell_call the API ran in a hosted container is taken as a call for the client",
        _HostedShellAsClientCall,
        "",
    ),
]
