"""Conformance: each fixture through the selected adapter(s), judged and snapshotted.

Two tests per adapter x fixture, so a behaviour change and a conformance failure read apart:
`test_observed_result_is_unchanged` compares what the implementation produced with its syrupy
snapshot (a pinned-library upgrade shows exactly which fixtures changed), and
`test_fixture_conforms` judges it against the fixture.
"""

from __future__ import annotations

import pytest

from harness.adapter import get_adapter
from harness.corpus import load_corpus
from harness.runner import RunRecord, run_fixtures
from tests.snapshots import observed_snapshot_extension

_RECORDS: dict[tuple[str, str], RunRecord] = {}


@pytest.fixture(scope="session")
def corpus(pytestconfig):
    return load_corpus(pytestconfig.option.corpus)


def run_once(adapter_name: str, fixture, corpus) -> RunRecord:
    """Both tests judge the same run: an implementation is asked once per fixture."""
    key = (adapter_name, fixture.id)
    if key not in _RECORDS:
        (_RECORDS[key],) = run_fixtures(get_adapter(adapter_name), corpus, [fixture])
    return _RECORDS[key]


def _case(conformance_case):
    adapter_name, fixture = conformance_case
    if isinstance(fixture, list):  # the file's FixtureProblems: it does not load
        pytest.fail("BUG IN FIXTURE:\n" + "\n".join(map(str, fixture)), pytrace=False)
    return adapter_name, fixture


def test_observed_result_is_unchanged(conformance_case, corpus, snapshot):
    adapter_name, fixture = _case(conformance_case)
    verdict = run_once(adapter_name, fixture, corpus).verdict
    if verdict.verdict == "skip":
        pytest.skip(verdict.message)
    observed = verdict.observed if verdict.observed is not None else {"raised": verdict.message}
    assert observed == snapshot(extension_class=observed_snapshot_extension(adapter_name)), (
        f"{adapter_name} now assembles {corpus.cite(fixture.id)} differently from its snapshot")


def test_fixture_conforms(conformance_case, corpus):
    adapter_name, fixture = _case(conformance_case)
    verdict = run_once(adapter_name, fixture, corpus).verdict
    if verdict.verdict in ("skip", "n/a"):
        pytest.skip(f"{verdict.verdict}: {verdict.message}")
    if verdict.verdict != "pass":
        pytest.fail(f"{verdict.verdict}: {corpus.cite(fixture.id)} {fixture.title}\n{verdict.message}\n\n{verdict.diff}",
                    pytrace=False)


def test_no_snapshot_outlives_its_fixture(corpus):
    """A snapshot whose fixture is gone (or whose adapter was renamed) is stale: delete it."""
    import re

    from tests.snapshots import OBSERVED_DIR

    ids = {f.id for f in corpus.fixtures}
    stale = []
    for path in sorted(OBSERVED_DIR.glob("*/*.json")):
        match = re.search(r"\[(.+)-(DC-[0-9A-Z]{4})\]\.json$", path.name)
        if match is None or match.group(1) != path.parent.name or match.group(2) not in ids:
            stale.append(str(path.relative_to(OBSERVED_DIR)))
    assert stale == []
