"""Distinct findings: an implementation's failures grouped by defect, not counted per fixture.

CONTRACT.md 4.1: one finding per (axis, kind of divergence, place). A fixture counts once per
finding it shows, so one design choice that touches thirty fixtures is one finding with thirty
fixtures, beside the raw per-fixture scores.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

RAISED = re.compile(r"^raised: ([A-Za-z_][\w.]*)")
INVALID = re.compile(r"^returned something that is not a canonical result: (\S+?):")


@dataclass
class Finding:
    axis: str
    what: str
    fixtures: list[str] = field(default_factory=list)


def finding_keys(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(axis, what) for each distinct finding one failing record shows."""
    verdict, message = record.get("verdict"), record.get("message", "")
    if verdict == "fail":
        keys = []
        for divergence in record.get("divergences", []):
            place = divergence.get("place") or divergence.get("pointer", "?")
            key = (divergence.get("axis", "?"), f"{place}: {divergence.get('kind', 'differs')}")
            if key not in keys:
                keys.append(key)
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


def distinct_findings(records: Iterable[dict[str, Any]]) -> list[Finding]:
    """Most fixtures first; ties by axis and description, so the order is stable."""
    findings: dict[tuple[str, str], Finding] = {}
    for record in records:
        for axis, what in finding_keys(record):
            finding = findings.setdefault((axis, what), Finding(axis, what))
            if record["fixture"] not in finding.fixtures:  # a result record always names it (read_results checks)
                finding.fixtures.append(record["fixture"])
    return sorted(findings.values(), key=lambda f: (-len(f.fixtures), f.axis, f.what))
