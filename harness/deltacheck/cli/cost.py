"""`deltacheck cost`: time one implementation on the long-stream scenarios, and the step `score` runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table

import deltacheck
from deltacheck.cli.common import (
    Seconds,
    adapter_cmd_option,
    adapter_option,
    corpus_option,
    err,
    open_adapter,
    say,
    started,
    startup_timeout_option,
    writable_file,
)
from deltacheck.corpus.loader import fast_result_check, result_validator
from deltacheck.cost.scenarios import load_scenarios
from deltacheck.cost.timing import (
    DEFAULT_BUDGET,
    DEFAULT_STREAM_TIMEOUT,
    Implementation,
    ReferenceBaseline,
    ScenarioCost,
    measure,
)
from deltacheck.errors import DriverFailed, EnvironmentFailed
from deltacheck.files import FileBusy, locked_for_writing, make_parent_folder
from deltacheck.locations import default_results_dir, file_stem
from deltacheck.running.results import ResultsWriter


@click.command()
@adapter_option
@adapter_cmd_option
@corpus_option
@click.option("--scenario", "scenario_ids", multiple=True, metavar="ID", help="Only these scenarios (repeatable).")
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=writable_file,
    help="Results file (JSON lines). Default: results/cost-<adapter>.jsonl",
)
@click.option(
    "--budget",
    type=Seconds(),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Seconds one stream may take: past it, N stops growing for that scenario.",
)
@click.option(
    "--timeout",
    type=Seconds(),
    default=DEFAULT_STREAM_TIMEOUT,
    show_default=True,
    help="Seconds one stream may take before it is a timeout.",
)
@startup_timeout_option
def cost(
    adapter_name: str | None,
    adapter_cmd: str | None,
    corpus_dir: Path,
    scenario_ids: tuple[str, ...],
    results_path: Path | None,
    budget: float,
    timeout: float,
    startup_timeout: float,
) -> None:
    """Time an implementation on the long-stream scenarios (corpus/scenarios) at growing N.

    Every result is judged against the generated expected one; a wrong result is a failure, and the
    exit status is 1.
    """
    specs, problems = load_scenarios(corpus_dir)
    for problem in problems:
        say("skip", "yellow", str(problem))
    unknown = sorted(set(scenario_ids) - {s.id for s in specs} - {p.fixture_id for p in problems})
    if unknown:
        raise click.UsageError(f"no scenario with id {', '.join(unknown)} in {corpus_dir / 'scenarios'}")
    if scenario_ids:
        specs = [s for s in specs if s.id in scenario_ids]
    adapter = open_adapter(adapter_name, adapter_cmd, startup_timeout)
    baseline = ReferenceBaseline()
    try:
        with started(adapter):
            results_path = results_path or default_results_dir() / f"cost-{file_stem(adapter.name)}.jsonl"
            costs = run_cost(adapter, corpus_dir, specs, results_path, budget, timeout, baseline)
    except (EnvironmentFailed, DriverFailed) as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        baseline.close()
    sys.exit(1 if any(c.failure for c in costs) else 0)


def score_cost(factories: dict[str, Any], corpus_dir: Path, results_dir: Path) -> list[Path]:
    """The cost phase of `score`: each implementation started afresh and timed alone, one after another.

    Runs after every conformance and fuzz run has finished, so no other work shares the cores while
    streams are timed. Returns the cost results files written; an implementation that cannot start
    is reported and left out of the Cost section.
    """
    specs, problems = load_scenarios(corpus_dir)
    for problem in problems:
        say("skip", "yellow", str(problem))
    if not specs:
        return []
    written = []
    baseline = ReferenceBaseline()
    try:
        for name, factory in factories.items():
            path = results_dir / f"cost-{file_stem(name)}.jsonl"
            try:
                adapter = factory()
                with started(adapter):
                    run_cost(adapter, corpus_dir, specs, path, baseline=baseline)
            except (EnvironmentFailed, DriverFailed, FileBusy) as exc:
                say("cost not run", "red", f"{name}: {exc}")
                continue
            written.append(path)
    finally:
        baseline.close()
    return written


def run_cost(
    adapter,
    corpus_dir: Path,
    specs,
    results_path: Path,
    budget: float = DEFAULT_BUDGET,
    timeout: float = DEFAULT_STREAM_TIMEOUT,
    baseline: ReferenceBaseline | None = None,
) -> list[ScenarioCost]:
    """Measure, write results/cost-<adapter>.jsonl, print a table; the figures of each scenario."""
    implementation = Implementation(adapter)
    make_parent_folder(results_path)
    costs: list[ScenarioCost] = []
    with locked_for_writing(results_path) as handle:
        writer = ResultsWriter(handle)
        writer.header(
            tool="deltacheck",
            tool_version=deltacheck.__version__,
            kind_of_results="cost",
            contract_version=deltacheck.CONTRACT_VERSION,
            adapter=adapter.describe(),
            mode=implementation.mode,
            budget_seconds=budget,
            timeout=timeout,
            python=sys.version.split()[0],
        )

        def record(point: dict[str, Any]) -> None:
            writer.record(point)
            if point["verdict"] != "pass":
                say(
                    point["verdict"],
                    "red",
                    f"{adapter.name} {point['scenario']} at N={point['fragments']:,}: {point.get('message', '')}",
                )

        interrupted = False
        try:
            for scenario_cost in measure(
                implementation,
                specs,
                result_validator(corpus_dir),
                fast_result_check(corpus_dir),
                budget,
                timeout,
                baseline,
                record,
            ):
                costs.append(scenario_cost)
                summary = scenario_cost.summary()
                writer.record({**summary, "verdict": "fail" if summary["failure"] else "pass"})
        except KeyboardInterrupt:
            interrupted = True
        writer.footer(interrupted=interrupted)
    if interrupted:
        say(
            "interrupted",
            "red",
            f"{adapter.name}: the cost run was stopped; {len(costs)} scenario(s) measured in "
            f"{results_path} (marked interrupted); no summary",
        )
        sys.exit(130)
    print_costs(adapter.name, costs, results_path)
    return costs


def print_costs(name: str, costs: list[ScenarioCost], results_path: Path) -> None:
    """A compact table (times at 10k fragments, the reference's beside them), then why each scenario stopped."""
    from deltacheck.reports.cost import exponent_cell, memory_cell, over_cell, ratio_cell, seconds_cell

    table = Table(title=f"{name}: cost in {results_path}", title_justify="left")
    for column in ("scenario", "at 10k", "reference", "ratio", "exponent", "over 1 s from N", "peak memory"):
        table.add_column(column)
    notes = []
    for scenario_cost in costs:
        s = scenario_cost.summary()
        if s["failure"]:
            table.add_row(s["scenario"], f"{s['failure']['verdict']} at N={s['failure']['fragments']:,}", *[""] * 5)
            continue
        table.add_row(
            s["scenario"],
            seconds_cell(s["seconds_at_10k"], s["seconds_at_10k_basis"]),
            seconds_cell(s["reference_seconds_at_10k"], "measured"),
            ratio_cell(s),
            exponent_cell(s),
            over_cell(s),
            memory_cell(s),
        )
        if scenario_cost.stopped:
            notes.append(f"{s['scenario']}: stopped growing: {scenario_cost.stopped}")
    err.print(table)
    for note in notes:
        err.print(note)
