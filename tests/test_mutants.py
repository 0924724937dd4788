"""Mutation adequacy: every deliberately broken accumulator is caught by at least one fixture."""

from __future__ import annotations

import pytest

from deltacheck.corpus.loader import load_corpus
from deltacheck.adequacy.mutants import MUTANTS
from deltacheck.running.runner import run_fixtures

CORPUS = load_corpus()


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_the_corpus_catches_the_mutant(mutant):
    fixtures = [f for f in CORPUS.fixtures if f.protocol in mutant.protocols]
    killers = [r.verdict.fixture for r in run_fixtures(mutant(), CORPUS, fixtures, timeout=5)
               if r.verdict.verdict in ("fail", "error", "crash", "timeout")]
    assert killers, f"no fixture catches {mutant.name} ({mutant.bug}): a fixture is missing"


def test_every_seed_report_has_a_mutant_named_after_its_system():
    modelled = " ".join(m.models for m in MUTANTS)
    for seed in ("seed 000", "seed 001", "seed 002", "seed 003, part 1", "seed 003, part 2"):
        assert seed in modelled
