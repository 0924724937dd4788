"""Wall time of the full matrix: every adapter over the whole corpus, environments already built.

    python bench/matrix.py [-j N] [--adapter NAME ...]

Runs the adapters as `deltacheck score` does (N at a time, each in a worker process; default: the
usable cores) without fuzzing, gateways or the report. Prints, per adapter in completion order, the
driver start-up time, the time to run every fixture it speaks and the median time of one fixture,
then the total wall time with the machine's load average and the CPU time used. Build the environments first
(`deltacheck envs`), so installs are not timed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import threading
import time
from dataclasses import dataclass

from deltacheck.adapter import registered_adapters
from deltacheck.corpus.loader import load_corpus
from deltacheck.running.parallel import run_jobs, usable_cores
from deltacheck.running.runner import run_fixtures
from deltacheck.driver.subprocess_adapter import SubprocessAdapter


@dataclass(frozen=True)
class Timing:
    start: float
    fixtures: int
    run: float
    median_ms: float


class MatrixJob:
    def __init__(self, registry, corpus) -> None:
        self.registry = registry
        self.corpus = corpus

    def __call__(self, name: str) -> Timing:
        adapter = self.registry[name]()
        started = time.perf_counter()
        if isinstance(adapter, SubprocessAdapter):
            adapter.start()
        ready = time.perf_counter()
        fixtures = [f for f in self.corpus.fixtures if f.protocol in adapter.protocols]
        # each record times its own fixture through the adapter (skips and n/a without a run are 0)
        each = [record.duration_ms for record in run_fixtures(adapter, self.corpus, fixtures) if record.duration_ms]
        done = time.perf_counter()
        if isinstance(adapter, SubprocessAdapter):  # as score does: the worker goes on while the driver exits
            threading.Thread(target=adapter.close, name=f"stop {name}").start()
        return Timing(ready - started, len(fixtures), done - ready, statistics.median(each or [0.0]))


class Printer:
    def started(self, name: str) -> None:
        pass

    def line(self, name: str, text: str) -> None:
        print(f"{name}: {text}", flush=True)

    def finished(self, name: str, timing: Timing) -> None:
        print(f"{name:34} start {timing.start:6.2f} s   {timing.fixtures:3} fixtures {timing.run:6.2f} s"
              f"   (median {timing.median_ms:7.2f} ms per fixture)", flush=True)

    def died(self, name: str, reason: str) -> None:
        print(f"{name:34} not run: {reason}", flush=True)

    def pause(self) -> None:
        pass

    def resume(self) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", default=[])
    parser.add_argument("-j", "--jobs", type=int, default=usable_cores(), help="adapters at once (default: usable cores)")
    args = parser.parse_args()
    corpus = load_corpus()
    registry = registered_adapters()
    names = args.adapter or list(registry)
    load_before = os.getloadavg()[0]
    total_started = time.perf_counter()
    if args.jobs == 1:
        job, printer = MatrixJob(registry, corpus), Printer()
        for name in names:
            printer.finished(name, job(name))
    else:
        run_jobs(names, MatrixJob(registry, corpus), args.jobs, Printer())
    wall = time.perf_counter() - total_started
    print(f"full matrix: {wall:.1f} s, {len(names)} adapters, {args.jobs} at a time on {usable_cores()} usable cores "
          f"(1-minute load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after)")
    # CPU time does not grow with other load on the machine: divided by the cores, the wall time an idle machine approaches.
    cpu = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for field in ("ru_utime", "ru_stime"))
    print(f"cpu time (this process, its workers and their drivers): {cpu:.1f} s user+sys")


if __name__ == "__main__":
    main()
