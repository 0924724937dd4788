"""How long the report's Cost section takes: `deltacheck cost` for each bundled adapter, one after another.

    python bench/cost_section.py [--adapter NAME ...] [--budget SECONDS]

Each adapter is run as its own `deltacheck cost` process (driver start-up and the reference baseline
included, as a user would run it; `score` shares one baseline across adapters, so it takes a little
less). Before that, the adapter's driver is started and stopped once on its own, so the start-up
is printed apart from the rest (the cost phase of `score` starts every driver afresh, so start-ups
are part of the section's time). Prints per adapter the wall time, the start-up, the time spent in
scenarios (the difference), the scenarios measured, the exit status (1: a wrong result on some
scenario), and the totals: with a subset of the adapters, the total for all of them can be
extrapolated from the mean time per scenario and every adapter's start-up. Results go to a
temporary folder, never to results/.
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
from deltacheck.cost import DEFAULT_BUDGET
from deltacheck.subprocess_adapter import SubprocessAdapter

DELTACHECK = Path(sys.executable).with_name("deltacheck")


def start_up_seconds(factory) -> float:
    """Seconds to start an adapter's driver and stop it again (0 for an in-process adapter)."""
    started = time.perf_counter()
    adapter = factory()
    if isinstance(adapter, SubprocessAdapter):
        adapter.start()
        adapter.close()
    return time.perf_counter() - started


def scenarios_measured(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as handle:
            return sum(1 for line in handle if json.loads(line).get("kind") == "scenario")
    except (OSError, ValueError):
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", help="only these adapters (default: every bundled one)")
    parser.add_argument("--budget", default=str(DEFAULT_BUDGET), help="seconds one stream may take (deltacheck cost --budget)")
    args = parser.parse_args()
    registry = registered_adapters()
    names = args.adapter or list(registry)
    total = start_ups = scenario_count = 0.0
    print(f"{'adapter':<32}{'wall':>9}{'start-up':>10}{'scenarios':>11}{'count':>7}   exit")
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            start_up = start_up_seconds(registry[name])
            results = os.path.join(folder, f"cost-{name}.jsonl")
            started = time.perf_counter()
            done = subprocess.run([str(DELTACHECK), "cost", "--adapter", name, "--budget", args.budget,
                                   "--results", results], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            seconds = time.perf_counter() - started
            count = scenarios_measured(results)
            total, start_ups, scenario_count = total + seconds, start_ups + start_up, scenario_count + count
            print(f"{name:<32}{seconds:>8.1f}s{start_up:>9.1f}s{seconds - start_up:>10.1f}s{count:>7}   {done.returncode}",
                  flush=True)
    per_scenario = (total - start_ups) / scenario_count if scenario_count else 0.0
    print(f"{'total':<32}{total:>8.1f}s{start_ups:>9.1f}s{total - start_ups:>10.1f}s{scenario_count:>7.0f}   "
          f"({len(names)} adapters, budget {args.budget} s, {os.cpu_count()} cores; "
          f"{per_scenario:.2f} s per scenario beyond start-up)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
