"""The tests the deltacheck pytest plugin generates: collected as `deltacheck::…[<adapter>-<fixture id>]`.

`test_fixture_conforms` judges the adapter's result against the fixture; with
`--deltacheck-snapshots DIR`, `test_observed_result_is_unchanged` also compares what the library
produced with its syrupy snapshot in DIR/<adapter>/, so a library upgrade shows which fixtures
changed behaviour. Both judge the same run of each fixture.
"""

from __future__ import annotations

import pytest

from deltacheck.judge.expectations import classify


def _case(deltacheck_case, deltacheck_session):
    adapter_index, fixture = deltacheck_case
    if isinstance(fixture, list):  # the file's FixtureProblems: it does not load
        pytest.fail("BUG IN FIXTURE:\n" + "\n".join(map(str, fixture)), pytrace=False)
    return deltacheck_session.record(adapter_index, fixture), fixture


def test_fixture_conforms(deltacheck_case, deltacheck_session):
    record, fixture = _case(deltacheck_case, deltacheck_session)
    verdict = record.verdict
    corpus = deltacheck_session.corpus
    cite = (f"cite: {corpus.cite(fixture.id)}  (deltacheck explain {fixture.id} prints the fixture; "
            f"{record.adapter} got {verdict.verdict})")
    expectations = deltacheck_session.expectations
    expected = expectations.entries.get(fixture.id) if expectations else None
    if expected is not None:
        kind = classify(expected, verdict.verdict)
        if kind == "unexpected pass":
            pytest.fail(f"unexpected pass: {corpus.cite(fixture.id)} was expected to get {expected.describe()}, and "
                        f"passes now; update {expectations.path} (deltacheck run ... --update-expectations)", pytrace=False)
        if kind == "regression" and verdict.verdict in ("skip", "n/a"):  # a skip must not hide a lost pass
            pytest.fail(f"regression: {corpus.cite(fixture.id)} was expected to pass, and is now {verdict.verdict}: "
                        f"{verdict.message}", pytrace=False)
        if kind == "changed":
            pytest.fail(f"{verdict.verdict} where {expected.describe()} was expected: {corpus.cite(fixture.id)} "
                        f"{fixture.title}\n{verdict.message}\n\n{verdict.diff or ''}\n{cite}", pytrace=False)
        if kind is None and verdict.verdict not in ("pass", "skip", "n/a"):
            pytest.xfail(f"expected {expected.describe()}")
    if verdict.verdict in ("skip", "n/a"):
        pytest.skip(f"{verdict.verdict}: {verdict.message}")
    if verdict.verdict != "pass":
        pytest.fail(f"{verdict.verdict}: {corpus.cite(fixture.id)} {fixture.title}\n{verdict.message}\n\n"
                    f"{verdict.diff or ''}\n{cite}", pytrace=False)


def test_observed_result_is_unchanged(deltacheck_case, deltacheck_session, snapshot):
    from deltacheck.pytest_plugin.snapshots import observed_snapshot_extension

    record, fixture = _case(deltacheck_case, deltacheck_session)
    verdict = record.verdict
    if verdict.verdict == "skip":
        pytest.skip(verdict.message)
    observed = verdict.observed if verdict.observed is not None else {"raised": verdict.message}
    extension = observed_snapshot_extension(deltacheck_session.snapshots / record.adapter)
    assert observed == snapshot(extension_class=extension), (
        f"{record.adapter} now assembles {deltacheck_session.corpus.cite(fixture.id)} differently from its snapshot")
