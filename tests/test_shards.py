"""`score --shard I/N` and `report/site --results DIR ...`: shards run apart and merge into the unsharded report."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import deltacheck.driver.external
from deltacheck.adapter import registered_adapters
from deltacheck.cli import main
from deltacheck.running.shard_plan import GATEWAY_JOB_PREFIX, GATEWAY_ROUTE, GATEWAY_START, JOB_COST, plan_shard
from deltacheck.gateways.bundled import load_gateways
from deltacheck.driver.manifests import load_manifests
from deltacheck.reports.cost import differences
from deltacheck.running.shards import Shard, shard_jobs
from tests.test_cost import GOOD, scenario_corpus

REPO = Path(__file__).resolve().parents[1]
# The reference and three fast in-process adapters, named as a user names theirs (MODULE:CLASS), so a
# process of its own finds them; their results files are named by the adapters' names.
ADAPTERS = ["reference", "tests.miniatures:DropsLastPart", "tests.miniatures:TextOnly", "tests.miniatures:Raises"]
NAMES = ["reference", "miniature-drops-last-part", "miniature-text-only", "miniature-raises"]


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command line in a process of its own, as a CI runner runs it."""
    command = [sys.executable, "-c", "from deltacheck.cli import main; main(prog_name='deltacheck')", *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)


def score_args(results: Path, *more: str) -> list[str]:
    args = ["score", "--results-dir", str(results), "--examples", "2", "--no-cost", "-j", "1", *more]
    for adapter in ADAPTERS:
        args += ["--adapter", adapter]
    return args


def test_three_shards_run_as_separate_processes_merge_into_the_unsharded_report_byte_for_byte(tmp_path):
    whole = cli(*score_args(tmp_path / "whole" / "results", "--output", str(tmp_path / "whole" / "REPORT.md")))
    assert whole.returncode == 0, whole.stderr
    folders = [tmp_path / f"shard-{i}" for i in (1, 2, 3)]
    for i, folder in enumerate(folders, 1):
        shard = cli(*score_args(folder, "--shard", f"{i}/3"))
        assert shard.returncode == 0, shard.stderr
        assert f"shard {i}/3: " in shard.stderr and "deltacheck report --results DIR --results DIR" in shard.stderr
        assert not (folder / "REPORT.md").exists() and not (tmp_path / "REPORT.md").exists()
    # Each adapter's results (and its fuzzing) in exactly one shard; the mutants in shard 1 only.
    for name in NAMES:
        holders = [f.name for f in folders if (f / f"{name}.jsonl").exists()]
        assert len(holders) == 1, (name, holders)
        assert (tmp_path / holders[0] / f"fuzz-{name}.jsonl").exists()
    assert [(f / "mutants.jsonl").exists() for f in folders] == [True, False, False]
    assert all(any(f.glob("*.jsonl")) for f in folders)  # four jobs over three shards: none is empty

    merged = tmp_path / "merged"
    shards = [arg for folder in folders for arg in ("--results", str(folder))]
    report = cli("report", *shards, "--output", str(merged / "REPORT.md"), "--junit", str(merged / "junit.xml"))
    assert report.returncode == 0, report.stderr
    assert "from 4 results file(s)" in report.stderr
    assert (merged / "REPORT.md").read_bytes() == (tmp_path / "whole" / "REPORT.md").read_bytes()
    assert (merged / "junit.xml").read_bytes() == (tmp_path / "whole" / "results" / "junit.xml").read_bytes()

    for out, results in ((merged / "site", shards), (tmp_path / "whole" / "site", ["--results", str(tmp_path / "whole" / "results")])):
        site = cli("site", *results, "--out", str(out))
        assert site.returncode == 0, site.stderr
    assert _same_tree(merged / "site", tmp_path / "whole" / "site")


def _same_tree(left: Path, right: Path) -> bool:
    files = sorted(p.relative_to(left) for p in left.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(right) for p in right.rglob("*") if p.is_file())
    _, mismatch, errors = filecmp.cmpfiles(left, right, [str(f) for f in files], shallow=False)
    return files != [] and mismatch == errors == []


def test_the_cost_rows_of_every_shard_reach_the_merged_report(tmp_path):
    """Timings differ from one run to the next by nature: the rows must be the same, the figures may not."""
    corpus = scenario_corpus(tmp_path, {"chat-tool.json": {**GOOD, "sizes": [100, 200]}})
    runner = CliRunner()

    def score(results: Path, *more: str):
        args = ["score", "--corpus", str(corpus), "--results-dir", str(results), "--examples", "0", "-j", "1"]
        return runner.invoke(main, [*args, "--adapter", "reference", "--adapter", "miniature-async", *more])

    whole = score(tmp_path / "whole", "--output", str(tmp_path / "whole.md"))
    assert whole.exit_code == 0, whole.output
    for i in (1, 2):
        outcome = score(tmp_path / f"shard-{i}", "--shard", f"{i}/2")
        assert outcome.exit_code == 0, outcome.output
    assert [p.name for p in (tmp_path / "shard-1").glob("cost-*")] == ["cost-miniature-async.jsonl"]
    assert [p.name for p in (tmp_path / "shard-2").glob("cost-*")] == ["cost-reference.jsonl"]
    merged = runner.invoke(main, ["report", "--corpus", str(corpus), "--output", str(tmp_path / "merged.md"),
                                  "--results", str(tmp_path / "shard-1"), "--results", str(tmp_path / "shard-2")])
    assert merged.exit_code == 0, merged.output
    text = (tmp_path / "merged.md").read_text()
    assert "| reference | 1 |" in text and "| miniature-async | 1 |" in text
    assert differences((tmp_path / "whole.md").read_text(), text, "REPORT.md") == []
    one_shard = runner.invoke(main, ["report", "--corpus", str(corpus), "--output", str(tmp_path / "half.md"),
                                     "--results", str(tmp_path / "shard-1")])
    assert one_shard.exit_code == 0 and differences((tmp_path / "whole.md").read_text(),
                                                    (tmp_path / "half.md").read_text(), "REPORT.md") != []


# -- which shard runs which job --------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.text(min_size=1, max_size=8), max_size=40), count=st.integers(1, 7), data=st.data())
def test_every_job_lands_in_exactly_one_shard_and_each_group_in_one(names, count, data):
    costs = data.draw(st.dictionaries(st.sampled_from(names), st.integers(0, 50))) if names else {}
    shards = [shard_jobs(names, Shard(i, count), lambda n: costs.get(n, 1), lambda n: n[0]) for i in range(1, count + 1)]
    landed = [name for shard in shards for name in shard]
    assert sorted(landed) == sorted(set(names))  # every one, once
    for shard in shards:
        assert shard == [n for n in dict.fromkeys(names) if n in shard]  # in the order given
    for first in {n[0] for n in names}:
        assert sum(any(n[0] == first for n in shard) for shard in shards) == 1
    shuffled = data.draw(st.permutations(names))
    assert [sorted(shard_jobs(shuffled, Shard(i, count), lambda n: costs.get(n, 1), lambda n: n[0]))
            for i in range(1, count + 1)] == [sorted(shard) for shard in shards]  # whatever order they come in


def test_with_equal_costs_the_jobs_are_dealt_round_robin_in_name_order():
    names = ["e", "b", "a", "d", "c"]
    assert [shard_jobs(names, Shard(i, 2)) for i in (1, 2)] == [["e", "a", "c"], ["b", "d"]]


def bundled_plans(count: int) -> list:
    return [plan_shard(Shard(i, count), [], False, (), True) for i in range(1, count + 1)]


@pytest.mark.parametrize("count", range(1, 8))
def test_every_bundled_job_lands_in_exactly_one_shard_and_an_environment_is_built_in_one(count):
    manifests = {m.name: m for m in load_manifests().adapters}
    plans = bundled_plans(count)
    adapters = [name for plan in plans for name in plan.adapters]
    in_process = {name for name, factory in registered_adapters().items() if isinstance(factory, type)}
    assert "reference" in in_process  # (and here the tests' miniatures)
    assert sorted(adapters) == sorted({*manifests, *in_process})
    assert sorted(g for plan in plans for g in plan.gateways) == ["claude-code-router", "litellm-proxy"]
    assert {plan.total for plan in plans} == {len(manifests) + len(in_process) + 2}
    for env in {m.env_name for m in manifests.values()}:
        assert sum(any(manifests[n].env_name == env for n in plan.adapters if n in manifests) for plan in plans) == 1
    assert [plan.writes_mutants for plan in plans] == [True] + [False] * (count - 1)


def test_the_slow_jobs_are_spread_so_three_shards_take_about_as_long():
    manifests = {m.name: m for m in load_manifests().adapters}
    routes = {g.name: len(g.specs()) for g in load_gateways()[0]}
    loads, languages = [], []
    for plan in bundled_plans(3):
        kinds = [manifests[n].language if n in manifests else "in-process" for n in plan.adapters]
        languages.append(set(kinds))
        loads.append(sum(JOB_COST[k] for k in kinds) + sum(GATEWAY_START + GATEWAY_ROUTE * routes[g] for g in plan.gateways))
    assert max(loads) <= 1.1 * min(loads), loads
    assert all("java" in kinds for kinds in languages)  # the JVM adapters do not pile up in one shard


def test_the_shards_do_not_depend_on_the_toolchains_of_the_machine(monkeypatch):
    everywhere = bundled_plans(3)
    monkeypatch.setattr(deltacheck.driver.external, "missing_tool", lambda language: "java" if language == "java" else None)
    assert "spring-ai-openai-chat" not in registered_adapters()  # this machine cannot run the JVM adapters
    assert [(p.adapters, p.gateways) for p in bundled_plans(3)] == [(p.adapters, p.gateways) for p in everywhere]


def test_routes_named_with_gateway_stay_the_only_ones_run_in_the_shard_holding_their_gateway():
    route = "litellm-proxy-chat-to-chat"
    plans = [plan_shard(Shard(i, 2), ["reference"], True, (route,), True) for i in (1, 2)]
    assert sorted((p.adapters, p.gateways, p.gateway_filter) for p in plans) == [
        ([], ["litellm-proxy"], (route,)), (["reference"], [], ())]
    assert {p.total for p in plans} == {2}
    assert GATEWAY_JOB_PREFIX + "litellm-proxy" not in [n for p in plans for n in p.adapters]


def test_a_shard_with_no_job_writes_nothing_and_says_so(tmp_path):
    outcome = CliRunner().invoke(main, ["score", "--adapter", "reference", "--results-dir", str(tmp_path / "r"),
                                        "--examples", "0", "--no-cost", "--shard", "2/2"])
    assert outcome.exit_code == 0, outcome.output
    assert "shard 2/2: 0 of 1 jobs, 0 results file(s)" in outcome.output
    assert sorted(p.name for p in (tmp_path / "r").glob("*.jsonl")) == []


# -- usage errors and refusals --------------------------------------------------------------------------


@pytest.mark.parametrize("value, why", [
    ("0/3", "1 ≤ I ≤ N, got 0/3"), ("4/3", "1 ≤ I ≤ N, got 4/3"), ("1/0", "got 1/0"), ("3", "expected I/N"),
    ("a/b", "expected I/N"), ("-1/3", "expected I/N"), ("2/", "expected I/N"), ("1/2/3", "expected I/N"),
])
def test_a_bad_shard_is_a_usage_error_naming_the_option(tmp_path, value, why):
    outcome = CliRunner().invoke(main, ["score", "--adapter", "reference", "--results-dir", str(tmp_path), "--shard", value])
    assert outcome.exit_code == 2
    assert "Invalid value for '--shard'" in outcome.output and why in outcome.output
    assert "Traceback" not in outcome.output and not list(tmp_path.iterdir())


def test_a_sharded_score_refuses_to_write_a_report(tmp_path):
    outcome = CliRunner().invoke(main, ["score", "--adapter", "reference", "--shard", "1/2",
                                        "--output", str(tmp_path / "REPORT.md")])
    assert outcome.exit_code == 2 and "--output: a sharded score (--shard) writes no report" in outcome.output


@pytest.fixture
def two_runs(tmp_path):
    """Two folders that both hold reference.jsonl (one run scored twice), and one with another adapter."""
    for folder, adapter in (("a", "reference"), ("b", "reference"), ("c", "miniature-raises")):
        outcome = CliRunner().invoke(main, ["run", "--adapter", adapter, "--results",
                                            str(tmp_path / folder / f"{adapter}.jsonl")])
        assert outcome.exit_code in (0, 1), outcome.output
    return tmp_path


@pytest.mark.parametrize("command, out", [("report", "--output"), ("site", "--out")])
def test_a_results_file_in_two_folders_is_refused_naming_both(two_runs, command, out):
    target = two_runs / "out"
    outcome = CliRunner().invoke(main, [command, "--results", str(two_runs / "a"), "--results", str(two_runs / "c"),
                                        "--results", str(two_runs / "b"), out, str(target)])
    assert outcome.exit_code == 1
    assert (f"Error: {two_runs / 'a' / 'reference.jsonl'} and {two_runs / 'b' / 'reference.jsonl'}: "
            "reference.jsonl is in two results folders") in outcome.output
    assert len(outcome.output.strip().splitlines()) == 1 and not target.exists()


def test_merging_names_other_mistakes_in_one_line(two_runs):
    runner = CliRunner()
    twice = runner.invoke(main, ["report", "--results", str(two_runs / "a"), "--results", str(two_runs / "a") + "/"])
    assert twice.exit_code == 2 and f"--results {two_runs / 'a'} is given twice" in twice.output
    both = runner.invoke(main, ["report", str(two_runs / "a" / "reference.jsonl"), "--results", str(two_runs / "c")])
    assert both.exit_code == 2 and "give results files or --results folders, not both" in both.output
    (two_runs / "empty").mkdir()
    empty = runner.invoke(main, ["site", "--results", str(two_runs / "empty")])
    assert empty.exit_code == 2 and f"no results files in {two_runs / 'empty'} (--results)" in empty.output
    merged = runner.invoke(main, ["report", "--results", str(two_runs / "a"), "--results", str(two_runs / "c"),
                                  "--output", str(two_runs / "REPORT.md")])
    assert merged.exit_code == 0 and "from 2 results file(s)" in merged.output
    assert not (two_runs / "a" / "junit.xml").exists()  # JUnit only where asked when merging


def test_a_gateway_manifest_that_does_not_load_is_said_once_by_shard_1_when_no_shard_runs_a_gateway(monkeypatch):
    import deltacheck.gateways.bundled
    monkeypatch.setattr(deltacheck.gateways.bundled, "load_gateways", lambda: ([], ["adapters/gateways/x: not JSON"]))
    plans = [plan_shard(Shard(i, 3), ["reference"], False, (), True) for i in (1, 2, 3)]
    assert [p.gateway_problems for p in plans] == [["adapters/gateways/x: not JSON"], [], []]
    assert [p.gateways for p in plans] == [[], [], []]
