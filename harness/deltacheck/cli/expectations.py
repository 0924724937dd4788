"""`deltacheck run --expectations FILE [--update-expectations]`: gate CI on regressions only."""

from __future__ import annotations

from pathlib import Path

import click

from deltacheck.cli.common import err
from deltacheck.corpus.loader import Corpus
from deltacheck.judge.expectations import (
    Expectations,
    ExpectationsError,
    compare_verdicts,
    load_expectations,
    write_expectations,
)


def read_expectations(path: Path, corpus: Corpus) -> Expectations:
    try:
        return load_expectations(path, {f.id for f in corpus.fixtures}, corpus.retired)
    except ExpectationsError as exc:
        raise click.UsageError(str(exc)) from None


def check_expectations(
    path: Path,
    expectations: Expectations | None,
    adapter_name: str,
    corpus: Corpus,
    verdicts: dict[str, str],
    update: bool,
) -> int:
    """Print how the run compares with the file (or rewrite it); the exit status."""
    if update:
        write_expectations(path, adapter_name, corpus.version, verdicts, expectations)
        err.print(f"wrote {path}: expected verdicts of {adapter_name} on {len(verdicts)} fixture(s)", markup=False)
        return 0
    assert expectations is not None  # the file is read unless --update-expectations creates it, handled above
    comparison = compare_verdicts(expectations, verdicts)
    for difference in comparison.differences:
        err.print(f"{difference}", markup=False)
    if comparison.new:
        err.print(
            f"{len(comparison.new)} fixture(s) new to {path} (not judged; add them with --update-expectations):",
            markup=False,
        )
        for fixture_id, verdict in comparison.new.items():
            err.print(f"  new: {corpus.cite(fixture_id)} {verdict}", markup=False)
    expected = len(verdicts) - len(comparison.new) - len(comparison.differences)
    if comparison.clean:
        err.print(f"as expected: {expected} verdict(s) match {path}", markup=False)
        return 0
    kinds: dict[str, int] = {}
    for difference in comparison.differences:
        kinds[difference.kind] = kinds.get(difference.kind, 0) + 1
    err.print(
        f"not as expected: {', '.join(f'{n} {kind}' for kind, n in kinds.items())}; {expected} match {path}",
        markup=False,
    )
    return 1
