"""Expectations: the verdict each fixture is expected to get from one adapter, checked in for CI.

A TOML file a person can review and edit:

    adapter = "mylib-chat"
    corpus_version = "1.2.0"

    [verdicts]
    DC-0KW2 = "pass"
    DC-8499 = { verdict = "fail", reason = "drops the call after an index gap", bug = "https://..." }

A run compared with it is clean when every verdict is the expected one. A different verdict is a
regression (expected pass), an unexpected pass (so the file is kept current), or a changed failure
(fail became error, ...). Fixtures the file does not name are new to the corpus and listed apart.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from deltacheck.files import write_text_atomically

VERDICTS = ("pass", "fail", "error", "crash", "timeout", "n/a", "skip")
FIXTURE_ID = re.compile(r"^DC-[0-9A-Z]{4,}$")

HEADER = """\
# deltacheck expectations: the verdict each fixture is expected to get from one adapter.
# `deltacheck run --expectations FILE` (or pytest --deltacheck-expectations FILE) fails on any other
# verdict; `deltacheck run --expectations FILE --update-expectations` rewrites this file from a run.
# Give a failing entry a reason and a bug link, for example:
#   DC-8499 = { verdict = "fail", reason = "drops the call after an index gap", bug = "https://..." }
"""


class ExpectationsError(ValueError):
    """A missing or malformed expectations file, or an entry it cannot hold; names the file and entry."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)


@dataclass(frozen=True)
class Expectation:
    verdict: str
    reason: str | None = None
    bug: str | None = None

    def describe(self) -> str:
        extra = "; ".join(x for x in (self.reason, self.bug) if x)
        return self.verdict + (f" ({extra})" if extra else "")


@dataclass
class Expectations:
    path: Path
    adapter: str | None
    corpus_version: str | None
    entries: dict[str, Expectation] = field(default_factory=dict)


def load_expectations(path: Path, known_ids: Iterable[str], retired_ids: Iterable[str] = ()) -> Expectations:
    """Read and check a file; every problem is an ExpectationsError naming the file and the entry."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExpectationsError(path, "no such expectations file (create it with --update-expectations)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ExpectationsError(path, f"unreadable: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExpectationsError(path, f"not valid TOML: {exc}") from None
    unknown_keys = set(data) - {"adapter", "corpus_version", "verdicts"}
    if unknown_keys:
        raise ExpectationsError(
            path, f"unknown key {sorted(unknown_keys)[0]!r} (expected adapter, corpus_version, [verdicts])"
        )
    for key in ("adapter", "corpus_version"):
        if key in data and not isinstance(data[key], str):
            raise ExpectationsError(path, f"{key}: expected a string")
    verdicts = data.get("verdicts", {})
    if not isinstance(verdicts, dict):
        raise ExpectationsError(path, "verdicts: expected a table of fixture id = verdict")
    known, retired = set(known_ids), set(retired_ids)
    entries = {}
    for fixture_id, value in verdicts.items():
        where = f"verdicts.{fixture_id}"
        if fixture_id in retired:
            raise ExpectationsError(path, f"{where}: {fixture_id} is retired from the corpus; remove the entry")
        if fixture_id not in known:
            raise ExpectationsError(path, f"{where}: no fixture {fixture_id} in the corpus")
        entries[fixture_id] = _entry(path, where, value)
    return Expectations(Path(path), data.get("adapter"), data.get("corpus_version"), entries)


def _entry(path: Path, where: str, value: object) -> Expectation:
    if isinstance(value, str):
        value = {"verdict": value}
    if not isinstance(value, dict):
        raise ExpectationsError(
            path, f"{where}: expected a verdict string or {{ verdict = ..., reason = ..., bug = ... }}"
        )
    extra = set(value) - {"verdict", "reason", "bug"}
    if extra:
        raise ExpectationsError(path, f"{where}: unknown key {sorted(extra)[0]!r} (expected verdict, reason, bug)")
    verdict = value.get("verdict")
    if verdict not in VERDICTS:
        raise ExpectationsError(path, f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    for key in ("reason", "bug"):
        if key in value and not isinstance(value[key], str):
            raise ExpectationsError(path, f"{where}.{key}: expected a string")
    return Expectation(verdict, value.get("reason"), value.get("bug"))


@dataclass(frozen=True)
class Difference:
    fixture_id: str
    kind: str  # regression, unexpected pass, changed
    expected: Expectation
    observed: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.fixture_id} expected {self.expected.describe()}, got {self.observed}"


def classify(expected: Expectation, observed: str) -> str | None:
    """None when the verdict is the expected one; else what kind of difference it is."""
    if observed == expected.verdict:
        return None
    if expected.verdict == "pass":
        return "regression"
    if observed == "pass":
        return "unexpected pass"
    return "changed"


@dataclass
class Comparison:
    differences: list[Difference]
    new: dict[str, str]  # fixture id -> verdict, for fixtures the file does not name

    @property
    def clean(self) -> bool:
        return not self.differences


def compare_verdicts(expectations: Expectations, verdicts: Mapping[str, str]) -> Comparison:
    differences, new = [], {}
    for fixture_id, observed in sorted(verdicts.items()):
        expected = expectations.entries.get(fixture_id)
        if expected is None:
            new[fixture_id] = observed
            continue
        kind = classify(expected, observed)
        if kind is not None:
            differences.append(Difference(fixture_id, kind, expected, observed))
    return Comparison(differences, new)


def write_expectations(
    path: Path, adapter: str, corpus_version: str, verdicts: Mapping[str, str], previous: Expectations | None = None
) -> None:
    """Write the run's verdicts; a reason and bug link kept for entries that still do not pass.

    Entries for fixtures this run did not cover are kept as they were. Written atomically.
    """
    entries = dict(previous.entries) if previous else {}
    for fixture_id, verdict in verdicts.items():
        kept = entries.get(fixture_id) if verdict != "pass" else None
        entries[fixture_id] = Expectation(verdict, kept.reason if kept else None, kept.bug if kept else None)
    lines = [HEADER, f"adapter = {_string(adapter)}", f"corpus_version = {_string(corpus_version)}", "", "[verdicts]"]
    for fixture_id in sorted(entries):
        entry = entries[fixture_id]
        if entry.reason is None and entry.bug is None:
            lines.append(f"{fixture_id} = {_string(entry.verdict)}")
            continue
        parts = [f"verdict = {_string(entry.verdict)}"]
        parts += [f"{key} = {_string(value)}" for key, value in (("reason", entry.reason), ("bug", entry.bug)) if value]
        lines.append(f"{fixture_id} = {{ {', '.join(parts)} }}")
    write_text_atomically(Path(path), "\n".join(lines) + "\n")


def _string(value: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's."""
    return json.dumps(value, ensure_ascii=False)
