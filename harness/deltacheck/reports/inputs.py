"""What REPORT.md and the results site are rendered from: the results files of one run, read once.

`deltacheck report` and `deltacheck site` read the same files (results/<adapter>.jsonl, and beside
them fuzz-<adapter>.jsonl, cost-<adapter>.jsonl and mutants.jsonl, and the release histories in
history/ beside them or committed in the checkout), so both go through `results_files` and
`read_inputs`; a malformed file is one InvalidResults naming it. The folders of several runs (the
shards of one, `score --shard`) merge by file name through `merged_files`: the same files, so the
same report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltacheck.history.store import COMMITTED, AdapterHistory, read_histories
from deltacheck.reports.adequacy import read_jsonl
from deltacheck.running.results import Results, read_results

JsonlRun = tuple[dict[str, Any], list[dict[str, Any]]]  # (header, records) of a fuzz, cost or mutants file


@dataclass(frozen=True)
class ReportInputs:
    results: list[Results]
    mutation: JsonlRun | None = None
    fuzz: list[JsonlRun] = field(default_factory=list)
    cost: list[JsonlRun] = field(default_factory=list)
    history: list[AdapterHistory] = field(default_factory=list)

    @property
    def runs(self) -> list[Results]:
        """The reference first, as the baseline; then the implementations by name."""
        return sorted(self.results, key=lambda r: (r.adapter.get("name") != "reference", r.adapter.get("name", "")))


def is_adapter_results(path: Path) -> bool:
    return not path.name.startswith(("fuzz-", "cost-")) and path.name != "mutants.jsonl"


def results_files(results_dir: Path) -> list[Path]:
    """Every adapter's (and gateway route's) results file in a results folder."""
    return sorted(p for p in results_dir.glob("*.jsonl") if is_adapter_results(p))


@dataclass(frozen=True)
class InputFiles:
    results: list[Path]
    mutation: Path | None = None
    fuzz: Sequence[Path] = ()
    cost: Sequence[Path] = ()
    # Where release histories are read from, the first holding an adapter's winning: results/history, then the
    # history data committed in the checkout.
    history: Sequence[Path] = ()


def history_roots(results_dir: Path) -> list[Path]:
    return [results_dir / "history", *([COMMITTED] if COMMITTED is not None else [])]


def files_beside(files: list[Path]) -> InputFiles:
    """The results files, and the fuzz, cost and mutants files that exist beside them."""
    folder = files[0].parent if files else Path("results")
    fuzz = sorted(folder / f"fuzz-{path.stem}.jsonl" for path in files)
    cost = sorted(folder / f"cost-{path.stem}.jsonl" for path in files)
    return InputFiles(
        files,
        folder / "mutants.jsonl",
        [f for f in fuzz if f.exists()],
        [f for f in cost if f.exists()],
        history_roots(folder),
    )


class DuplicateResults(Exception):
    """One file name in two results folders: which run's to trust is not ours to guess."""

    def __init__(self, first: Path, second: Path) -> None:
        super().__init__(f"{first} and {second}: {first.name} is in two results folders; remove one of them")


def merged_files(folders: Sequence[Path]) -> InputFiles:
    """Every results file of several folders, each file name from one folder only (DuplicateResults
    otherwise), in the order one folder holding them all would give."""
    found: dict[str, Path] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")):
            if path.name in found:
                raise DuplicateResults(found[path.name], path)
            found[path.name] = path
    results = [path for name, path in sorted(found.items()) if is_adapter_results(path)]

    def beside(kind: str) -> list[Path]:  # as files_beside: only those of a results file given
        return sorted((found[n] for n in (f"{kind}-{p.stem}.jsonl" for p in results) if n in found), key=_name)

    histories = [*(folder / "history" for folder in folders), *([COMMITTED] if COMMITTED is not None else [])]
    return InputFiles(results, found.get("mutants.jsonl"), beside("fuzz"), beside("cost"), histories)


def _name(path: Path) -> str:
    return path.name


def read_inputs(files: InputFiles) -> ReportInputs:
    """Read every file; raises InvalidResults (naming the file and line) for a malformed one."""
    mutation = files.mutation
    return ReportInputs(
        [read_results(path) for path in files.results],
        read_jsonl(mutation) if mutation is not None and mutation.exists() else None,
        [read_jsonl(path) for path in files.fuzz],
        [read_jsonl(path) for path in files.cost if path.exists()],
        read_histories(list(files.history)),
    )
