"""Run one adapter over the corpus and record it: the results file, a progress bar, failures as they come, a summary table."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

import deltacheck
from deltacheck.cli.common import err, say, say_interrupted
from deltacheck.corpus.loader import Corpus
from deltacheck.files import locked_for_writing
from deltacheck.judge.verdict import PASSING, UNSCORED
from deltacheck.locations import default_results_dir, file_stem
from deltacheck.protocols import PROTOCOLS
from deltacheck.running.results import ResultsWriter
from deltacheck.running.runner import problem_records, run_fixtures


def run_and_record(
    adapter,
    corpus: Corpus,
    protocols: set[str],
    ids: set[str],
    results_path: Path | None,
    timeout: float,
    max_timeouts: int,
    header: dict | None = None,
    quiet: bool = False,
) -> tuple[Counter[str], dict[str, str], Path]:
    """Run and record; returns the verdict counts, each fixture's verdict, and the results file.

    `header`: more fields for the results header (a history run's release). `quiet`: no line per
    failure and no summary table (a history run prints one line per release instead)."""
    results_path = results_path or default_results_dir() / f"{file_stem(adapter.name)}.jsonl"
    # Only the protocols the adapter speaks: the others are not its business, not skips to list.
    spoken = (protocols or set(PROTOCOLS)) & set(adapter.protocols)
    fixtures = corpus.select(spoken, ids)
    by_protocol: dict[str, Counter[str]] = {}
    verdicts: dict[str, str] = {}
    with locked_for_writing(results_path) as handle:
        writer = ResultsWriter(handle)
        writer.header(
            tool="deltacheck",
            tool_version=deltacheck.__version__,
            corpus_version=corpus.version,
            contract_version=deltacheck.CONTRACT_VERSION,
            adapter=adapter.describe(),
            timeout=timeout,
            **(header or {}),
        )
        for problem in problem_records(adapter.name, corpus, spoken, ids):
            writer.record(problem)
            if problem.get("fixture"):
                verdicts[problem["fixture"]] = problem["verdict"]
            if problem.get("protocol"):
                by_protocol.setdefault(problem["protocol"], Counter())["skip"] += 1
            say("skip", "yellow", f"{problem['path']}: {problem['message']}")
        interrupted, running, ran = False, "", 0

        def announce(fixture_id: str) -> None:
            nonlocal running
            running = fixture_id
            writer.running(fixture_id)
            if err.is_terminal:  # the bar names the fixture running: what stays on screen if the process dies
                progress.update(task, current=f"running {fixture_id}")

        progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[current]}"),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        )
        try:
            with progress:
                task = progress.add_task(adapter.name, total=len(fixtures), current="")
                for record in run_fixtures(adapter, corpus, fixtures, timeout, max_timeouts, announce):
                    writer.record(record.to_json())
                    running, ran = "", ran + 1
                    verdicts[record.verdict.fixture] = record.verdict.verdict
                    by_protocol.setdefault(record.verdict.protocol, Counter())[record.verdict.verdict] += 1
                    progress.update(task, advance=1)
                    if record.verdict.verdict not in PASSING | UNSCORED and not quiet:
                        say(
                            record.verdict.verdict,
                            "red",
                            f"{record.verdict.fixture} {record.title}: {record.verdict.message}",
                        )
        except KeyboardInterrupt:
            interrupted = True
        writer.footer(interrupted=interrupted)
    if interrupted:
        say_interrupted(adapter.name, ran, len(fixtures), running, results_path)
        sys.exit(130)
    if not quiet:
        print_summary(adapter.name, by_protocol, results_path)
    return writer.counts, verdicts, results_path


def print_summary(name: str, by_protocol: dict[str, Counter[str]], results_path: Path) -> None:
    table = Table(title=f"{name}: results in {results_path}", title_justify="left")
    for column in ("protocol", "passed / scored", "fail", "error", "crash", "timeout", "n/a", "skip"):
        table.add_column(column)
    for protocol in PROTOCOLS:
        counts = by_protocol.get(protocol)
        if not counts:
            continue
        scored = sum(v for k, v in counts.items() if k not in UNSCORED)
        table.add_row(
            protocol,
            f"{counts['pass']} / {scored}",
            *(str(counts.get(k, 0)) for k in ("fail", "error", "crash", "timeout", "n/a", "skip")),
        )
    err.print(table)
