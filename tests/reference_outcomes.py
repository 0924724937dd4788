"""Recorded outcomes of the reference assemblers, so a change meant to be behaviour-neutral is checked.

    .venv/bin/python tests/reference_outcomes.py    # re-record tests/data/reference_outcomes.json

For every corpus fixture the file holds what `assemble` produced: the whole result (events
included) and `last_fragment`, or the AssemblyError it raised. It also holds a digest of the
outcome on restreamings of each fixture that has a result: every fragment cut down to single
characters (escapes, keys and values split everywhere), every run of fragments merged into one, and
for chat the cut stream with each call's id and name repeated on every fragment. Re-record only
when a rule of CONTRACT.md 3.3 or a fixture changed on purpose.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable

from deltacheck.corpus import load_corpus
from deltacheck.errors import AssemblyError
from deltacheck.model import Fixture
from deltacheck.rechunk import EDITS
from deltacheck.reference import assemble

RECORDED = Path(__file__).resolve().parent / "data" / "reference_outcomes.json"
Chunks = list[Any]


def outcome_of(protocol: str, chunks: Chunks) -> dict[str, Any]:
    """The reference's outcome as plain JSON: result and last_fragment, or the error it raised."""
    try:
        outcome = assemble(protocol, chunks)
    except AssemblyError as error:
        return {"error": str(error)}
    last_fragment = sorted([choice, position, chunk] for (choice, position), chunk in outcome.last_fragment.items())
    return {"result": outcome.result, "last_fragment": last_fragment}


def digest(outcome: dict[str, Any]) -> str:
    text = json.dumps(outcome, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _edit(protocol: str, name: str) -> tuple[Callable[[Chunks], list], Callable[..., Chunks]]:
    for edit_name, sites, apply, _ in EDITS[protocol]:
        if edit_name == name:
            return sites, apply
    raise LookupError(f"{protocol} has no edit {name!r}")


def _apply_everywhere(protocol: str, name: str, chunks: Chunks, *cut: float) -> Chunks:
    """Apply an edit at every site, last site first (so earlier sites keep their places), until none is left."""
    find_sites, apply = _edit(protocol, name)
    while True:
        sites = find_sites(chunks)
        before = len(chunks), chunks
        for site in reversed(sites):
            chunks = apply(chunks, site, *cut)
        if not sites or (len(chunks), chunks) == before:
            return chunks


def restreamings(fixture: Fixture) -> dict[str, Chunks]:
    """Deterministic other streams of the fixture (its message may differ: only the outcome is compared)."""
    if fixture.expected is None:
        return {}
    chunks = [dict(c) for c in fixture.chunks]
    cut = _apply_everywhere(fixture.protocol, "split", chunks, 0.5)  # halves, until every fragment is one character
    variants = {"characters": cut, "merged": _apply_everywhere(fixture.protocol, "merge", chunks)}
    if fixture.protocol == "openai-chat":
        variants["characters-with-identity"] = _apply_everywhere(fixture.protocol, "repeat-identity", cut)
    return variants


def record_of(fixture: Fixture) -> dict[str, Any]:
    return {"protocol": fixture.protocol, **outcome_of(fixture.protocol, list(fixture.chunks)),
            "restreamings": {name: digest(outcome_of(fixture.protocol, chunks))
                             for name, chunks in restreamings(fixture).items()}}


def main() -> None:
    corpus = load_corpus(check_reference=False)
    records = {fixture.id: record_of(fixture) for fixture in sorted(corpus.fixtures, key=lambda f: f.id)}
    RECORDED.parent.mkdir(parents=True, exist_ok=True)
    RECORDED.write_text(json.dumps({"corpus_version": corpus.version, "fixtures": records}, indent=1,
                                   ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    variants = sum(len(r["restreamings"]) for r in records.values())
    print(f"recorded {len(records)} fixtures and {variants} restreamings into {RECORDED}")


if __name__ == "__main__":
    main()
