"""Distinct findings: an implementation's failures grouped by defect, not counted per fixture.

CONTRACT.md 4.1. A failing fixture's divergences are read as strands, one per thing an implementation
assembles on its own: its parts and completion events together (a call merged into another shows as
an unexpected call *and* wrong arguments, and as events for calls that do not exist: one defect),
then each field beside them (finish reason, finish detail, error, usage, the validity of a gateway's
stream). A strand's divergence path, its (axis, place, kind) divergences with indices generalised, in a
fixed order (by axis, then place), is its finding: fixtures whose strands read the same share the finding, and a
fixture counts once per finding it shows, so one policy (usage invented when none was streamed) is
one finding however many fixtures it touches, and two defects that happen to share one place (a
call merged into another, and arguments cut at a multi-byte character) are two. The tags of each
finding's fixtures are listed beside it: the stream shapes the defect appears on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deltacheck.judge.compare import AXES

RAISED = re.compile(r"^raised: ([A-Za-z_][\w.]*)")
INVALID = re.compile(r"^returned something that is not a canonical result: (\S+?):")
# The axes of what an implementation assembles into parts (and reports as events while it does).
PARTS_STRAND = ("content", "identity", "arguments", "ordering", "events")
# Tags that say what a fixture holds, not which stream shape it is; left out of a finding's shapes.
CONTENT_TAGS = frozenset({"text", "tool-call"})


@dataclass
class Finding:
    axis: str  # the axis, or the axes of a parts strand joined with ", "
    what: str  # the divergence path: each "place: kind", joined with "; "
    fixtures: list[str] = field(default_factory=list)
    shapes: Counter[str] = field(default_factory=Counter)  # the fixtures' tags, counted

    def shapes_text(self, limit: int = 6) -> str:
        """The stream shapes it appears on, most fixtures first: "parallel-calls 4, sparse-index 2"."""
        ranked = sorted(self.shapes.items(), key=lambda item: (-item[1], item[0]))
        shown = ", ".join(f"{tag} {count}" for tag, count in ranked[:limit])
        return shown + (f", … ({len(ranked) - limit} more)" if len(ranked) > limit else "") if ranked else "–"


def finding_keys(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(axis, what) for each distinct finding one failing record shows: one per strand."""
    verdict, message = record.get("verdict"), record.get("message", "")
    if verdict == "fail":
        strands: dict[str, list[tuple[str, str]]] = {}
        for divergence in record.get("divergences", []):
            axis = divergence.get("axis", "?")
            place = divergence.get("place") or divergence.get("pointer", "?")
            strand = "parts" if axis in PARTS_STRAND else _field_of(axis, place)
            step = (axis, f"{place}: {divergence.get('kind', 'differs')}")
            if step not in strands.setdefault(strand, []):
                strands[strand].append(step)
        keys = [_key(steps) for steps in strands.values()]
        return keys or [("?", record.get("first_divergence") or message)]
    if verdict == "error":
        if match := RAISED.match(message):
            return [("error", f"raises {match.group(1)}")]
        if match := INVALID.match(message):
            return [("error", f"no canonical result: {match.group(1)}")]
        return [("error", message.split(":", 1)[0])]
    if verdict in ("crash", "timeout"):
        return [(verdict, verdict)]
    return []


def _field_of(axis: str, place: str) -> str:
    """The strand of a divergence outside the parts: its field (`/choices/*/finish_reason`, `/usage`)."""
    if axis == "usage":
        return "usage"  # every key of the usage object together: one object, filled in by one policy
    return place.split(" (", 1)[0] if place.startswith("/") else axis


def _key(steps: Sequence[tuple[str, str]]) -> tuple[str, str]:
    # A fixed order (axis, then place and kind), not the document's, which depends on how parts align.
    steps = sorted(steps, key=lambda step: (AXES.index(step[0]) if step[0] in AXES else len(AXES), step))
    axes = list(dict.fromkeys(axis for axis, _ in steps))
    if len(axes) == 1:
        return axes[0], "; ".join(what for _, what in steps)
    return ", ".join(axes), "; ".join(f"{axis} {what}" for axis, what in steps)


def distinct_findings(
    records: Iterable[dict[str, Any]], fixture_tags: Mapping[str, Sequence[str]] | None = None
) -> list[Finding]:
    """Most fixtures first; ties by axis and description, so the order is stable.

    `fixture_tags`: each fixture's tags (from the corpus), counted into its findings' shapes.
    """
    findings: dict[tuple[str, str], Finding] = {}
    for record in records:
        for axis, what in finding_keys(record):
            finding = findings.setdefault((axis, what), Finding(axis, what))
            if record["fixture"] not in finding.fixtures:  # a result record always names it (read_results checks)
                finding.fixtures.append(record["fixture"])
                tags = (fixture_tags or {}).get(record["fixture"], ())
                finding.shapes.update(tag for tag in tags if tag not in CONTENT_TAGS)
    return sorted(findings.values(), key=lambda f: (-len(f.fixtures), f.axis, f.what))
