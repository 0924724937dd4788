"""How long the report's Cost section takes, run as `score` runs it: one adapter after another.

    python bench/cost_section.py [--adapter NAME ...] [--budget SECONDS] [--processes]

By default the adapters are timed in this one process as the cost phase of `score` does it: one
reference baseline shared by all, every driver started afresh. With --processes each adapter is its
own `deltacheck cost` process instead, as a user runs it (with its own baseline and start-up of the
CLI, so it takes longer). Before that, the adapter's driver is started and stopped once on its own,
so the start-up is printed apart from the rest (start-ups are part of the section's time). Prints
per adapter the wall time, the start-up, the time spent in scenarios (the difference), the
scenarios measured, the exit status (1: a wrong result on some scenario), and the totals: with a
subset of the adapters, the total for all of them can be extrapolated from the mean time per
scenario and every adapter's start-up. Results go to a temporary folder, never to results/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deltacheck.adapter import registered_adapters
from deltacheck.cli.common import started
from deltacheck.corpus.loader import DEFAULT_CORPUS
from deltacheck.cost.timing import DEFAULT_BUDGET, ReferenceBaseline
from deltacheck.cost.scenarios import load_scenarios
from deltacheck.driver.subprocess_adapter import SubprocessAdapter

DELTACHECK = Path(sys.executable).with_name("deltacheck")


def start_up_seconds(factory) -> float:
    """Seconds to start an adapter's driver and stop it again (0 for an in-process adapter)."""
    began = time.perf_counter()
    adapter = factory()
    if isinstance(adapter, SubprocessAdapter):
        adapter.start()
        adapter.close()
    return time.perf_counter() - began


def scenarios_measured(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as handle:
            return sum(1 for line in handle if json.loads(line).get("kind") == "scenario")
    except (OSError, ValueError):
        return 0


def in_this_process(factory, results: str, budget: float, baseline: ReferenceBaseline) -> int:
    """As the cost phase of `score` runs one adapter: its driver started afresh, the shared baseline."""
    import contextlib

    from deltacheck.cli.cost import run_cost

    adapter = factory()
    with open(os.devnull, "w") as quiet, contextlib.redirect_stderr(quiet), started(adapter):
        costs = run_cost(adapter, DEFAULT_CORPUS, load_scenarios(DEFAULT_CORPUS)[0], Path(results), budget,
                         baseline=baseline)
    return 1 if any(c.failure for c in costs) else 0


def in_a_process(name: str, results: str, budget: str) -> int:
    """As a user runs `deltacheck cost --adapter NAME`."""
    return subprocess.run([str(DELTACHECK), "cost", "--adapter", name, "--budget", budget, "--results", results],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", help="only these adapters (default: every bundled one)")
    parser.add_argument("--budget", default=str(DEFAULT_BUDGET), help="seconds one stream may take (deltacheck cost --budget)")
    parser.add_argument("--processes", action="store_true", help="each adapter as its own `deltacheck cost` process")
    args = parser.parse_args()
    baseline = ReferenceBaseline()
    registry = registered_adapters()
    names = args.adapter or list(registry)
    total = start_ups = scenario_count = 0.0
    print(f"{'adapter':<32}{'wall':>9}{'start-up':>10}{'scenarios':>11}{'count':>7}   exit")
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            start_up = start_up_seconds(registry[name])
            results = os.path.join(folder, f"cost-{name}.jsonl")
            began = time.perf_counter()
            if args.processes:
                status = in_a_process(name, results, args.budget)
            else:
                status = in_this_process(registry[name], results, float(args.budget), baseline)
            seconds = time.perf_counter() - began
            count = scenarios_measured(results)
            total, start_ups, scenario_count = total + seconds, start_ups + start_up, scenario_count + count
            print(f"{name:<32}{seconds:>8.1f}s{start_up:>9.1f}s{seconds - start_up:>10.1f}s{count:>7}   {status}",
                  flush=True)
    baseline.close()
    per_scenario = (total - start_ups) / scenario_count if scenario_count else 0.0
    print(f"{'total':<32}{total:>8.1f}s{start_ups:>9.1f}s{total - start_ups:>10.1f}s{scenario_count:>7.0f}   "
          f"({len(names)} adapters, budget {args.budget} s, {os.cpu_count()} cores; "
          f"{per_scenario:.2f} s per scenario beyond start-up)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
