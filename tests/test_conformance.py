"""Conformance: each fixture through the selected adapter(s), judged and snapshotted."""

from __future__ import annotations

import pytest

from harness.adapter import get_adapter
from harness.corpus import load_corpus
from harness.runner import run_fixtures
from tests.snapshots import observed_snapshot_extension


@pytest.fixture(scope="session")
def corpus(pytestconfig):
    return load_corpus(pytestconfig.option.corpus)


def test_fixture_conforms(conformance_case, corpus, snapshot):
    adapter_name, fixture = conformance_case
    if isinstance(fixture, list):  # the file's FixtureProblems: it does not load
        pytest.fail("BUG IN FIXTURE:\n" + "\n".join(map(str, fixture)), pytrace=False)
    adapter = get_adapter(adapter_name)
    (record,) = run_fixtures(adapter, corpus, [fixture])
    verdict = record.verdict
    if verdict.verdict in ("skip", "n/a"):
        pytest.skip(f"{verdict.verdict}: {verdict.message}")
    observed = verdict.observed if verdict.observed is not None else {"raised": verdict.message}
    assert observed == snapshot(extension_class=observed_snapshot_extension(adapter_name)), (
        f"{adapter_name} now assembles {corpus.cite(fixture.id)} differently from its snapshot")
    if verdict.verdict != "pass":
        pytest.fail(f"{verdict.verdict}: {corpus.cite(fixture.id)} {fixture.title}\n{verdict.message}\n\n{verdict.diff}",
                    pytrace=False)
