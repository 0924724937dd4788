"""Deliberately broken accumulators, one per known bug class: the corpus must catch every one.

Each mutant is a protocol's reference assembler with exactly one bug put back in. The ones named
after a real system model that system's documented behaviour as closely as its bug report allows
(the reports are in the project's seeds). A mutant no fixture catches means a fixture is missing.

Mutants are not adapters: they are not registered, not listed by `deltacheck adapters`, and not
part of the implementation matrix; `deltacheck mutants` runs them and REPORT.md shows the kill matrix.

Where they come from. A protocol package may hold a `mutants.py` declaring

    MUTANTS = [(number, name, bug, broken, models), ...]   the bug classes of that protocol: `broken`
        subclasses its reference assembler, `bug` is one sentence, `models` names the real system
        it reproduces (or is "")
    JOINS = {name: broken, ...}   bug classes declared elsewhere (in SHARED below, or by another
        protocol's package) that this protocol breaks in a way of its own

The bug classes every protocol can have (`SHARED`: refusal or reasoning dropped, cut-off arguments
repaired) are declared once, here, and applied to the reference assembler of each registered
protocol whose wire carries what they break (its `capability_notes` do not say the capability is
absent), unless the protocol has a broken assembler of its own for them. A new protocol package
thus gets the shared mutants without any `mutants.py`.

Numbers. A bug class's number is its M number in REPORT.md's kill matrix, which people cite: the
numbers run 1, 2, 3 ... across all protocols (a gap or a number taken twice is an error), a new bug
class takes the next free number wherever it is declared, and a protocol that joins an existing
class adds its assembler under that class's number, renumbering nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from deltacheck.adapter import CAPABILITIES
from deltacheck.json_spec import is_json
from deltacheck.model import AssemblyRequest
from deltacheck.protocols import Protocol, all_protocols
from deltacheck.reference import flag_calls_that_cannot_run


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
    return type(
        name,
        (Mutant,),
        {"name": name, "bug": bug, "models": models, "assemblers": assemblers, "protocols": frozenset(assemblers)},
    )


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
                        if not is_json(part["arguments"]):
                            part["arguments"] = _closed(part["arguments"])
            return outcome

    Repairing.__name__ = f"{base.__name__}Repairing"
    return Repairing


@dataclass(frozen=True)
class SharedBugClass:
    """A bug class every protocol can have, made from any protocol's reference assembler."""

    number: int
    name: str
    bug: str  # one sentence
    breaks: Callable[[type], type]  # a protocol's reference assembler -> the same with this bug put in
    needs: str | None = None  # the capability a protocol's wire must carry for the bug to exist (CONTRACT.md)
    models: str = ""


SHARED = [
    SharedBugClass(
        10, "refusal-dropped", "refusal content dropped", lambda base: _dropping(base, {"refusal"}), needs="refusal"
    ),
    SharedBugClass(
        11,
        "reasoning-dropped",
        "reasoning content dropped",
        lambda base: _dropping(base, {"reasoning", "redacted_reasoning"}),
        needs="reasoning",
    ),
    SharedBugClass(
        31,
        "cut-arguments-repaired",
        "tool arguments cut off mid-JSON closed into valid JSON and presented as a finished call",
        _repairing,
        models="LangChain's parse_partial_json repair of truncated tool-call arguments "
        "(langchain-ai/langchainjs#11469)",
    ),
]


@dataclass
class _BugClass:
    number: int
    name: str
    bug: str
    models: str
    assemblers: dict[str, type] = field(default_factory=dict)  # protocol name -> broken assembler


def _bug_classes(protocols: Sequence[Protocol]) -> list[_BugClass]:
    """Every bug class of these protocols with each protocol's broken assembler, by number."""
    classes: dict[str, _BugClass] = {}

    def declare(number: int, name: str, bug: str, models: str) -> _BugClass:
        known = classes.setdefault(name, _BugClass(number, name, bug, models))
        if (known.number, known.bug, known.models) != (number, bug, models):
            raise ValueError(f"mutant {name!r} is declared twice, differently")
        return known

    for shared in SHARED:
        declare(shared.number, shared.name, shared.bug, shared.models)
    packages = {protocol.name: protocol.optional_part("mutants") for protocol in protocols}
    for protocol_name, package in packages.items():
        for number, name, bug, broken, models in getattr(package, "MUTANTS", ()):
            declare(number, name, bug, models).assemblers[protocol_name] = broken
    for protocol in protocols:
        joins = getattr(packages[protocol.name], "JOINS", {})
        for name, broken in joins.items():
            if name not in classes:
                raise ValueError(f"{protocol.package}.mutants joins {name!r}, a bug class nothing declares")
            classes[name].assemblers[protocol.name] = broken
        for shared in SHARED:  # to every protocol whose wire can have the bug and that breaks it no way of its own
            if protocol.name not in classes[shared.name].assemblers and shared.needs not in protocol.capability_notes:
                classes[shared.name].assemblers[protocol.name] = shared.breaks(protocol.part("reference").Assembler)
    ordered = sorted(classes.values(), key=lambda bug_class: bug_class.number)
    if [bug_class.number for bug_class in ordered] != list(range(1, len(ordered) + 1)):
        raise ValueError(
            "mutant numbers must run 1, 2, 3 ... with none taken twice: "
            + ", ".join(f"{bug_class.number} {bug_class.name}" for bug_class in ordered)
        )
    return ordered


MUTANTS: list[type[Mutant]] = [_mutant(c.name, c.bug, c.assemblers, c.models) for c in _bug_classes(all_protocols())]


def run_mutants(corpus, timeout: float = 5.0):
    """One record per mutant x fixture: was the mutant caught (any verdict but pass, n/a, skip)?"""
    from deltacheck.running.runner import (
        run_fixtures,  # the runner imports the verdict machinery; keep this module light
    )

    for mutant in MUTANTS:
        fixtures = [f for f in corpus.fixtures if f.protocol in mutant.protocols]
        for record in run_fixtures(mutant(), corpus, fixtures, timeout):  # type: ignore[arg-type]  # a Mutant duck-types Adapter
            verdict = record.verdict
            yield {
                "kind": "kill",
                "mutant": mutant.name,
                "fixture": verdict.fixture,
                "protocol": verdict.protocol,
                "killed": verdict.verdict in ("fail", "error", "crash", "timeout"),
                "verdict": verdict.verdict,
                "message": verdict.message.splitlines()[0] if verdict.message else "",
                # where the bug shows, so the seed section can tell a real library's failure that is
                # this bug from one that is not (reports/adequacy.py)
                "divergences": [{key: d[key] for key in ("axis", "place", "kind")} for d in verdict.divergences],
            }
