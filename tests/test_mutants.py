"""Mutation adequacy: every deliberately broken accumulator is caught by at least one fixture."""

from __future__ import annotations

import pytest

from deltacheck.corpus.loader import load_corpus
from deltacheck.adequacy.mutants import MUTANTS, SHARED, _bug_classes
from deltacheck.protocols import all_protocols
from deltacheck.protocols.spec import Protocol
from deltacheck.protocols.sse import SseFraming
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


def _new_protocol(tmp_path, monkeypatch, package: str, mutants: str | None = None) -> Protocol:
    """A protocol package beside the registered ones (its reference borrowed), with that mutants.py if any."""
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "reference.py").write_text(f"from {all_protocols()[0].package}.reference import Assembler\n")
    if mutants is not None:
        (folder / "mutants.py").write_text(f"from {package}.reference import Assembler\n\n{mutants}")
    monkeypatch.syspath_prepend(str(tmp_path))
    return Protocol(name=package, package=package, title=package, short=package, endpoint="/", provider="openai",
                    framing=SseFraming(named_events=True), capability_notes={"refusal": "this wire carries no refusal"})


def test_a_new_protocol_package_gets_the_shared_mutants_its_wire_can_have(tmp_path, monkeypatch):
    new = _new_protocol(tmp_path, monkeypatch, "protocol_without_mutants")
    classes = _bug_classes([*all_protocols(), new])
    assert [(c.number, c.name) for c in classes] == [(number, m.name) for number, m in enumerate(MUTANTS, 1)]
    joined = {c.name for c in classes if new.name in c.assemblers}
    assert joined == {shared.name for shared in SHARED if shared.needs != "refusal"}


def test_a_new_protocol_adds_its_bug_classes_after_the_rest_and_joins_existing_ones(tmp_path, monkeypatch):
    new = _new_protocol(tmp_path, monkeypatch, "protocol_with_mutants", mutants=(
        f'MUTANTS = [({len(MUTANTS) + 1}, "new-protocol-bug", "a bug of the new protocol", Assembler, "")]\n'
        f'JOINS = {{"{MUTANTS[0].name}": Assembler}}\n'))
    classes = _bug_classes([*all_protocols(), new])
    assert [c.name for c in classes] == [m.name for m in MUTANTS] + ["new-protocol-bug"]
    assert [c.number for c in classes] == list(range(1, len(MUTANTS) + 2))
    assert new.name in classes[0].assemblers and set(classes[0].assemblers) - {new.name} == MUTANTS[0].protocols


def test_two_bug_classes_cannot_take_one_number(tmp_path, monkeypatch):
    new = _new_protocol(tmp_path, monkeypatch, "protocol_reusing_a_number", mutants=(
        f'MUTANTS = [({len(MUTANTS)}, "new-protocol-bug", "a bug of the new protocol", Assembler, "")]\n'))
    with pytest.raises(ValueError, match="none taken twice"):
        _bug_classes([*all_protocols(), new])
