"""Results files: JSON lines, a header, one line per fixture, a footer; flushed line by line.

A run that dies half-way leaves every line it already wrote; `read_results` accepts a file without
a footer and says so.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from deltacheck.errors import InvalidResults

RESULTS_FORMAT = 1


class ResultsWriter:
    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.counts: Counter[str] = Counter()

    def header(self, **fields: Any) -> None:
        self._write({"kind": "header", "format": RESULTS_FORMAT, **fields})

    def record(self, record: dict[str, Any]) -> None:
        self.counts[record["verdict"]] += 1
        self._write(record)

    def footer(self, interrupted: bool = False) -> None:
        self._write({"kind": "footer", "counts": dict(sorted(self.counts.items())), "interrupted": interrupted})

    def _write(self, obj: dict[str, Any]) -> None:
        self.stream.write(json.dumps(obj, ensure_ascii=False, sort_keys=False) + "\n")
        self.stream.flush()


@dataclass
class Results:
    path: str
    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    complete: bool = False

    @property
    def adapter(self) -> dict[str, Any]:
        return self.header.get("adapter", {})


def json_lines(path: Path | str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; InvalidResults names a line that is not JSON."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except ValueError as exc:
                raise InvalidResults(str(path), number, f"not JSON: {exc}") from None


def read_results(path: Path | str) -> Results:
    path = str(path)
    header: dict[str, Any] | None = None
    results: Results | None = None
    for number, obj in json_lines(path):
        kind = obj.get("kind") if isinstance(obj, dict) else None
        if kind == "header":
            if header is not None:
                raise InvalidResults(path, number, "a second header")
            header = obj
            results = Results(path, header)
        elif results is None:
            raise InvalidResults(path, number, "a record before the header")
        elif kind == "result":
            for key in ("fixture", "adapter", "verdict"):
                if key not in obj:
                    raise InvalidResults(path, number, f"result without `{key}`")
            results.records.append(obj)
        elif kind == "footer":
            results.complete = True
        else:
            raise InvalidResults(path, number, f"unknown record kind {kind!r}")
    if results is None:
        raise InvalidResults(path, 1, "empty results file (no header)")
    return results
