"""The reference on broken streams: a canonical result or an AssemblyError naming a real chunk."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltacheck.corpus.loader import load_corpus, result_validator, schema_problems
from deltacheck.errors import AssemblyError
from deltacheck.reference import assemble
from deltacheck.adequacy.robustness import perturbations

CORPUS = load_corpus()
VALIDATOR = result_validator()


@pytest.mark.parametrize("fixture", CORPUS.fixtures, ids=lambda f: f.id)
@settings(max_examples=25, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_reference_assembles_or_names_the_chunk_it_cannot(fixture, data):
    chunks, damage = data.draw(perturbations(fixture), label="perturbation")
    try:
        result = assemble(fixture.protocol, chunks).result
    except AssemblyError as exc:
        assert 0 <= exc.chunk_index < len(chunks), f"{damage}: error names chunk {exc.chunk_index}"
        assert exc.message, damage
        return
    assert schema_problems(VALIDATOR, result) == [], damage
