"""Results files: JSON lines, a header, one line per fixture, a footer; flushed line by line.

Before each fixture runs, a short `running` line names it: an in-process adapter can end the
process itself (os._exit, a crash in native code), and then that line is the only record of which
fixture was running. A run that dies half-way leaves every line it already wrote; `read_results`
accepts a file without a footer and says how it ended (`Results.ending`).
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

    def running(self, fixture_id: str) -> None:
        """Name the fixture about to run, flushed before it runs (one short line, built by hand: it is on every fixture's path)."""
        self.stream.write('{"kind": "running", "fixture": ' + json.dumps(fixture_id, ensure_ascii=False) + "}\n")
        self.stream.flush()

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
    interrupted: bool = False
    # The fixture a `running` line named and no result followed: what was running when the file ended.
    running: str | None = None

    @property
    def adapter(self) -> dict[str, Any]:
        return self.header.get("adapter", {})

    @property
    def ending(self) -> str | None:
        """How the run stopped early, in words; None when it ran to its end."""
        done = f"{len(self.records)} fixture(s) recorded"
        if self.complete:
            return f"the run was interrupted (Ctrl-C or SIGTERM): {done}" if self.interrupted else None
        if self.running is not None:
            return (
                f"the run stopped while fixture {self.running} was running, its process gone without a word "
                f"(an in-process adapter that exited or crashed the process, or a kill): {done} before it"
            )
        return f"the run stopped without a footer (its process died): {done}"


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
            except RecursionError:
                raise InvalidResults(str(path), number, "nested too deeply to read") from None


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
            results.running = None
        elif kind == "running":
            results.running = obj.get("fixture") if isinstance(obj.get("fixture"), str) else "(unnamed)"
        elif kind == "footer":
            results.complete = True
            results.interrupted = obj.get("interrupted") is True
        else:
            raise InvalidResults(path, number, f"unknown record kind {kind!r}")
    if results is None:
        raise InvalidResults(path, 1, "empty results file (no header)")
    return results


def running_when_it_ended(path: Path | str) -> str | None:
    """The fixture a results file says was running when its writer died, if it says so and can be read."""
    try:
        return read_results(path).running
    except (InvalidResults, OSError, UnicodeDecodeError):
        return None
