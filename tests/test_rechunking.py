"""Re-chunking invariance: other valid streams of a fixture's message assemble to its expected result."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltacheck.judge.compare import json_equal
from deltacheck.corpus.loader import load_corpus
from deltacheck.adequacy.rechunk import is_rechunkable, restreamings
from deltacheck.reference import assemble

CORPUS = load_corpus()


@pytest.mark.parametrize("fixture", [f for f in CORPUS.fixtures if is_rechunkable(f)], ids=lambda f: f.id)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_reference_assembles_every_restreaming_to_the_expected_result(fixture, data):
    chunks, edits = data.draw(restreamings(fixture), label="restreaming")
    result = assemble(fixture.protocol, chunks).result
    produced = {k: v for k, v in result.items() if k != "events"}
    assert json_equal(produced, fixture.expected), f"edits {edits} changed the message"


def test_the_edits_reach_every_protocol():
    """Guard against strategies that silently find nowhere to edit."""
    from deltacheck.adequacy.rechunk import EDITS

    reached = set()
    for fixture in CORPUS.fixtures:
        for name, sites, _, _ in EDITS[fixture.protocol]:
            if sites([dict(c) for c in fixture.chunks]):
                reached.add((fixture.protocol, name))
    expected = {(protocol, name) for protocol, edits in EDITS.items() for name, *_ in edits}
    assert reached == expected, f"never applicable: {sorted(expected - reached)}"
