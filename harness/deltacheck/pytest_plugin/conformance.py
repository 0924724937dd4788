"""The tests the deltacheck pytest plugin generates: collected as `deltacheck::…[<adapter>-<fixture id>]`.

`test_fixture_conforms` judges the adapter's result against the fixture; with
`--deltacheck-snapshots DIR`, `test_observed_result_is_unchanged` also compares what the library
produced with its syrupy snapshot in DIR/<adapter>/, so a library upgrade shows which fixtures
changed behaviour. Both judge the same run of each fixture (`deltacheck_record`); an async adapter's
run is an async fixture, so pytest-asyncio runs it on its event loop.
"""

from __future__ import annotations

import importlib.util

import pytest

from deltacheck.judge.expectations import classify


@pytest.fixture
def deltacheck_record(request: pytest.FixtureRequest, deltacheck_case, deltacheck_session):
    """The run of this case's fixture through its adapter: (its RunRecord, the fixture)."""
    adapter_index, fixture = deltacheck_case
    if isinstance(fixture, list):  # the file's FixtureProblems: it does not load
        pytest.fail("BUG IN FIXTURE:\n" + "\n".join(map(str, fixture)), pytrace=False)
    if deltacheck_session.runs_async(adapter_index):
        return request.getfixturevalue("deltacheck_async_record"), fixture
    return deltacheck_session.record(adapter_index, fixture), fixture


if importlib.util.find_spec("pytest_asyncio") is not None:
    import pytest_asyncio

    @pytest_asyncio.fixture
    async def deltacheck_async_record(deltacheck_case, deltacheck_session):
        """An async adapter's run, awaited on the loop of the default fixture loop scope (a user's async fixtures' loop)."""
        adapter_index, fixture = deltacheck_case
        return await deltacheck_session.record_async(adapter_index, fixture)


def test_fixture_conforms(deltacheck_record, deltacheck_session):
    record, fixture = deltacheck_record
    verdict = record.verdict
    corpus = deltacheck_session.corpus
    cite = (
        f"cite: {corpus.cite(fixture.id)}  (deltacheck explain {fixture.id} prints the fixture; "
        f"{record.adapter} got {verdict.verdict})"
    )
    expectations = deltacheck_session.expectations
    expected = expectations.entries.get(fixture.id) if expectations else None
    if expected is not None:
        kind = classify(expected, verdict.verdict)
        if kind == "unexpected pass":
            pytest.fail(
                f"unexpected pass: {corpus.cite(fixture.id)} was expected to get {expected.describe()}, and "
                f"passes now; update {expectations.path} (deltacheck run ... --update-expectations)",
                pytrace=False,
            )
        if kind == "regression" and verdict.verdict in ("skip", "n/a"):  # a skip must not hide a lost pass
            pytest.fail(
                f"regression: {corpus.cite(fixture.id)} was expected to pass, and is now {verdict.verdict}: "
                f"{verdict.message}",
                pytrace=False,
            )
        if kind == "changed":
            pytest.fail(
                f"{verdict.verdict} where {expected.describe()} was expected: {corpus.cite(fixture.id)} "
                f"{fixture.title}\n{verdict.message}\n\n{verdict.diff or ''}\n{cite}",
                pytrace=False,
            )
        if kind is None and verdict.verdict not in ("pass", "skip", "n/a"):
            pytest.xfail(f"expected {expected.describe()}")
    if verdict.verdict in ("skip", "n/a"):
        pytest.skip(f"{verdict.verdict}: {verdict.message}")
    if verdict.verdict != "pass":
        pytest.fail(
            f"{verdict.verdict}: {corpus.cite(fixture.id)} {fixture.title}\n{verdict.message}\n\n"
            f"{verdict.diff or ''}\n{cite}",
            pytrace=False,
        )


def test_observed_result_is_unchanged(deltacheck_record, deltacheck_session, snapshot):
    from deltacheck.pytest_plugin.snapshots import observed_snapshot_extension

    record, fixture = deltacheck_record
    verdict = record.verdict
    # Never run (a skip, or a fixture the adapter's transport cannot carry): nothing was observed to keep.
    if verdict.verdict == "skip" or (verdict.verdict == "n/a" and verdict.observed is None):
        pytest.skip(verdict.message)
    observed = verdict.observed if verdict.observed is not None else {"raised": verdict.message}
    extension = observed_snapshot_extension(deltacheck_session.snapshots / record.adapter)
    assert observed == snapshot(extension_class=extension), (
        f"{record.adapter} now assembles {deltacheck_session.corpus.cite(fixture.id)} differently from its snapshot"
    )
