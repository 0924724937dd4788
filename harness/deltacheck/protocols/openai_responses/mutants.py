"""Broken Responses assemblers, one per known bug class of this protocol: the corpus must catch every one.

Each is the reference assembler with exactly one bug put back in; the ones named after a real system
model its documented behaviour as closely as its bug report allows. `deltacheck.adequacy.mutants`
turns the declarations at the end into the mutants `deltacheck mutants` runs.
"""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.openai_responses.reference import ResponsesAssembler, _Item


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
            self.by_item_id[key] = _Item(type="function_call", id=None, call_id=key, output_index=1000 + len(self.by_item_id))
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
]
