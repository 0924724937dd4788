"""Where a history's results live, and reading them back.

`<root>/<adapter>/<version>.jsonl` (root: `results/history`, or the committed `history/` folder) is an
ordinary results file whose header also holds `history`: the package, its registry, the release, and
its status: `scored`, `not-installable` or `not-drivable` (with the reason, one line). A release that
could not be scored has a header and a footer and no results: it is recorded, never left out.
`<root>/<adapter>/bisect.json` holds the bisection (schemas/bisect.schema.json).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import deltacheck
from deltacheck.errors import InvalidResults
from deltacheck.files import locked_for_writing
from deltacheck.history.spec import ordered
from deltacheck.judge.findings import finding_keys
from deltacheck.judge.verdict import PASSING, UNSCORED
from deltacheck.locations import CHECKOUT, file_stem
from deltacheck.running.results import Results, ResultsWriter, read_results

SCORED, NOT_INSTALLABLE, NOT_DRIVABLE = "scored", "not-installable", "not-drivable"
STATUSES = (SCORED, NOT_INSTALLABLE, NOT_DRIVABLE)
BISECT_FILE = "bisect.json"
# The committed history data, beside the corpus in a checkout.
COMMITTED = CHECKOUT / "history" if CHECKOUT is not None else None

FindingKey = tuple[str, str]


@dataclass(frozen=True)
class ReleaseResults:
    """One release's results file, read."""

    version: str
    status: str
    reason: str
    results: Results

    @property
    def scored(self) -> bool:
        return self.status == SCORED

    def findings(self) -> frozenset[FindingKey]:
        return frozenset(key for record in self.results.records for key in finding_keys(record))

    def tally(self) -> dict[str, int]:
        """passed / failed / error (crash and timeout counted as errors) / unscored."""
        counts = {"passed": 0, "failed": 0, "error": 0, "unscored": 0}
        for record in self.results.records:
            verdict = record["verdict"]
            key = (
                "passed"
                if verdict in PASSING
                else "unscored"
                if verdict in UNSCORED
                else "failed"
                if verdict == "fail"
                else "error"
            )
            counts[key] += 1
        return counts


def release_path(root: Path, adapter: str, version: str) -> Path:
    return root / file_stem(adapter) / f"{file_stem(version)}.jsonl"


def header_of(package: str, ecosystem: str, version: str, status: str, reason: str = "", **more: Any) -> dict:
    return {
        "history": {
            "package": package,
            "ecosystem": ecosystem,
            "version": version,
            "status": status,
            "reason": reason,
            **more,
        }
    }


def write_unscorable(path: Path, adapter: dict[str, Any], corpus_version: str, history: dict[str, Any]) -> None:
    """A release that could not be scored: a header saying why, and a footer; no results."""
    with locked_for_writing(path) as handle:
        writer = ResultsWriter(handle)
        writer.header(
            tool="deltacheck",
            tool_version=deltacheck.__version__,
            corpus_version=corpus_version,
            contract_version=deltacheck.CONTRACT_VERSION,
            adapter=adapter,
            **history,
        )
        writer.footer()


def read_release(path: Path) -> ReleaseResults:
    """InvalidResults when the file is not a history results file."""
    results = read_results(path)
    history = results.header.get("history")
    if (
        not isinstance(history, dict)
        or history.get("status") not in STATUSES
        or not isinstance(history.get("version"), str)
    ):
        raise InvalidResults(str(path), 1, "a results file without a history header (package, version, status)")
    if not results.complete:
        raise InvalidResults(str(path), 1, f"release {history['version']}: {results.ending}")
    return ReleaseResults(history["version"], history["status"], str(history.get("reason") or ""), results)


def read_history(folder: Path, skip_unfinished: bool = False) -> list[ReleaseResults]:
    """Every release recorded in one adapter's history folder, oldest first; `skip_unfinished` leaves out a
    release whose file has no footer yet (a run still scoring it) instead of raising InvalidResults."""
    paths = sorted(folder.glob("*.jsonl"))
    if skip_unfinished:
        paths = [path for path in paths if read_results(path).complete]
    releases = [read_release(path) for path in paths]
    if not releases:
        return []
    ecosystem = str(releases[0].results.header["history"].get("ecosystem", "pypi"))
    rank = {version: i for i, version in enumerate(ordered(ecosystem, [r.version for r in releases]))}
    return sorted(releases, key=lambda r: (rank.get(r.version, -1), r.version))


def history_folders(roots: list[Path]) -> dict[str, Path]:
    """Adapter -> its history folder; a folder in an earlier root wins (results/history before the committed data)."""
    found: dict[str, Path] = {}
    for root in roots:
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if p.is_dir() and any(p.glob("*.jsonl"))):
            adapter = _adapter_of(folder)
            if adapter is not None:
                found.setdefault(adapter, folder)
    return found


def _adapter_of(folder: Path) -> str | None:
    """The adapter a history folder records, as its results headers name it."""
    for path in sorted(folder.glob("*.jsonl")):
        try:
            with path.open(encoding="utf-8") as handle:
                header = json.loads(handle.readline())
        except (OSError, ValueError):
            continue
        name = (header.get("adapter") or {}).get("name") if isinstance(header, dict) else None
        if isinstance(name, str):
            return name
    return None


@dataclass(frozen=True)
class AdapterHistory:
    """One adapter's history as reports show it: its releases, oldest first, and its bisection if one was run."""

    adapter: str
    folder: Path
    releases: list[ReleaseResults]
    bisect: dict[str, Any] | None

    @property
    def package(self) -> str:
        return str(self.releases[0].results.header["history"].get("package", "")) if self.releases else ""


def read_histories(roots: list[Path]) -> list[AdapterHistory]:
    """Every adapter's history under the roots (an earlier root wins), by adapter name; InvalidResults for a bad file."""
    out = []
    for adapter, folder in sorted(history_folders(roots).items()):
        bisect_path = folder / BISECT_FILE
        try:
            bisect = json.loads(bisect_path.read_text(encoding="utf-8")) if bisect_path.is_file() else None
        except ValueError as exc:
            raise InvalidResults(str(bisect_path), 1, f"not JSON: {exc}") from None
        releases = read_history(folder, skip_unfinished=True)  # a history being written shows what it has so far
        if releases:
            out.append(AdapterHistory(adapter, folder, releases, bisect if isinstance(bisect, dict) else None))
    return out
