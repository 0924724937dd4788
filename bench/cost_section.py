"""How long the report's Cost section takes: `deltacheck cost` for each bundled adapter, one after another.

    python bench/cost_section.py [--adapter NAME ...] [--budget SECONDS]

Each adapter is run as its own `deltacheck cost` process (driver start-up and the reference baseline
included, as a user would run it; `score` shares one baseline across adapters, so it takes a little
less). Prints each adapter's wall time, exit status (1: a wrong result on some scenario) and the
total. Results go to a temporary folder, never to results/.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deltacheck.adapter import registered_adapters

DELTACHECK = Path(sys.executable).with_name("deltacheck")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", help="only these adapters (default: every bundled one)")
    parser.add_argument("--budget", default="1", help="seconds one stream may take (deltacheck cost --budget)")
    args = parser.parse_args()
    names = args.adapter or list(registered_adapters())
    total = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            started = time.perf_counter()
            done = subprocess.run([str(DELTACHECK), "cost", "--adapter", name, "--budget", args.budget,
                                   "--results", os.path.join(folder, f"cost-{name}.jsonl")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            seconds = time.perf_counter() - started
            total += seconds
            print(f"{name:<32}{seconds:>8.1f} s   exit {done.returncode}", flush=True)
    print(f"{'total':<32}{total:>8.1f} s   ({len(names)} adapters, {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
