"""Whole-process wall time of the quick commands, as a user sees them.

    python bench/cli_startup.py [--runs N]

Runs `deltacheck --help`, `deltacheck lint` and `deltacheck adapters` N times each (after one
untimed run that warms the file cache and records the drivers' descriptions) and prints the median
and the fastest run beside issue 13's targets. Build the environments first (`deltacheck envs`):
`adapters` is meant to be quick once they are built.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DELTACHECK = str(Path(sys.executable).with_name("deltacheck"))
# As on a user's machine: Python caches compiled modules after the first run (the warm-up), even
# where this shell asks it not to write bytecode.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
COMMANDS = (  # (arguments, target seconds)
    (["--help"], 0.150),
    (["lint"], 0.250),
    (["adapters", "--format", "json"], 2.0),
)


def seconds(arguments: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run([DELTACHECK, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                          env=CHILD_ENV)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"`deltacheck {' '.join(arguments)}` exited with {done.returncode}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    for arguments, target in COMMANDS:
        seconds(arguments)  # warm-up, untimed
        samples = [seconds(arguments) for _ in range(args.runs)]
        label = "deltacheck " + " ".join(arguments)
        print(f"{label:36} median {statistics.median(samples) * 1000:7.0f} ms   fastest {min(samples) * 1000:7.0f} ms"
              f"   (target: at most {target * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
