"""Findings' upstream: the issue or pull request in the library's own tracker that reports each.

`adapters/<folder>/upstream.json` (and `adapters/{node,jvm,go,gateways}/<folder>/upstream.json`) lists,
for findings of the folder's adapters, the upstream report, its status and the release that fixed it
(schema: harness/deltacheck/judge/schemas/upstream.schema.json). The data is kept in the repository
and read as it is, never fetched at run time. An entry applies to a finding (judge/findings.py) of one
of its adapters with the same axis whose fixtures include one of the entry's: findings are regrouped
whenever the corpus or the library changes, and a fixture id outlives any one grouping.

A file that is not valid is a problem naming the file and the field; the other files still load.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from deltacheck.errors import FileProblem
from deltacheck.files import read_json_data
from deltacheck.judge.findings import Finding
from deltacheck.locations import ADAPTERS_DIR

UPSTREAM_GLOBS = (
    "*/upstream.json",
    "node/*/upstream.json",
    "jvm/*/upstream.json",
    "go/*/upstream.json",
    "gateways/*/upstream.json",
)
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "upstream.schema.json"


@dataclass(frozen=True)
class UpstreamEntry:
    adapters: tuple[str, ...]
    axis: str
    fixtures: tuple[str, ...]
    status: str  # open, fixed, closed-as-intended, closed-unfixed, documented, unreported
    url: str | None
    fixed_in: str | None
    note: str
    source: str = ""  # the file and position it was read from, for messages

    def applies_to(self, adapter: str, finding: Finding) -> bool:
        return (
            adapter in self.adapters
            and finding.axis == self.axis
            and not set(finding.fixtures).isdisjoint(self.fixtures)
        )

    @property
    def summary(self) -> str:
        """One cell of REPORT.md's distinct findings: where the finding stands upstream."""
        if self.status == "open":
            return f"known upstream: {self.url} (open)"
        if self.status == "fixed":
            return f"fixed in {self.fixed_in}: {self.url}"
        if self.status == "closed-as-intended":
            return f"intended: {self.url}"
        if self.status == "closed-unfixed":
            return f"reported, closed without a fix: {self.url}"
        if self.status == "documented":
            return f"documented: {self.url}"
        return "not reported upstream"


class UpstreamProblem(FileProblem):
    """One thing wrong with one upstream.json."""


@dataclass(frozen=True)
class Upstream:
    entries: tuple[UpstreamEntry, ...] = ()
    problems: tuple[UpstreamProblem, ...] = ()

    def of(self, adapter: str, finding: Finding) -> list[UpstreamEntry]:
        """The entries that apply to one finding of one adapter, in file order (usually none or one)."""
        return [entry for entry in self.entries if entry.applies_to(adapter, finding)]


def summary_of(entries: Sequence[UpstreamEntry]) -> str:
    """The upstream cell for a finding: each entry's summary, or "–" when nothing is recorded."""
    return "; ".join(dict.fromkeys(entry.summary for entry in entries)) or "–"


@lru_cache(maxsize=1)
def _validator():  # jsonschema only when upstream data is read (reports, explain, tests)
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def load_upstream(adapters_dir: Path | None = None) -> Upstream:
    """Every upstream.json under `adapters_dir` (default: the bundled adapters), validated; problems name
    the file and the field."""
    adapters_dir = ADAPTERS_DIR if adapters_dir is None else adapters_dir
    entries: list[UpstreamEntry] = []
    problems: list[UpstreamProblem] = []
    for path in sorted({p for pattern in UPSTREAM_GLOBS for p in adapters_dir.glob(pattern)}):
        label = _label(path, adapters_dir)
        entries += _read(path, label, problems)
    return Upstream(tuple(entries), tuple(problems))


def _read(path: Path, label: str, problems: list[UpstreamProblem]) -> Iterable[UpstreamEntry]:
    data, unreadable = read_json_data(path)
    if unreadable:
        problems.append(UpstreamProblem(label, "/", unreadable))
        return []
    bad: set[int] = set()
    for error in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where = list(error.absolute_path)
        if not where:  # the file as a whole is wrong (not a list, or empty)
            problems.append(UpstreamProblem(label, "/", error.message))
            return []
        field = "".join(f"/{p}" for p in where)
        rule = _status_rule(data[where[0]], str(where[-1])) if "allOf" in error.schema_path else ""
        problems.append(UpstreamProblem(label, field, error.message + rule))
        bad.add(int(where[0]))
    return [
        UpstreamEntry(
            adapters=tuple(item["adapters"]),
            axis=item["axis"],
            fixtures=tuple(item["fixtures"]),
            status=item["status"],
            url=item["url"],
            fixed_in=item["fixed_in"],
            note=item["note"],
            source=f"{label} /{position}",
        )
        for position, item in enumerate(data)
        if position not in bad
    ]


def _status_rule(entry: dict[str, Any], key: str) -> str:
    """Why a field breaks one of the schema's rules that depend on the status, in words."""
    status = entry.get("status")
    if key == "fixed_in":
        return (
            " (a `fixed` entry names the release with the fix)"
            if status == "fixed"
            else f" (a `{status}` entry has fixed_in null)"
        )
    if key == "url":
        return (
            " (an `unreported` entry has url null)"
            if status == "unreported"
            else f" (a `{status}` entry links its report or documentation)"
        )
    return ""


def _label(path: Path, adapters_dir: Path) -> str:
    """The file as messages show it: relative to the repository (adapters/litellm/upstream.json)."""
    try:
        return str(path.relative_to(adapters_dir.parent))
    except ValueError:
        return str(path)
