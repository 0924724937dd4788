"""The REPORT.md sections about the corpus's own strength: mutation kill matrix, fuzzing per adapter, and the
seed reports shown by their mutants and by the real code."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deltacheck.errors import InvalidResults
from deltacheck.history.store import AdapterHistory
from deltacheck.reports.seed_trend import seed_trend_line
from deltacheck.running.results import json_lines


def read_jsonl(path: Path | str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(header, records) of a mutants or fuzz results file."""
    header: dict[str, Any] | None = None
    records = []
    for number, obj in json_lines(path):
        if not isinstance(obj, dict):
            raise InvalidResults(str(path), number, "not a JSON object")
        if obj.get("kind") == "header":
            header = obj
        elif header is None:
            raise InvalidResults(str(path), number, "a record before the header")
        elif obj.get("kind") != "footer":
            records.append(obj)
    if header is None:
        raise InvalidResults(str(path), 1, "empty file (no header)")
    return header, records


def render_mutation(header: dict[str, Any], records: list[dict[str, Any]]) -> list[str]:
    mutants = header["mutants"]
    killers: dict[str, list[str]] = defaultdict(list)
    for record in records:
        if record["killed"]:
            killers[record["mutant"]].append(record["fixture"])
    killed = [m for m in mutants if killers[m["name"]]]
    out = [
        "## Mutation adequacy\n",
        "Deliberately broken accumulators, one per known bug class (`harness/deltacheck/protocols/*/mutants.py`, "
        "and `harness/deltacheck/adequacy/mutants.py` for the classes every protocol shares); a fixture kills a "
        "mutant when the mutant does not pass it. A mutant no fixture kills means a fixture is missing.\n",
        f"Kill rate: **{len(killed)} / {len(mutants)}** mutants killed.\n",
        "| # | mutant | bug class | models | killed by |",
        "|---|---|---|---|---|",
    ]
    for number, mutant in enumerate(mutants, 1):
        ids = sorted(killers[mutant["name"]])
        shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
        out.append(
            f"| M{number} | {mutant['name']} | {mutant['bug']} | {mutant.get('models') or '–'} | "
            f"{len(ids)}: {shown or '**none**'} |"
        )
    out += ["", "Kill matrix (fixtures that kill at least one mutant; `x` = killed):\n"]
    columns = [f"M{n}" for n in range(1, len(mutants) + 1)]
    out.append("| fixture | " + " | ".join(columns) + " |")
    out.append("|---|" + "---|" * len(columns))
    matrix: dict[str, set[str]] = defaultdict(set)
    for record in records:
        if record["killed"]:
            matrix[record["fixture"]].add(record["mutant"])
    for fixture in sorted(matrix):
        out.append(f"| {fixture} | " + " | ".join("x" if m["name"] in matrix[fixture] else "" for m in mutants) + " |")
    out.append("")
    return out


def render_fuzz(runs: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[str]:
    out = [
        "## Fuzzing\n",
        "Per adapter and protocol: re-chunking invariance (other valid streams of each passing fixture's "
        "message, `harness/deltacheck/adequacy/rechunk.py` over each protocol's `rechunking.py`) and robustness "
        "(damaged streams, `harness/deltacheck/adequacy/robustness.py`: a crash, hang or non-canonical result "
        "fails; raising an error is fine). Derandomized; examples are the number of streams tried.\n",
        "| adapter | protocol | mode | fixtures fuzzed | survived | failed | examples | not fuzzed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    failures = []
    for header, records in sorted(
        runs, key=lambda run: (run[0]["adapter"]["name"] != "reference", run[0]["adapter"]["name"])
    ):
        name = header["adapter"]["name"]
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            groups[(record["protocol"], record["mode"])].append(record)
        for (protocol, mode), group in sorted(groups.items()):
            counts = {s: sum(1 for r in group if r["status"] == s) for s in ("survived", "failed", "not fuzzed")}
            examples = sum(r["examples"] for r in group)
            out.append(
                f"| {name} | {protocol} | {mode} | {counts['survived'] + counts['failed']} | {counts['survived']} | "
                f"{counts['failed']} | {examples} | {counts['not fuzzed']} |"
            )
            failures += [(name, r) for r in group if r["status"] == "failed"]
    out.append("")
    if failures:
        out.append("Shrunk counterexamples:\n")
        for name, record in failures:
            out.append(
                f"- **{name}**, {record['mode']}, from {record['fixture']} ({', '.join(record.get('edits', []))}): "
                f"{_cell(record.get('message', ''))}"
            )
        out.append("")
    return out


def _cell(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# The systems the seed reports (shared/seeds, cited by fixtures as `seed:NNN_...`) are about, by the
# `library` their adapters report; a seed missing here has no implementation that can be built.
SEED_LIBRARIES = {"000": ("braintrust-sdk-java",), "002": ("spring-ai-openai",), "003": ("koog",)}
SEED_NOT_BUILDABLE = {
    "001": "weave-os/router is a Go application whose module path the Go module proxy does not serve, so no "
    "implementation of it is scored; its mutant stands in for it",
}
SEED_CITATION = re.compile(r"\(seed (\d{3})")
# Where a seed's bug lives in a part of the library the canonical result does not read, by mutant name:
# why no fixture can show it in the real code's result, whatever the mutant (which models it on the result).
SEED_UNOBSERVABLE = {
    "koog-responses-adapter": "the reported bug is in Koog's ToolCallDelta frames, whose id is the Responses item id "
    "while the ToolCallComplete of the same call carries its call id (seed 003, part 1); the adapter maps the complete "
    "frames (TextComplete, ReasoningComplete, ToolCallComplete, End), and a delta frame's identity has no place in the "
    "canonical result (events are completions only, and Koog's carry no stream position), so no fixture can show this "
    "bug in Koog's output; each cell shows what else the fixture finds there",
}
# The capability an axis of a divergence needs to be seen at all (the others are always expressed).
AXIS_CAPABILITY = {"events": "events", "usage": "usage"}


def render_seeds(
    runs: list[tuple[dict[str, Any], list[dict[str, Any]]]],
    mutation_header: dict[str, Any],
    mutation_records: list[dict[str, Any]],
    histories: Sequence[AdapterHistory] = (),
) -> list[str]:
    """Per seed report: the mutant modelled on its bug, the fixtures that catch that mutant, and the real
    implementation's verdict on each of them (every scored version side by side); with release histories,
    on how many of them each release of the seed's system shows the bug.

    `runs` are (adapter description, records) per implementation.
    """
    killers: dict[str, set[str]] = defaultdict(set)
    mutant_records: dict[tuple[str, str], dict[str, Any]] = {}
    for record in mutation_records:
        if record["killed"]:
            killers[record["mutant"]].add(record["fixture"])
            mutant_records[(record["mutant"], record["fixture"])] = record
    seeded = [
        (match.group(1), mutant)
        for mutant in mutation_header["mutants"]
        if (match := SEED_CITATION.search(mutant.get("models") or ""))
    ]
    if not seeded:
        return []
    out = [
        "## Seed reports and the real code\n",
        "Each seed bug report is modelled by a mutant (`harness/deltacheck/protocols/*/mutants.py`); the fixtures "
        "that catch the mutant reproduce the reported bug, and the table says how the bug shows on each (the "
        "mutant's divergences). Where the system itself can be built, its real code is run on the same fixtures, "
        "and each cell says what that run shows: the seed bug (a failure with one of the mutant's divergences: "
        "same axis, place and kind), another failure (its first divergence, or the exception raised before the "
        "bug could show), n/a (the adapter cannot express what the fixture is about: its reason, from the "
        "library's source), or a pass (the bug does not show there).\n",
    ]
    for seed, mutant in sorted(seeded, key=lambda item: (item[0], item[1]["name"])):
        fixtures = sorted(killers[mutant["name"]])
        out.append(f"### {mutant['models']}\n")
        out.append(f"- mutant: `{mutant['name']}` ({mutant['bug']})")
        out.append(f"- fixtures that catch it: {', '.join(fixtures) if fixtures else '**none**'}")
        # Every scored version of the system that ran at least one of those fixtures (a Chat Completions
        # adapter has nothing to say about a Responses bug).
        implementations = sorted(
            (
                (d, r)
                for d, r in runs
                if d.get("library") in SEED_LIBRARIES.get(seed, ())
                and any(record.get("fixture") in fixtures for record in r)
            ),
            key=lambda run: run[0].get("name", ""),
        )
        if seed in SEED_NOT_BUILDABLE:
            out.append(f"- real implementation: none scored: {SEED_NOT_BUILDABLE[seed]}")
        elif not implementations:
            out.append("- real implementation: not in these results")
        else:
            out.append(
                "- real implementation: "
                + ", ".join(f"{d.get('library')} {d.get('version')} (`{d.get('name')}`)" for d, _ in implementations)
            )
        if implementations and fixtures:
            out.extend(_observability(mutant["name"], fixtures, mutant_records, implementations))
        out.append("")
        if not implementations or not fixtures:
            continue
        names = [f"{d.get('name')} ({d.get('version')})" for d, _ in implementations]
        out.append("| fixture | how the seed bug shows | " + " | ".join(names) + " |")
        out.append("|---|---|" + "---|" * len(names))
        by_fixture = [({r["fixture"]: r for r in records}, d) for d, records in implementations]
        showing: Counter[str] = Counter()
        for fixture in fixtures:
            bug = mutant_records.get((mutant["name"], fixture), {})
            cells = []
            for records, description in by_fixture:
                cell, shows = _seed_cell(records.get(fixture), bug, description)
                cells.append(cell)
                showing[description.get("name", "")] += shows
            out.append(f"| {fixture} | {_md(_bug_shape(bug))} | " + " | ".join(cells) + " |")
        out.append("")
        out.append(
            "The seed bug shows on "
            + "; ".join(
                f"{showing[d.get('name', '')]} of {len(fixtures)} in `{d.get('name')}`" for d, _ in implementations
            )
            + ".\n"
        )
        out.extend(_across_releases(seed, mutant["name"], fixtures, mutant_records, histories))
    return out


def _across_releases(
    seed: str,
    mutant: str,
    fixtures: list[str],
    mutant_records: dict[tuple[str, str], dict[str, Any]],
    histories: Sequence[AdapterHistory],
) -> list[str]:
    """The seed bug in each recorded release of the seed's system (its library's histories)."""

    def shows(records: dict[str, dict[str, Any]], description: dict[str, Any]) -> int:
        return sum(_seed_cell(records.get(f), mutant_records.get((mutant, f), {}), description)[1] for f in fixtures)

    lines = [
        line
        for history in histories
        if history.releases
        and history.releases[-1].results.adapter.get("library") in SEED_LIBRARIES.get(seed, ())
        and (line := seed_trend_line(history, fixtures, shows)) is not None
    ]
    return [*lines, ""] if lines else []


def _observability(
    mutant: str,
    fixtures: list[str],
    mutant_records: dict[tuple[str, str], dict[str, Any]],
    implementations: list[tuple[dict[str, Any], list[dict[str, Any]]]],
) -> list[str]:
    """Whether each implementation's adapter can see the bug where the mutant shows it: the axes of the
    mutant's divergences that need a capability the adapter lacks, with its reason."""
    if mutant in SEED_UNOBSERVABLE:
        return [f"- what the adapters can see: nothing of this bug: {SEED_UNOBSERVABLE[mutant]}"]
    axes = {d.get("axis") for f in fixtures for d in mutant_records.get((mutant, f), {}).get("divergences") or []}
    out = []
    for description, _ in implementations:
        capabilities = set(description.get("capabilities") or [])
        notes = description.get("capability_notes") or {}
        unseen = sorted(
            AXIS_CAPABILITY[a] for a in axes if a in AXIS_CAPABILITY and AXIS_CAPABILITY[a] not in capabilities
        )
        if unseen:
            reasons = "; ".join(f"{c} ({notes[c]})" if c in notes else c for c in unseen)
            out.append(
                f"- `{description.get('name')}` sees the bug except where it shows only on what it lacks: {_md(reasons)}"
            )
    return out


def _keys(divergences: list[dict[str, Any]]) -> list[str]:
    keys: list[str] = []
    for d in divergences:
        key = f"{d.get('axis')} {d.get('place')}: {d.get('kind')}"
        if key not in keys:
            keys.append(key)
    return keys


def _bug_shape(bug: dict[str, Any]) -> str:
    """How the mutant fails the fixture: its divergences, or (results written before they were kept) its message."""
    keys = _keys(bug.get("divergences") or [])
    if keys:
        return "; ".join(keys)
    return _cell(bug.get("message", "") or "–", 160)


def _seed_cell(record: dict[str, Any] | None, bug: dict[str, Any], description: dict[str, Any]) -> tuple[str, bool]:
    """(the cell, whether it shows the seed bug) for one implementation's record of one fixture."""
    if record is None:
        return "not run", False
    verdict = record["verdict"]
    if verdict == "pass":
        return "pass", False
    if verdict == "skip":
        return "skip", False
    if verdict == "n/a":
        lacking = NA_SUBJECT.match(record.get("message", ""))
        if not lacking:
            return "n/a", False
        notes = description.get("capability_notes") or {}
        reasons = [f"{name} ({notes[name]})" if name in notes else name for name in lacking.group(1).split(", ")]
        return _md(f"n/a: cannot express {'; '.join(reasons)}"), False
    if verdict == "fail":
        mine = _keys(record.get("divergences") or [])
        shared = [key for key in mine if key in _keys(bug.get("divergences") or [])]
        if shared:
            return _md(f"**FAIL**: the seed bug ({'; '.join(shared)})"), True
        first = mine[0] if mine else _cell(record.get("message", ""), 160)
        return _md(f"**FAIL**, another defect: {first}"), False
    message = record.get("message", "")
    raised = RAISED_CLASS.match(message)
    what = f"raises {raised.group(1)}" if raised else _cell(message, 120)
    return _md(f"**{verdict.upper()}** before the seed bug could show: {what}"), False


NA_SUBJECT = re.compile(r"^cannot express ([\w, ]+), which this fixture is about")
RAISED_CLASS = re.compile(r"^raised: ([A-Za-z_][\w.]*)")


def _md(text: str) -> str:
    return text.replace("|", "\\|")
