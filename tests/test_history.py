"""`deltacheck history`: the releases a SPEC names, the bisection over them, what is recorded for a release
that cannot be scored, the trend in REPORT.md and on the site, and one real run over two releases."""

from __future__ import annotations

import json
import math
import sys
import urllib.request
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from packaging.version import Version

from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from deltacheck.driver.envs import Launch
from deltacheck.history.bisect import Bisector
from deltacheck.history.environments import Built, NotInstallable, ensure_release, release_requirements
from deltacheck.history.scoring import api_mismatch, score_release
from deltacheck.history.spec import BadVersionSpec, ordered, parse_spec, resolve
from deltacheck.history.store import (
    NOT_DRIVABLE,
    NOT_INSTALLABLE,
    SCORED,
    ReleaseResults,
    header_of,
    read_release,
    release_path,
)
from deltacheck.history.sweep import History, bisect_document
from deltacheck.history.target import Driving, NoHistory, Target, find_target
from deltacheck.running.results import ResultsWriter
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus
from tests.site_results import build, scored

SCHEMA = Path(__file__).parent.parent / "harness" / "deltacheck" / "history" / "schemas" / "bisect.schema.json"
F = ("arguments", "/choices/*/parts/*/arguments: differs")

# -- SPEC parsing and ordering -------------------------------------------------------------------

pep440 = st.builds(
    lambda parts, pre: ".".join(map(str, parts)) + pre,
    st.lists(st.integers(0, 30), min_size=1, max_size=3),
    st.sampled_from(["", "", "", "a1", "rc2", ".post1", ".dev3"]),
)


@given(st.lists(pep440, max_size=30))
def test_pypi_releases_are_ordered_as_pep_440_orders_them(versions):
    assert ordered("pypi", versions) == sorted(set(versions), key=lambda v: (Version(v), v))


@given(st.lists(pep440, min_size=1, max_size=30), pep440, pep440)
def test_a_range_takes_exactly_the_releases_its_clauses_admit_and_no_pre_release(versions, low, high):
    expected = [
        v
        for v in ordered("pypi", versions)
        if not Version(v).is_prerelease and Version(low) <= Version(v) < Version(high)
    ]
    spec = parse_spec("pypi", f">={low}, <{high}")
    if expected:
        assert resolve("pypi", spec, versions) == expected
    else:
        with pytest.raises(BadVersionSpec, match="--versions: no release"):
            resolve("pypi", spec, versions)


semver = st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(0, 9), st.integers(0, 12), st.integers(0, 12))


@given(st.lists(semver, min_size=1, max_size=30), st.integers(1, 9))
def test_npm_releases_are_ordered_as_semver_and_a_short_bound_means_its_zeros(versions, major):
    key = lambda v: tuple(map(int, v.split(".")))  # noqa: E731
    assert ordered("npm", versions) == sorted(set(versions), key=key)
    below = [v for v in sorted(set(versions), key=key) if key(v) < (major, 0, 0)]
    if below:
        assert resolve("npm", parse_spec("npm", f"<{major}"), versions) == below


@given(st.lists(pep440, min_size=1, max_size=30, unique=True), st.integers(1, 40))
def test_latest_n_is_the_n_newest_releases_oldest_first(versions, count):
    releases = [v for v in ordered("pypi", versions) if not Version(v).is_prerelease]
    assume(releases)
    assert resolve("pypi", parse_spec("pypi", f"latest:{count}"), versions) == releases[-count:]


def test_a_list_is_ordered_and_takes_pre_releases_as_named():
    served = ["2.0.1", "1.40.0", "2.1.0rc1", "3.0.0"]
    assert resolve("pypi", parse_spec("pypi", "2.1.0rc1, 1.40.0,2.0.1"), served) == ["1.40.0", "2.0.1", "2.1.0rc1"]
    assert resolve("pypi", parse_spec("pypi", "all"), served) == ["1.40.0", "2.0.1", "3.0.0"]
    assert resolve("maven", parse_spec("maven", "all"), ["1.0.0", "1.0.0-M1", "0.9"]) == ["0.9", "1.0.0"]


def test_a_listed_release_the_registry_does_not_serve_is_named():
    with pytest.raises(BadVersionSpec) as caught:
        resolve("pypi", parse_spec("pypi", "1.40.0,9.9.9"), ["1.40.0"], "openai")
    assert str(caught.value) == "--versions: 9.9.9 not served by pypi for openai (it serves 1 version(s))"


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("", "--versions is empty"),
        ("latest:0", "N must be at least 1"),
        (">=banana", "'banana' is not a pypi version"),
        ("1.0,,2.0", "an empty item"),
        (">=1.0,2.0", "cannot mix clauses with plain versions"),
        ("one", "'one' is not a pypi version"),
    ],
)
def test_a_spec_that_cannot_be_read_is_one_line_naming_the_option(spec, says):
    with pytest.raises(BadVersionSpec) as caught:
        parse_spec("pypi", spec)
    assert says in str(caught.value) and str(caught.value).startswith("--versions") and "\n" not in str(caught.value)


# -- bisection with a fake scorer ----------------------------------------------------------------


def _versions(n: int) -> list[str]:
    return [f"1.{i}.0" for i in range(n)]


@settings(max_examples=200)
@given(st.data())
def test_bisection_finds_the_first_release_showing_a_finding_and_the_first_fixing_it_in_log_n_scorings(data):
    n = data.draw(st.integers(2, 300))
    introduced = data.draw(st.integers(0, n - 1))
    fixed = data.draw(st.integers(introduced + 1, n))  # n: never fixed
    witness = data.draw(st.integers(introduced, fixed - 1))
    versions = _versions(n)
    bisector = Bisector(versions, lambda v: frozenset({F}) if introduced <= versions.index(v) < fixed else frozenset())
    found = bisector.bisect(F, versions[witness])
    assert found.since == versions[introduced]
    assert found.since_oldest == (introduced == 0)
    assert found.fixed_in == (versions[fixed] if fixed < n else None)
    assert found.skipped == ()
    assert len(bisector.probed) <= 2 * math.ceil(math.log2(n + 1)) + 1


@settings(max_examples=200)
@given(st.data())
def test_unscorable_releases_are_skipped_over_and_reported(data):
    n = data.draw(st.integers(3, 120))
    introduced = data.draw(st.integers(0, n - 1))
    fixed = data.draw(st.integers(introduced + 1, n))
    witness = data.draw(st.integers(introduced, fixed - 1))
    broken = data.draw(st.sets(st.integers(0, n - 1).filter(lambda i: i != witness), max_size=n // 2))
    versions = _versions(n)

    def probe(version):
        i = versions.index(version)
        return None if i in broken else frozenset({F}) if introduced <= i < fixed else frozenset()

    bisector = Bisector(versions, probe)
    found = bisector.bisect(F, versions[witness])
    scorable = [i for i in range(n) if i not in broken]
    first_bad = min(i for i in scorable if i >= introduced)
    last_good = max((i for i in scorable if i < introduced), default=-1)
    first_good = min((i for i in scorable if i >= fixed), default=n)
    last_bad = max(i for i in scorable if i < fixed)
    assert found.since == versions[first_bad]
    assert found.since_oldest == (last_good == -1)
    assert found.fixed_in == (versions[first_good] if first_good < n else None)
    between = [i for i in broken if last_good < i < first_bad or last_bad < i < first_good]
    assert found.skipped == tuple(versions[i] for i in sorted(between))
    assert set(bisector.unscorable()) <= {versions[i] for i in broken}


def test_sixteen_releases_take_at_most_eight_scorings_and_recorded_ones_are_reused(tmp_path):
    versions = _versions(16)
    scored_now = []

    def fake_release(version):
        scored_now.append(version)
        return _release(tmp_path, "openai-python-chat", version, SCORED, fail=5 <= versions.index(version) < 11)

    history = History(find_target("openai-python-chat"), versions, tmp_path, "9.9.9", fake_release)
    _release(tmp_path, "openai-python-chat", versions[3], SCORED, fail=False)  # recorded before: never scored again
    newest, bisected, bisector = history.bisect()
    assert newest == versions[-1]
    assert versions[3] not in scored_now and len(scored_now) <= 8
    assert bisected == []  # the newest release shows no finding, and no release recorded before does
    _release(tmp_path, "openai-python-chat", versions[7], SCORED, fail=True)  # a sweep recorded a failing release
    again = History(find_target("openai-python-chat"), versions, tmp_path, "9.9.9", fake_release)
    newest, bisected, bisector = again.bisect()
    [found] = bisected
    assert (found.since, found.fixed_in) == (versions[5], versions[11])
    document = bisect_document(again, newest, bisected, bisector)
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))
    assert document["findings"][0]["fixtures"] == ["DC-T00K"]


# -- recording what cannot be scored -------------------------------------------------------------


def _release(
    root: Path, adapter: str, version: str, status: str, fail: bool, reason: str = "", **more: object
) -> ReleaseResults:
    """A synthetic release's results file: DC-T3ST passes, DC-T00K passes or fails."""
    path = release_path(root, adapter, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        writer = ResultsWriter(handle)
        writer.header(
            corpus_version="9.9.9",
            adapter={"name": adapter, "library": "openai", "version": version},
            **header_of("openai", "pypi", version, status, reason, **more),
        )
        if status == SCORED:
            writer.record({"kind": "result", "fixture": "DC-T3ST", "adapter": adapter, "verdict": "pass"})
            record = {"kind": "result", "fixture": "DC-T00K", "adapter": adapter, "verdict": "fail" if fail else "pass"}
            if fail:
                record["divergences"] = [
                    {"axis": "arguments", "place": "/choices/*/parts/*/arguments", "kind": "differs"}
                ]
            writer.record(record)
        writer.footer()
    return read_release(path)


@pytest.fixture
def corpus(tmp_path):
    return load_corpus(
        make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/tools.json": TOOL_FIXTURE})
    )


def test_a_release_that_cannot_be_installed_is_recorded_with_pips_reason(tmp_path, corpus):
    def build(target, version):
        raise NotInstallable("pip install failed: ERROR: No matching distribution found for openai==0.0.1")

    release = score_release(
        find_target("openai-python-chat"), "0.0.1", corpus, tmp_path, build=build, say=lambda _: None
    )
    assert (release.status, release.reason) == (
        NOT_INSTALLABLE,
        "pip install failed: ERROR: No matching distribution found for openai==0.0.1",
    )
    assert release.results.records == [] and release.results.complete
    assert release.results.header["corpus_version"] == "9.9.9"


def test_a_release_whose_driver_does_not_start_is_recorded_with_the_exception_it_ended_with(tmp_path, corpus):
    crash = "import sys; sys.stderr.write('Traceback (most recent call last):\\nImportError: cannot import name Stream\\n'); sys.exit(1)"

    def build(target, version):
        return Built(Launch((sys.executable, "-c", crash), str(tmp_path), {}), True, True)

    release = score_release(
        find_target("openai-python-chat"), "1.0.0", corpus, tmp_path, build=build, say=lambda _: None
    )
    assert release.status == NOT_DRIVABLE
    assert "before answering `start`" in release.reason and release.reason.endswith(
        "ImportError: cannot import name Stream"
    )
    assert "\n" not in release.reason


def test_a_release_on_which_every_fixture_raises_the_same_is_not_drivable_and_one_real_failure_is_scored(tmp_path):
    def results(*records):
        release = _release(tmp_path, "a", "1.0.0", SCORED, fail=False)
        release.results.records[:] = list(records)
        return release

    raised = {
        "kind": "result",
        "fixture": "X",
        "adapter": "a",
        "verdict": "error",
        "message": "raised: AttributeError: no stream",
    }
    assert (
        api_mismatch(results(raised, {**raised, "fixture": "Y"})) == "every fixture raises: AttributeError: no stream"
    )
    assert api_mismatch(results(raised, {**raised, "fixture": "Y", "verdict": "pass"})) is None
    other = {**raised, "fixture": "Y", "message": "raised: TypeError: x"}
    assert api_mismatch(results(raised, other)) is None
    # A fixture that accepts a raise passes on the same exception: it was not driven either (langchain-openai
    # 0.1 handed a client its openai rejects); on another exception, or a real pass, the release is scored.
    accepted = {**raised, "fixture": "Z", "verdict": "pass", "matched": "raise_acceptable"}
    accepted["message"] = "raised, which this fixture accepts (not JSON (so): refuse it): AttributeError: no stream"
    unmatched = {**raised, "fixture": "W", "message": raised["message"] + " (not the rejection this fixture accepts, /x/)"}
    assert api_mismatch(results(raised, accepted, unmatched)) == "every fixture raises: AttributeError: no stream"
    accepted_other = {**accepted, "message": "raised, which this fixture accepts (not JSON): ValueError: bad JSON"}
    assert api_mismatch(results(raised, accepted_other)) is None
    assert api_mismatch(results(raised, {**accepted, "matched": None})) is None


def test_each_release_pins_the_library_at_that_version_and_keeps_the_rest_as_constraints():
    requirements, constraints = release_requirements(find_target("pydantic-ai-openai-chat").driving("1.0.0"), "1.0.0")
    assert "pydantic-ai-slim[openai,anthropic]==1.0.0" in requirements.splitlines()
    assert "openai==" in requirements and "pydantic-ai-slim" not in constraints
    assert find_target("langchain-openai-chat").package == "langchain-openai"
    assert find_target("openai-node-chat").package == "openai"
    with pytest.raises(NoHistory, match="--package 'nope'"):
        find_target("openai-python-chat", "nope")


def test_the_command_refuses_an_adapter_or_spec_it_cannot_use_in_one_line():
    for args, says in (
        (["--adapter", "reference", "--versions", "all"], "--adapter 'reference': not a manifest adapter"),
        (["--adapter", "openai-python-chat", "--versions", ">=banana"], "'banana' is not a pypi version"),
    ):
        outcome = CliRunner().invoke(main, ["history", *args])
        assert outcome.exit_code == 2 and says in outcome.output and "Traceback" not in outcome.output


# -- where it shows: REPORT.md and the site -------------------------------------------------------


def test_the_report_and_the_site_show_the_trend_and_each_finding_since_and_fixed(tmp_path):
    corpus, results = scored(tmp_path)
    root = results / "history"
    for version, status, fail, reason in (
        ("1.0.0", SCORED, False, ""),
        ("1.1.0", SCORED, True, ""),
        ("1.2.0", NOT_INSTALLABLE, False, "pip install failed: ERROR: No matching distribution"),
        ("1.3.0", SCORED, False, ""),
        ("1.4.0", SCORED, False, ""),
    ):
        _release(root, "miniature-raises", version, status, fail, reason)
    _release(root, "not-in-these-results", "1.0.0", SCORED, False)
    unfinished = release_path(root, "miniature-raises", "1.5.0")  # a run still scoring it: no footer yet
    unfinished.write_text(release_path(root, "miniature-raises", "1.4.0").read_text().splitlines()[0] + "\n")
    entry = {"axis": "arguments", "what": "/choices/*/parts/*/arguments: differs", "fixtures": ["DC-T00K"]}
    entry |= {"since": "1.1.0", "since_oldest": False, "fixed_in": "1.3.0", "skipped": ["1.2.0"]}
    steady = {**entry, "what": "always", "since": "1.0.0", "since_oldest": True, "fixed_in": None, "skipped": []}
    (root / "miniature-raises" / "bisect.json").write_text(json.dumps({"findings": [entry, steady]}))
    report = tmp_path / "R.md"
    files = sorted(str(p) for p in results.glob("*.jsonl") if not p.name.startswith(("fuzz-", "cost-", "mutants")))
    outcome = CliRunner().invoke(main, ["report", *files, "--corpus", str(corpus), "--output", str(report)])
    assert outcome.exit_code == 0, outcome.output
    text = report.read_text()
    section = text[text.index("## Release history") :]
    assert "| 1.0.0 | 2 | 0 | 0 |  |" in section and "| 1.1.0 | 1 | 1 | 0 |  |" in section
    assert "| 1.2.0 | – | – | – | not-installable: pip install failed: ERROR: No matching distribution |" in section
    assert "| 1.3.0 – 1.4.0 (2) | 2 | 0 | 0 |  |" in section  # consecutive releases that scored the same
    assert "since 1.1.0, fixed in 1.3.0 (unscorable in between: 1.2.0)" in section
    assert "- 1 other finding(s) in every release scored: at or before 1.0.0, still present in 1.4.0" in section
    assert "always" not in section
    assert "not-in-these-results" not in text and "1.5.0" not in text
    page = (build(corpus, results, tmp_path / "site") / "implementations" / "miniature-raises.html").read_text()
    assert '<svg class="trend"' in page and "<title>1.1.0: 1 failed</title>" in page
    assert "<title>1.2.0: not-installable: pip install failed" in page and "since 1.1.0, fixed in 1.3.0" in page
    assert "<td>1.4.0</td>" in page and "<code>always</code>: at or before 1.0.0, still present" in page
    other = (tmp_path / "site" / "implementations" / "reference.html").read_text()
    assert "Release history" not in other


def test_score_writes_the_release_history_as_report_does(tmp_path):
    """`make report` is `deltacheck score`: its REPORT.md must hold the history `report` shows."""
    corpus, results = scored(tmp_path)
    _release(results / "history", "miniature-raises", "1.0.0", SCORED, True)
    again = ["score", "--corpus", str(corpus), "--results-dir", str(results), "--output", str(tmp_path / "S.md")]
    for name in ("reference", "miniature-raises"):
        again += ["--adapter", name]
    outcome = CliRunner().invoke(main, again)  # again, now with the history beside the results
    assert outcome.exit_code == 0, outcome.output
    by_score = (tmp_path / "S.md").read_text()
    assert "## Release history" in by_score and "[miniature-raises]" in by_score[by_score.index("## Release history") :]
    files = sorted(str(p) for p in results.glob("*.jsonl") if not p.name.startswith(("fuzz-", "cost-", "mutants")))
    report = tmp_path / "R.md"
    outcome = CliRunner().invoke(main, ["report", *files, "--corpus", str(corpus), "--output", str(report)])
    assert outcome.exit_code == 0, outcome.output
    section = by_score[by_score.index("## Release history") :]
    assert section == report.read_text()[report.read_text().index("## Release history") :]


# -- a real run over two releases ----------------------------------------------------------------


def _pypi_reachable() -> bool:
    try:
        urllib.request.urlopen("https://pypi.org/simple/openai/", timeout=5).close()
    except OSError:
        return False
    return True


def test_two_real_releases_are_scored_each_in_its_own_cached_environment(tmp_path):
    if not _pypi_reachable():
        pytest.skip("PyPI is not reachable: the releases cannot be installed")
    outcome = CliRunner().invoke(
        main, ["history", "--adapter", "openai-python-chat", "--versions", "3.57.0,3.56.0", "--results", str(tmp_path)]
    )
    assert outcome.exit_code == 0, outcome.output
    count = len(load_corpus().select({"openai-chat"}, set()))
    for version in ("3.56.0", "3.57.0"):
        release = read_release(release_path(tmp_path, "openai-python-chat", version))
        assert release.status == SCORED
        assert release.results.adapter["version"] == version  # the driver reports the release it imported
        assert len(release.results.records) == count
        assert ensure_release(find_target("openai-python-chat"), version, log=lambda _: None).built is False


PIP_CONFLICT = """ERROR: Cannot install langchain-openai==1.0.0 and openai==3.57.0 because these package versions have conflicting dependencies.

The conflict is caused by:
    The user requested openai==3.57.0
    langchain-openai 1.0.0 depends on openai<3.0.0 and >=1.109.1

To fix this you could try to:
1. loosen the range of package versions you've specified

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts
"""


def test_a_release_contradicting_the_adapters_other_direct_pins_is_installed_with_only_the_library_pinned(tmp_path):
    target = find_target("langchain-openai-chat")  # langchain-openai 1.0.0 caps openai below the pinned 3.x
    calls = []

    def run(command, cwd):
        calls.append(command)
        pinned = "pip" in command and not command[-1].endswith("history-requirements-unpinned.txt")
        return (1, PIP_CONFLICT) if pinned else (0, "")

    built = ensure_release(target, "1.0.0", envs_dir=tmp_path, log=lambda _: None, run=run)
    assert built.unpinned == ("langchain-core", "langchain-anthropic", "openai", "anthropic", "httpx2")
    assert not built.constrained and len(calls) == 4  # venv, constrained, unconstrained, unpinned
    where = tmp_path / "history" / "langchain-openai-chat" / "1.0.0"
    loose = (where / "history-requirements-unpinned.txt").read_text().splitlines()
    assert loose == ["langchain-core", "langchain-openai==1.0.0", "langchain-anthropic", "openai", "anthropic", "httpx2"]
    again = ensure_release(target, "1.0.0", envs_dir=tmp_path, log=lambda _: None, run=run)
    assert (again.built, again.unpinned) == (False, built.unpinned) and len(calls) == 4

    def refused(command, cwd):
        return (1, PIP_CONFLICT) if "pip" in command else (0, "")

    with pytest.raises(NotInstallable) as raised:  # pip's own conflict, not its bare ResolutionImpossible line
        ensure_release(target, "0.0.1", envs_dir=tmp_path, log=lambda _: None, run=refused)
    assert str(raised.value) == (
        "pip install failed: ResolutionImpossible: The user requested openai==3.57.0; "
        "langchain-openai 1.0.0 depends on openai<3.0.0 and >=1.109.1"
    )
    assert not (tmp_path / "history" / "langchain-openai-chat" / "0.0.1").exists()


def test_a_node_release_is_a_copy_of_the_driver_folder_with_the_version_written_in_and_npm_install(tmp_path):
    target = find_target("openai-node-chat")
    calls = []

    def run(command, cwd):
        calls.append((command, cwd))
        return 0, ""

    built = ensure_release(target, "6.0.0", envs_dir=tmp_path, log=lambda _: None, run=run)
    folder = Path(built.launch.cwd)
    assert json.loads((folder / "package.json").read_text())["dependencies"]["openai"] == "6.0.0"
    assert not (folder / "package-lock.json").exists() and (folder.parent / "common").is_dir()
    assert calls == [(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], folder)]
    assert ensure_release(target, "6.0.0", envs_dir=tmp_path, log=lambda _: None, run=run).built is False
    assert len(calls) == 1

    def refused(command, cwd):
        return 1, "npm error code ETARGET\nnpm error notarget No matching version found for openai@0.0.1.\n"

    with pytest.raises(NotInstallable, match=r"^npm install failed: npm error notarget No matching version found"):
        ensure_release(target, "0.0.1", envs_dir=tmp_path, log=lambda _: None, run=refused)
    assert not (tmp_path / "history" / "openai-node-chat" / "0.0.1").exists()


# -- JVM and Go releases, and a library's API boundaries -----------------------------------------


def _recording(calls, status=0, output=""):
    def run(command, cwd):
        calls.append((list(command), Path(cwd)))
        return status, output

    return run


def test_a_jvm_release_is_the_driver_built_from_a_copy_of_its_pom_with_the_librarys_group_at_that_release(tmp_path):
    target = find_target("koog-openai-chat")
    assert target.package == "ai.koog:prompt-executor-openai-client-jvm"  # the manifest's history.package
    calls = []
    built = ensure_release(target, "1.0.0", envs_dir=tmp_path, log=lambda _: None, run=_recording(calls))
    (command, cwd), = calls
    assert command[0] == "mvn" and command[-3:] == ["-f", "pom.xml", "package"]
    assert f"-Dmaven.repo.local={tmp_path / 'maven-repository'}" in command
    pom = (cwd / "pom.xml").read_text()
    # Koog's client and its Ktor HTTP client are one release: both move; Ktor's own pin stays.
    assert pom.count("<version>1.0.0</version>") == 2 and "<version>1.1.1</version>" not in pom
    assert "<ktor.version>3.3.3</ktor.version>" in pom
    assert (cwd.parent / "common").is_dir() and (cwd.parent / "pom.xml").is_file()
    assert built.launch.command[-2:] == (str(cwd / "target" / "driver.jar"), "chat")
    assert built.launch.env["DELTACHECK_ADAPTER_NAME"] == "koog-openai-chat" and built.constrained
    (cwd / "target").mkdir()
    (cwd / "target" / "driver.jar").write_bytes(b"jar")
    assert ensure_release(target, "1.0.0", envs_dir=tmp_path, log=lambda _: None, run=_recording(calls)).built is False
    assert len(calls) == 1


def test_a_jvm_release_the_driver_does_not_compile_against_is_not_installable_with_the_compilers_line(tmp_path):
    target = find_target("spring-ai-openai-chat")
    where = tmp_path / "history" / "spring-ai-openai-chat" / "1.1.8" / "src"
    output = (
        "\x1b[0m\x1b[0m[ERROR] COMPILATION ERROR : \n"
        f"[ERROR] {where}/spring-ai/src/main/java/dev/deltacheck/springai/SpringAiDriver.java:[3,23] "
        "package com.openai.core does not exist\n[ERROR] Failed to execute goal x\n[ERROR] -> [Help 1]\n"
    )
    with pytest.raises(NotInstallable) as raised:
        ensure_release(target, "1.1.8", envs_dir=tmp_path, log=lambda _: None, run=_recording([], 1, output))
    assert str(raised.value) == (
        "mvn package failed: SpringAiDriver.java:[3,23] package com.openai.core does not exist"
    )
    assert not where.parent.exists()
    for unresolved in (
        "\x1b[0m[ERROR] Failed to execute goal on project d: Could not resolve dependencies for project x: "
        "Could not find artifact a:b:jar:0.5.0 in central (https://repo.maven.apache.org/maven2) -> [Help 1]\n",
        "[ERROR] Failed to execute goal on project d: Could not resolve dependencies for project x: a:b:jar:0.5.0 was "
        "not found in https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached\n",
    ):
        with pytest.raises(NotInstallable) as raised:
            ensure_release(target, "0.5.0", envs_dir=tmp_path, log=lambda _: None, run=_recording([], 1, unresolved))
        assert str(raised.value) == "mvn package failed: Could not resolve dependencies: a:b:jar:0.5.0 is not served"


def test_a_go_release_is_go_get_of_the_module_at_that_release_then_go_build_in_a_copy(tmp_path):
    target = find_target("openai-go-chat")
    assert target.package == "github.com/openai/openai-go/v3"
    calls = []
    built = ensure_release(target, "v3.1.0", envs_dir=tmp_path, log=lambda _: None, run=_recording(calls))
    source = tmp_path / "history" / "openai-go-chat" / "v3.1.0" / "src"
    assert calls == [
        (["go", "get", "github.com/openai/openai-go/v3@v3.1.0"], source),
        (["go", "build", "-trimpath", "-o", str(source.parent / "driver"), "./openai-go"], source),
    ]
    assert (source / "go.mod").is_file() and (source / "common").is_dir()
    assert built.launch.command == (str(source.parent / "driver"), "chat")
    failed = "# x\nopenai-go/main.go:100:31: accumulator.JustFinishedToolCallForChoice undefined\n"
    with pytest.raises(NotInstallable, match=r"^go build failed: main.go:100:31: accumulator"):
        ensure_release(target, "v3.2.0", envs_dir=tmp_path, log=lambda _: None, run=_build_fails(failed))


def _build_fails(output):
    def run(command, cwd):
        return (1, output.replace("openai-go/main.go", f"{cwd}/openai-go/main.go")) if "build" in command else (0, "")

    return run


def test_releases_below_an_api_boundary_are_built_from_the_older_driver_and_answer_to_the_historys_name(tmp_path):
    newer = find_target("spring-ai-openai-chat")
    older = find_target("spring-ai-openai-chat@2.0.0")
    target = Target(newer.manifest, newer.pin, (("2.0.1", Driving(older.manifest, older.pin)),))
    assert target.driving("2.0.1").manifest.name == "spring-ai-openai-chat"
    assert target.driving("2.0.0-RC1").manifest.name == "spring-ai-openai-chat@2.0.0"
    calls = []
    built = ensure_release(target, "2.0.0-RC1", envs_dir=tmp_path, log=lambda _: None, run=_recording(calls))
    (command, cwd), = calls
    assert command[-3:] == ["-f", "pom-2.0.0.xml", "package"]
    assert "<version>2.0.0-RC1</version>" in (cwd / "pom-2.0.0.xml").read_text()
    assert built.driven_by == "spring-ai-openai-chat@2.0.0"
    assert built.launch.env["DELTACHECK_ADAPTER_NAME"] == "spring-ai-openai-chat"


def test_a_manifests_history_hints_are_read_and_a_boundary_naming_no_adapter_is_one_line(tmp_path):
    folder = tmp_path / "adapters" / "demo"
    folder.mkdir(parents=True)
    (folder / "requirements.txt").write_text("demo-lib==2.0.0\nother==1.0.0\n")
    entry = {"name": "demo-chat", "language": "python", "entry": "adapters.demo.adapter:Demo", "requirements": "requirements.txt"}
    old = {**entry, "name": "demo-chat@1"}
    hints = {"package": "other", "older_releases": [{"below": "1.0.0", "adapter": "demo-chat@1"}]}
    (folder / "manifest.json").write_text(json.dumps([{**entry, "history": hints}, old]))
    target = find_target("demo-chat", adapters_dir=tmp_path / "adapters")
    assert target.package == "other" and target.driving("0.9").manifest.name == "demo-chat@1"
    hints["older_releases"][0]["adapter"] = "nope"
    (folder / "manifest.json").write_text(json.dumps([{**entry, "history": hints}, old]))
    with pytest.raises(NoHistory, match=r"history.older_releases of 'demo-chat': 'nope' is not a python adapter"):
        find_target("demo-chat", adapters_dir=tmp_path / "adapters")


def test_a_release_scored_by_an_older_driver_says_so_in_the_trend(tmp_path):
    from deltacheck.history.store import read_histories
    from deltacheck.reports.history import trend_rows

    _release(tmp_path, "miniature-raises", "1.0.0", SCORED, False, driver="miniature-raises@1")
    _release(tmp_path, "miniature-raises", "2.0.0", SCORED, False)
    (history,) = read_histories([tmp_path])
    assert [row[4] for row in trend_rows(history)] == ["scored by the miniature-raises@1 driver", ""]


def test_the_report_says_once_a_version_every_driver_reported_and_caps_the_findings_listed(tmp_path):
    from deltacheck.history.store import read_histories
    from deltacheck.reports.history import history_summary, since_text
    from deltacheck.reports.links import SiteLinks

    for version in ("1.0.0", "1.1.0"):
        _release(tmp_path, "miniature-raises", version, SCORED, False, reported_version="7.0.1")
    moved = {"axis": "arguments", "fixtures": ["DC-T00K"], "since": "1.1.0", "since_oldest": False, "skipped": []}
    findings = [{**moved, "what": f"finding {i}", "fixed_in": None} for i in range(10)]
    (tmp_path / "miniature-raises" / "bisect.json").write_text(json.dumps({"findings": findings}))
    text = "\n".join(history_summary(read_histories([tmp_path]), SiteLinks("")))
    assert text.count("7.0.1") == 1 and "Every release's driver reported openai 7.0.1" in text
    assert "finding 7" in text and "finding 8" not in text
    assert "- 2 more finding(s) that appeared or were fixed: on the page of [miniature-raises]" in text
    oldest = {"since": "1.1.0", "since_oldest": True, "fixed_in": "1.2.0", "skipped": ["0.9.0", "1.0.0"]}
    assert since_text(oldest) == "at or before 1.1.0 (the 2 older release(s) unscorable), fixed in 1.2.0"
