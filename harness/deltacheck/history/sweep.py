"""A history run: score each release named (a sweep), or only those a bisection needs, reusing every
release already recorded for the same corpus; then write bisect.json."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltacheck.errors import InvalidResults
from deltacheck.files import write_text_atomically
from deltacheck.history.bisect import Bisected, Bisector, witnesses
from deltacheck.history.store import BISECT_FILE, FindingKey, ReleaseResults, read_release, release_path
from deltacheck.history.target import Target
from deltacheck.judge.findings import distinct_findings

Scorer = Callable[[str], ReleaseResults]  # scores one release (or records why it cannot be)


@dataclass
class History:
    target: Target
    versions: Sequence[str]  # oldest first
    root: Path
    corpus_version: str
    score: Scorer
    releases: dict[str, ReleaseResults] = field(default_factory=dict)
    scored_now: list[str] = field(default_factory=list)  # releases scored by this run (the others were reused)

    def recorded(self, version: str) -> ReleaseResults | None:
        """The release as recorded for this corpus version, if it is (a file from another corpus is scored again)."""
        path = release_path(self.root, self.target.adapter, version)
        if not path.is_file():
            return None
        try:
            release = read_release(path)
        except (InvalidResults, OSError, UnicodeDecodeError):
            return None
        return release if release.results.header.get("corpus_version") == self.corpus_version else None

    def release(self, version: str, reuse: bool = True) -> ReleaseResults:
        if version not in self.releases:
            found = self.recorded(version) if reuse else None
            if found is None:
                found = self.score(version)
                self.scored_now.append(version)
            self.releases[version] = found
        return self.releases[version]

    def findings_of(self, version: str) -> frozenset[FindingKey] | None:
        release = self.release(version)
        return release.findings() if release.scored else None

    def sweep(self, reuse: bool = False) -> list[ReleaseResults]:
        return [self.release(version, reuse) for version in self.versions]

    def bisect(self) -> tuple[str | None, list[Bisected], Bisector]:
        """The newest scored release, and each finding of it (and of any release already recorded) bisected."""
        bisector = Bisector(self.versions, self.findings_of)
        newest = None
        for version in reversed(self.versions):  # down from the newest until one can be scored
            if bisector.findings(version) is not None:
                newest = version
                break
        if newest is None:
            return None, [], bisector
        for version in self.versions:  # releases recorded before (a sweep, an earlier bisection) join in free
            if version not in bisector.known and (found := self.recorded(version)) is not None:
                self.releases[version] = found
                bisector.known[version] = found.findings() if found.scored else None
        known = [(v, bisector.known.get(v)) for v in self.versions if v in bisector.known]
        results = [bisector.bisect(finding, witness) for finding, witness in sorted(witnesses(known).items())]
        return newest, results, bisector


def fixtures_of(releases: dict[str, ReleaseResults], finding: FindingKey, witness: str) -> list[str]:
    for item in distinct_findings(releases[witness].results.records):
        if (item.axis, item.what) == finding:
            return item.fixtures
    return []


def bisect_document(
    history: History, newest: str | None, bisected: list[Bisected], bisector: Bisector
) -> dict[str, Any]:
    releases = history.releases
    shown = {b.finding: w for b in bisected for w in [_last_showing(bisector, b.finding)] if w}
    return {
        "adapter": history.target.adapter,
        "package": history.target.package,
        "ecosystem": history.target.ecosystem,
        "corpus_version": history.corpus_version,
        "versions": list(history.versions),
        "newest_scored": newest,
        "probed": [v for v in history.versions if v in bisector.known],
        "unscorable": [
            {"version": v, "status": releases[v].status, "reason": releases[v].reason}
            for v in bisector.unscorable()
            if v in releases
        ],
        "findings": [
            {
                "axis": b.finding[0],
                "what": b.finding[1],
                "fixtures": fixtures_of(releases, b.finding, shown[b.finding]) if b.finding in shown else [],
                "since": b.since,
                "since_oldest": b.since_oldest,
                "fixed_in": b.fixed_in,
                "skipped": list(b.skipped),
            }
            for b in bisected
        ],
    }


def _last_showing(bisector: Bisector, finding: FindingKey) -> str | None:
    showing = [v for v in bisector.versions if (bisector.known.get(v) or frozenset()) & {finding}]
    return showing[-1] if showing else None


def write_bisect(folder: Path, document: dict[str, Any]) -> Path:
    path = folder / BISECT_FILE
    write_text_atomically(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    return path


def summary_line(entry: dict[str, Any]) -> str:
    """ "DC-XXXX (+2) arguments: …: since 1.52.0, fixed in 2.3.1" / "…: since 1.52.0, still present"."""
    fixtures = entry["fixtures"]
    who = (fixtures[0] + (f" (+{len(fixtures) - 1})" if len(fixtures) > 1 else "")) if fixtures else "–"
    what = entry["what"] if len(entry["what"]) <= 100 else entry["what"][:99] + "…"
    since = ("at or before " if entry["since_oldest"] else "since ") + entry["since"]
    end = f"fixed in {entry['fixed_in']}" if entry["fixed_in"] else "still present"
    skipped = f" (unscorable in between: {', '.join(entry['skipped'])})" if entry["skipped"] else ""
    return f"{who} {entry['axis']}: {what}: {since}, {end}{skipped}"
