"""`run`, `score` and `report`: scoring implementations over the corpus and writing REPORT.md (the summary;
`deltacheck site`, cli/site.py, writes the results site it links to)."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import click

import deltacheck
from deltacheck.adapter import get_adapter_factory, registered_adapters
from deltacheck.cli.adequacy import write_mutation_results
from deltacheck.cli.common import (
    Seconds,
    adapter_cmd_option,
    adapter_option,
    corpus_option,
    err,
    open_adapter,
    say,
    shard_option,
    started,
    startup_timeout_option,
    warn_manifest_problems,
    writable_file,
)
from deltacheck.cli.expectations import check_expectations, read_expectations
from deltacheck.cli.gateway import GatewayChoice, gateway_options, run_proxy_mode, score_gateways, wants_gateway
from deltacheck.cli.recording import run_and_record
from deltacheck.cli.score_jobs import jobs_option, score_adapters
from deltacheck.corpus.loader import Corpus, load_corpus
from deltacheck.errors import BadAdapterSpec, DriverFailed, EnvironmentFailed, InvalidResults, UnknownAdapter
from deltacheck.files import write_text_atomically
from deltacheck.judge.verdict import PASSING, UNSCORED
from deltacheck.locations import default_report, default_results_dir, file_stem
from deltacheck.protocols import PROTOCOLS
from deltacheck.reports.export import render_junit
from deltacheck.reports.inputs import (
    DuplicateResults,
    InputFiles,
    files_beside,
    history_roots,
    merged_files,
    read_inputs,
    results_files,
)
from deltacheck.reports.scorecard import render_report
from deltacheck.running.results import read_results
from deltacheck.running.runner import DEFAULT_MAX_TIMEOUTS, DEFAULT_TIMEOUT
from deltacheck.running.shard_plan import ShardPlan, plan_shard
from deltacheck.running.shards import Shard

max_timeouts_option = click.option(
    "--max-timeouts",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_TIMEOUTS,
    show_default=True,
    help="After this many timeouts in a row, stop asking the adapter; the rest are recorded as skipped (0: never).",
)


site_url_option = click.option(
    "--site-url",
    envvar="DELTACHECK_SITE_URL",
    metavar="URL",
    default=None,
    help="Where the results site is published: REPORT.md's links become absolute (env DELTACHECK_SITE_URL). "
    "Default: links relative to the report (site/...).",
)


# -- run -----------------------------------------------------------------------------------------


@click.command()
@adapter_option
@adapter_cmd_option
@corpus_option
@click.option("--protocol", "protocols", multiple=True, type=click.Choice(PROTOCOLS), help="Only these protocols.")
@click.option("--fixture", "fixture_ids", multiple=True, metavar="ID", help="Only these fixture ids (repeatable).")
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=writable_file,
    help="Results file (JSON lines). Default: results/<adapter>.jsonl",
)
@click.option(
    "--junit",
    "junit_path",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=writable_file,
    help="Also write the verdicts as JUnit XML, for CI systems that read it.",
)
@click.option(
    "--expectations",
    "expectations_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Expected verdicts (TOML): exit 0 when every verdict is as expected, 1 naming each difference.",
)
@click.option(
    "--update-expectations",
    is_flag=True,
    help="Write the run's verdicts into the --expectations file (created when missing).",
)
@click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds per fixture.")
@max_timeouts_option
@startup_timeout_option
@gateway_options
@click.pass_context
def run(
    ctx: click.Context,
    adapter_name: str | None,
    adapter_cmd: str | None,
    corpus_dir: Path,
    protocols: tuple[str, ...],
    fixture_ids: tuple[str, ...],
    results_path: Path | None,
    junit_path: Path | None,
    expectations_path: Path | None,
    update_expectations: bool,
    timeout: float,
    max_timeouts: int,
    startup_timeout: float,
    gateway_name: str | None,
    gateway_cmd: str | None,
    upstream: str | None,
    downstream: str | None,
    gateway_model: str,
    gateway_path: str | None,
    gateway_ready: str | None,
) -> None:
    """Run fixtures through one adapter, or one gateway (proxy mode), and write one JSON line per fixture.

    Without --expectations the exit status is 1 when any fixture fails; with it, 1 only when a
    verdict differs from the expected one.
    """
    if update_expectations and expectations_path is None:
        raise click.UsageError("--update-expectations needs --expectations FILE")
    if wants_gateway(gateway_name, gateway_cmd) and (adapter_name or adapter_cmd):
        raise click.UsageError(
            "give an adapter (--adapter, --adapter-cmd) or a gateway (--gateway, --gateway-cmd), not both"
        )
    corpus = load_corpus(corpus_dir)
    unknown = corpus.unknown_ids(fixture_ids)
    if unknown:
        raise click.UsageError(f"no fixture with id {', '.join(unknown)} in {corpus_dir}")
    expectations = None
    if expectations_path is not None and not (update_expectations and not expectations_path.exists()):
        expectations = read_expectations(expectations_path, corpus)
    if wants_gateway(gateway_name, gateway_cmd) or upstream or downstream or gateway_path or gateway_ready:
        given = ctx.get_parameter_source("startup_timeout") is not click.core.ParameterSource.DEFAULT
        sys.exit(
            run_proxy_mode(
                corpus,
                GatewayChoice(
                    gateway_name,
                    gateway_cmd,
                    upstream,
                    downstream,
                    gateway_model,
                    gateway_path,
                    gateway_ready,
                    startup_timeout if given else None,
                ),
                protocols,
                fixture_ids,
                results_path,
                junit_path,
                timeout,
                max_timeouts,
                expectations_path,
                expectations,
                update_expectations,
            )
        )
    adapter = open_adapter(adapter_name, adapter_cmd, startup_timeout)
    try:
        with started(adapter):
            _check_spoken(adapter, corpus, protocols, fixture_ids)  # before the results file is opened
            if (
                expectations is not None
                and expectations.adapter not in (None, adapter.name)
                and not update_expectations
            ):
                raise click.UsageError(
                    f"{expectations_path}: expectations of adapter {expectations.adapter!r}, not of {adapter.name!r}"
                )
            counts, verdicts, results_path = run_and_record(
                adapter, corpus, set(protocols), set(fixture_ids), results_path, timeout, max_timeouts
            )
    except (EnvironmentFailed, DriverFailed) as exc:
        raise click.ClickException(str(exc)) from None
    if junit_path is not None:
        write_junit(junit_path, [read_results(results_path)], corpus.version)
    if expectations_path is not None:
        sys.exit(
            check_expectations(expectations_path, expectations, adapter.name, corpus, verdicts, update_expectations)
        )
    failed = sum(v for k, v in counts.items() if k not in PASSING | UNSCORED)
    sys.exit(1 if failed else 0)


def _check_spoken(adapter, corpus: Corpus, protocols: tuple[str, ...], ids: tuple[str, ...]) -> None:
    """A protocol or fixture the adapter cannot run is a usage error, not an empty run over its results file."""
    for protocol in protocols:
        if protocol not in adapter.protocols:
            raise click.UsageError(
                f"adapter {adapter.name!r} does not speak {protocol} (it speaks {', '.join(sorted(adapter.protocols))})"
            )
    fixtures = corpus.by_id()
    for fixture_id in ids:
        fixture = fixtures.get(fixture_id)  # a fixture that does not load is run as a recorded skip
        if fixture is not None and fixture.protocol not in adapter.protocols:
            raise click.UsageError(
                f"fixture {fixture_id} is {fixture.protocol}, which adapter {adapter.name!r} "
                f"does not speak (it speaks {', '.join(sorted(adapter.protocols))})"
            )


# -- score: the main job -------------------------------------------------------------------------


@click.command()
@corpus_option
@click.option(
    "--adapter",
    "adapter_names",
    multiple=True,
    metavar="NAME|MODULE:CLASS|FILE.py:CLASS",
    help="Only these adapters (default: every in-process and manifest adapter).",
)
@click.option(
    "--results-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="results/ in the checkout or the current directory",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=writable_file,
    show_default="REPORT.md in the checkout or the current directory",
)
@click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds per fixture.")
@click.option(
    "--examples",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Fuzz examples per fixture and mode for each adapter (0: no fuzzing).",
)
@click.option(
    "--cost/--no-cost",
    "with_cost",
    default=True,
    show_default=True,
    help="Also time every adapter on the long-stream scenarios (results/cost-<adapter>.jsonl).",
)
@max_timeouts_option
@click.option(
    "--gateway",
    "gateway_names",
    multiple=True,
    metavar="NAME",
    help="Only these bundled gateways or gateway routes (default: all of them, unless --adapter is given).",
)
@jobs_option
@shard_option
@site_url_option
def score(
    corpus_dir: Path,
    adapter_names: tuple[str, ...],
    results_dir: Path,
    output: Path,
    timeout: float,
    examples: int,
    with_cost: bool,
    max_timeouts: int,
    gateway_names: tuple[str, ...],
    jobs: int | None,
    shard: Shard | None,
    site_url: str | None,
) -> None:
    """Run every adapter over the corpus (building manifest adapters' environments first), then write REPORT.md.

    An adapter whose environment or driver cannot start is reported and left out; the others still
    run, and the exit status is 1. With --shard I/N only that shard's jobs run and no report is
    written: `deltacheck report --results DIR ...` merges the shards' results into one.
    """
    if shard is not None and output is not None:
        raise click.UsageError(
            "--output: a sharded score (--shard) writes no report; `deltacheck report` merges the shards"
        )
    results_dir = results_dir or default_results_dir()
    output = output or default_report()
    corpus = load_corpus(corpus_dir)
    problems = warn_manifest_problems()
    registry = registered_adapters()
    factories = {}
    for spec in adapter_names or tuple(registry):  # bundled names, or a user's MODULE:CLASS / FILE.py:CLASS
        try:
            factory = registry[spec] if spec in registry else get_adapter_factory(spec)
        except (UnknownAdapter, BadAdapterSpec) as exc:
            raise click.UsageError(str(exc)) from None
        factories[factory.name] = factory
    with_gateways = bool(gateway_names or not adapter_names)  # proxy mode: every bundled gateway route by default
    plan = None
    if shard is not None:
        plan = plan_shard(shard, list(factories), bool(adapter_names), gateway_names, with_gateways)
        # A chosen adapter this machine has no toolchain for is not in the registry: skipped, as unsharded.
        factories = {n: f for n, f in factories.items() if n in plan.adapters}
        with_gateways, gateway_names = bool(plan.gateways), plan.gateway_filter
        for problem in plan.gateway_problems:
            say("gateway problem", "yellow", problem)
    gateways = None
    if with_gateways:  # each route its own results file
        gateways = partial(score_gateways, corpus, results_dir, timeout, max_timeouts, gateway_names)
    ran, not_run, gateway_files = score_adapters(
        factories, corpus, results_dir, timeout, max_timeouts, examples, jobs, gateways
    )
    # Once every job above is over: each implementation timed alone, one after another, never beside other work.
    cost_files = _score_cost({n: factories[n] for n in ran}, corpus_dir, results_dir) if with_cost else []
    if plan is None or plan.writes_mutants:  # the corpus's alone: one shard writes them, so the merge finds one
        write_mutation_results(results_dir / "mutants.jsonl", corpus, timeout=5.0)
    fuzz_files = [results_dir / f"fuzz-{file_stem(n)}.jsonl" for n in ran] if examples else []
    if plan is not None:
        not_run += plan.gateway_problems
        _say_shard_written(
            plan, results_dir, [results_dir / f"{file_stem(n)}.jsonl" for n in ran] + gateway_files, corpus
        )
        _exit_if_not_run(not_run, problems)
        return
    _write_report(
        InputFiles(
            sorted([*(results_dir / f"{file_stem(n)}.jsonl" for n in ran), *gateway_files]),
            results_dir / "mutants.jsonl",
            fuzz_files,
            cost_files,
            history_roots(results_dir),  # as `report` reads them: the same results give the same REPORT.md
        ),
        corpus,
        output,
        results_dir / "junit.xml",
        site_url,
    )
    _exit_if_not_run(not_run, problems)


def _exit_if_not_run(not_run: list[str], problems: list) -> None:
    if not_run:
        say(f"{len(not_run)} adapter(s) not run:", "red", ", ".join(not_run))
    if not_run or problems:
        sys.exit(1)


def _say_shard_written(plan: ShardPlan, results_dir: Path, written: list[Path], corpus: Corpus) -> None:
    """A shard's results are a part of a report: its JUnit XML for the CI job, and one line on how to merge."""
    write_junit(results_dir / "junit.xml", [read_results(path) for path in sorted(written)], corpus.version)
    err.print(
        f"shard {plan.shard}: {plan.jobs} of {plan.total} jobs, {len(written)} results file(s) in {results_dir}"
        f"{' with mutants.jsonl' if plan.writes_mutants else ''}; no REPORT.md from one shard: merge every "
        "shard's folder with `deltacheck report --results DIR --results DIR ...` (and `deltacheck site`)",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )


def _score_cost(factories, corpus_dir: Path, results_dir: Path) -> list[Path]:
    """The cost phase (deltacheck.cli.cost.score_cost), imported only when score runs it."""
    from deltacheck.cli.cost import score_cost

    return score_cost(factories, corpus_dir, results_dir)


# -- report --------------------------------------------------------------------------------------


results_dirs_option = click.option(
    "--results",
    "results_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="DIR",
    help="Merge the results folders of several runs, such as the shards of `score --shard` (repeatable); "
    "a file name in two of them is an error.",
)


@click.command()
@click.argument("results_files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@results_dirs_option
@corpus_option
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=writable_file,
    show_default="REPORT.md in the checkout or the current directory",
)
@click.option(
    "--junit",
    "junit_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    callback=writable_file,
    help="Also write JUnit XML (default: results/junit.xml when reading results/).",
)
@site_url_option
def report(
    results_files: tuple[Path, ...],
    results_dirs: tuple[Path, ...],
    corpus_dir: Path,
    output: Path,
    junit_path: Path | None,
    site_url: str | None,
) -> None:
    """Write REPORT.md, the summary scorecard, from results files (default: every results/*.jsonl).

    Fuzz, cost and mutant results are read from beside the results files. The detail is on the results
    site (`deltacheck site`), which REPORT.md links to. --results DIR (repeatable) merges several
    runs' folders, such as the shards of `score --shard`, into the report one run would give.
    """
    files = chosen_inputs(results_files, results_dirs)
    output = output or default_report()
    if junit_path is None and not results_files and not results_dirs:  # only where asked, beside named files
        junit_path = files.results[0].parent / "junit.xml"
    _write_report(files, load_corpus(corpus_dir, check_reference=False), output, junit_path, site_url)


def chosen_inputs(given: tuple[Path, ...], folders: tuple[Path, ...]) -> InputFiles:
    """The results files named, the merged --results folders, or every adapter's in results/ (with
    the fuzz, cost and mutant results beside them); a usage error when there are none."""
    if not folders:
        return files_beside(chosen_results(given))
    if given:
        raise click.UsageError("give results files or --results folders, not both")
    resolved = [folder.resolve() for folder in folders]
    for at, folder in enumerate(resolved):
        if folder in resolved[:at]:
            raise click.UsageError(f"--results {folders[at]} is given twice")
    try:
        files = merged_files(folders)
    except DuplicateResults as exc:
        raise click.ClickException(str(exc)) from None
    if not files.results:
        raise click.UsageError(f"no results files in {', '.join(map(str, folders))} (--results)")
    return files


def chosen_results(given: tuple[Path, ...]) -> list[Path]:
    """The results files named, or every adapter's in results/; a usage error when there are none."""
    results_dir = given[0].parent if given else default_results_dir()
    files = list(given) or results_files(results_dir)
    if not files:
        raise click.UsageError(f"no results files given and none in {results_dir}; run `deltacheck run` first")
    return files


def write_junit(path: Path, results: list, corpus_version: str) -> None:
    write_text_atomically(path, render_junit(results, corpus_version))


def _write_report(
    files: InputFiles, corpus: Corpus, output: Path, junit_path: Path | None, site_url: str | None = None
) -> None:
    try:
        inputs = read_inputs(files)
    except InvalidResults as exc:
        raise click.ClickException(str(exc)) from None
    for read in inputs.results:  # a partial run is reported as what it is, never as a whole one
        if read.ending is not None:
            say("incomplete", "yellow", f"{read.path}: {read.ending}")
    write_text_atomically(
        output,
        render_report(
            inputs.results,
            corpus.version,
            deltacheck.CONTRACT_VERSION,
            inputs.mutation,
            inputs.fuzz,
            inputs.cost,
            {fixture.id: fixture.tags for fixture in corpus.fixtures},
            site=site_url or "site/",  # the site's default folder, beside the report
            history=inputs.history,
        ),
    )
    if junit_path is not None:  # for CI systems that read it
        write_junit(junit_path, inputs.results, corpus.version)
    err.print(f"wrote {output} from {len(inputs.results)} results file(s)")
