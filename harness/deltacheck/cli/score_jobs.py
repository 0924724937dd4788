"""The adapter phase of `deltacheck score`: each adapter's environment, run and fuzzing, several at once.

The bundled gateways are one more job beside the adapters (each gateway starts once for all its
routes). With one job at a time an adapter prints what `deltacheck run` prints. With more, each
adapter runs in a worker process and is one line when it finishes, with its tallies (in completion
order); on a terminal a single progress display shows which adapters are running. The per-fixture failures are
in the results files and the report either way. What is written never depends on the order in
which adapters finish: each adapter writes its own files, and the report is rendered from them.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from deltacheck.cli.common import err, say, started
from deltacheck.corpus.loader import Corpus
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from deltacheck.errors import DriverFailed, EnvironmentFailed
from deltacheck.files import FileBusy
from deltacheck.judge.verdict import PASSING, UNSCORED
from deltacheck.locations import file_stem
from deltacheck.running.results import running_when_it_ended

# score_gateways with its options bound: the results files written and the routes not run.
GatewayPhase = Callable[[], "tuple[list[Path], list[str]]"]
GATEWAYS_JOB = "bundled gateways"

jobs_option = click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    show_default="the number of usable cores",
    help="Adapters run at once, each in a process of its own (1: one after another, with every failure printed).",
)


@dataclass(frozen=True)
class AdapterScore:
    """What one adapter's job reports back: its verdict tallies, or why it did not run."""

    name: str
    counts: dict[str, int] = field(default_factory=dict)
    fuzz_failed: int | None = None  # None: not fuzzed
    seconds: float = 0.0
    not_run: str | None = None

    def summary(self) -> str:
        scored = sum(n for verdict, n in self.counts.items() if verdict not in UNSCORED)
        passed = sum(n for verdict, n in self.counts.items() if verdict in PASSING)
        others = ", ".join(
            f"{n} {verdict}" for verdict, n in sorted(self.counts.items()) if verdict not in PASSING and n
        )
        fuzz = "" if self.fuzz_failed is None else f"; fuzz: {self.fuzz_failed} failed"
        return (
            f"{self.name}: {passed} / {scored} passed"
            + (f" ({others})" if others else "")
            + f"{fuzz}; {self.seconds:.1f} s"
        )


def score_adapters(
    factories: Mapping[str, Callable[[], Any]],
    corpus: Corpus,
    results_dir: Path,
    timeout: float,
    max_timeouts: int,
    examples: int,
    jobs: int | None,
    gateways: GatewayPhase | None = None,
) -> tuple[list[str], list[str], list[Path]]:
    """Run every adapter (environment, fixtures, fuzzing) and the gateway phase, `jobs` at a time.

    Returns the adapters run, those not run (with the gateway routes not run), and the gateway results files.
    """
    from deltacheck.running.parallel import run_jobs, usable_cores  # multiprocessing: only when scoring

    jobs = jobs or usable_cores()
    job = _AdapterJob(factories, corpus, results_dir, timeout, max_timeouts, examples, gateways)
    gateway_job = [GATEWAYS_JOB] if gateways else []
    names = gateway_job + list(factories)  # the gateways first: the longest job
    if jobs == 1 or len(names) <= 1:
        outcomes = [job(name, quiet=False) for name in list(factories) + gateway_job]
    else:
        display = _Display(names, jobs, corpus, results_dir)
        try:
            with display:
                run_jobs(names, job, jobs, display)
        except KeyboardInterrupt:  # each worker has closed its results file, marked interrupted
            sys.exit(130)
        outcomes = display.outcomes
    # Every name in the given order, whatever order the jobs finished in.
    ran = [n for n in factories if any(o.name == n and o.not_run is None for o in outcomes)]
    not_run = [n for n in factories if any(o.name == n and o.not_run is not None for o in outcomes)]
    gateway_files: list[Path] = []
    for outcome in outcomes:
        if isinstance(outcome, GatewaysScore):
            gateway_files, not_run = outcome.files, not_run + outcome.not_run
        elif outcome.name == GATEWAYS_JOB and outcome.not_run is not None:  # its worker died
            not_run.append(GATEWAYS_JOB)
    return ran, not_run, gateway_files


@dataclass(frozen=True)
class GatewaysScore:
    """What the gateway phase reports back: the results files written and the routes not run."""

    files: list[Path]
    not_run: list[str]
    seconds: float
    name: str = GATEWAYS_JOB

    def summary(self) -> str:
        return (
            f"{self.name}: {len(self.files)} route(s) run"
            + (f", not run: {', '.join(self.not_run)}" if self.not_run else "")
            + f"; {self.seconds:.1f} s"
        )


@dataclass
class _AdapterJob:
    factories: Mapping[str, Callable[[], Any]]
    corpus: Corpus
    results_dir: Path
    timeout: float
    max_timeouts: int
    examples: int
    gateways: GatewayPhase | None = None

    def __call__(self, name: str, quiet: bool = True) -> AdapterScore | GatewaysScore:
        if name == GATEWAYS_JOB and name not in self.factories:
            return self._gateways(quiet)
        from deltacheck.cli.adequacy import run_fuzz, summarize_fuzz, write_fuzz_results
        from deltacheck.cli.recording import run_and_record

        began = time.perf_counter()
        fuzz_failed = None
        try:
            adapter = self.factories[name]()
            with started(adapter, _stop_behind if quiet else SubprocessAdapter.close):
                counts, _, _ = run_and_record(
                    adapter,
                    self.corpus,
                    set(),
                    set(),
                    self.results_dir / f"{file_stem(name)}.jsonl",
                    self.timeout,
                    self.max_timeouts,
                )
                if self.examples:
                    findings = run_fuzz(
                        adapter, self.corpus, self.corpus.fixtures, self.examples, self.timeout, robustness=True
                    )
                    write_fuzz_results(
                        self.results_dir / f"fuzz-{file_stem(name)}.jsonl",
                        adapter,
                        self.corpus,
                        findings,
                        self.examples,
                    )
                    summarize_fuzz(name, findings)
                    fuzz_failed = sum(f.status == "failed" for f in findings)
        except (EnvironmentFailed, DriverFailed, FileBusy) as exc:
            if not quiet:
                say("not run", "red", f"{name}: {exc}")
            return AdapterScore(name, not_run=str(exc), seconds=time.perf_counter() - began)
        return AdapterScore(name, dict(counts), fuzz_failed, time.perf_counter() - began)

    def _gateways(self, quiet: bool) -> GatewaysScore:
        """One job for every gateway: each starts once for all its routes. In a worker its console
        output is passed on line by line, as the gateway runner says why a route did not run only there."""
        assert self.gateways is not None  # the gateway job is only queued when there is a gateway phase
        began = time.perf_counter()
        dropped, wrapped = err.file, err.soft_wrap
        if quiet:  # whole lines: each is passed on with the job's name in front
            err.file, err.soft_wrap = sys.stderr, True
        try:
            files, not_run = self.gateways()
        finally:
            err.file, err.soft_wrap = dropped, wrapped
        return GatewaysScore(files, not_run, time.perf_counter() - began)


def _stop_behind(adapter: SubprocessAdapter) -> None:
    """Stop the driver on a thread of its own, so that the worker goes on to its next adapter while this
    one exits (a JVM takes about 0.3 s, idle); the worker waits for it before it ends."""
    threading.Thread(target=adapter.close, name=f"stop {adapter.name}").start()


class _Display:
    """The main process's view of the jobs: one line per finished adapter, one progress display on a terminal."""

    def __init__(self, names: list[str], jobs: int, corpus: Corpus, results_dir: Path) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.outcomes: list[AdapterScore | GatewaysScore] = []
        self._results_dir = results_dir
        self._running: list[str] = []
        self._progress = Progress(
            TextColumn("adapters"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[running]}"),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        )
        self._task = self._progress.add_task("adapters", total=len(names), running="")
        err.print(
            f"running {len(names)} adapters, {jobs} at a time; each adapter's failures are in its results "
            "file and the report",
            soft_wrap=True,
        )
        for problem in corpus.problems:  # recorded as a skip in every adapter's results
            say("skip", "yellow", str(problem))

    def __enter__(self) -> _Display:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        self._progress.__exit__(*exc_info)

    def started(self, name: str) -> None:
        self._running.append(name)
        if not err.is_terminal:  # on a terminal the progress display says it
            err.print(f"start {name}")
        self._refresh()

    def line(self, name: str, text: str) -> None:
        err.print(f"{name}: {text}", soft_wrap=True)

    def pause(self) -> None:
        self._progress.stop()

    def resume(self) -> None:
        self._progress.start()

    def finished(self, name: str, outcome: AdapterScore | GatewaysScore) -> None:
        self.outcomes.append(outcome)
        if isinstance(outcome, GatewaysScore):
            say("done", "green", outcome.summary())
        elif outcome.not_run is not None:
            say("not run", "red", f"{name}: {outcome.not_run}")
        else:
            say("done", "green", outcome.summary())
        self._stop(name)

    def died(self, name: str, reason: str) -> None:
        """A worker that died took its adapter's run with it: say which fixture its results file says was running."""
        results = self._results_dir / f"{name}.jsonl"
        running = running_when_it_ended(results)
        if running is not None:
            reason += f", while fixture {running} was running; the verdicts before it are in {results}"
        self.finished(name, AdapterScore(name, not_run=reason))

    def _stop(self, name: str) -> None:
        if name in self._running:
            self._running.remove(name)
        self._progress.advance(self._task)
        self._refresh()

    def _refresh(self) -> None:
        self._progress.update(self._task, running=", ".join(self._running))
