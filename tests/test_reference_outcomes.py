"""The reference assembles every corpus fixture, and restreamings of it, exactly as recorded.

The recording (tests/data/reference_outcomes.json, written by tests/reference_outcomes.py) holds
results with their events and last_fragment, so a change to how the reference assembles (for speed,
say) that alters any of them, even where `deltacheck lint` would not notice, fails here.
"""

from __future__ import annotations

import json

import pytest

from deltacheck.corpus.loader import load_corpus
from tests.reference_outcomes import RECORDED, digest, outcome_of, restreamings

CORPUS = load_corpus(check_reference=False)
RECORDS = json.loads(RECORDED.read_text(encoding="utf-8"))["fixtures"]
RERECORD = "re-record with `.venv/bin/python tests/reference_outcomes.py` only if the change is meant"


def test_every_fixture_is_recorded():
    missing = sorted({f.id for f in CORPUS.fixtures} - set(RECORDS))
    assert not missing, f"fixtures without a recorded reference outcome: {missing}; {RERECORD}"


@pytest.mark.parametrize("fixture", [f for f in CORPUS.fixtures if f.id in RECORDS], ids=lambda f: f.id)
def test_the_reference_outcome_is_unchanged(fixture):
    recorded = RECORDS[fixture.id]
    expected = {key: value for key, value in recorded.items() if key in ("result", "last_fragment", "error")}
    # through JSON, as recorded: tuples become lists, and nothing else may differ
    produced = json.loads(json.dumps(outcome_of(fixture.protocol, list(fixture.chunks)), ensure_ascii=False))
    assert produced == expected, f"{fixture.id}: the reference now assembles it differently; {RERECORD}"
    variants = {name: digest(outcome_of(fixture.protocol, chunks)) for name, chunks in restreamings(fixture).items()}
    assert variants == recorded["restreamings"], f"{fixture.id}: a restreaming now assembles differently; {RERECORD}"
