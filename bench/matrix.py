"""Wall time of the full matrix: every adapter over the whole corpus, environments already built.

    python bench/matrix.py [--adapter NAME ...]

Prints, per adapter, the driver start-up time, the time to run every fixture it speaks and the
median time of one fixture, then the total. Build the environments first (`deltacheck envs`), so installs are not timed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from deltacheck.adapter import registered_adapters
from deltacheck.corpus import load_corpus
from deltacheck.runner import run_fixtures
from deltacheck.subprocess_adapter import SubprocessAdapter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", action="append", default=[])
    args = parser.parse_args()
    corpus = load_corpus()
    registry = registered_adapters()
    total_started = time.perf_counter()
    for name in args.adapter or list(registry):
        adapter = registry[name]()
        started = time.perf_counter()
        if isinstance(adapter, SubprocessAdapter):
            adapter.start()
        ready = time.perf_counter()
        fixtures = [f for f in corpus.fixtures if f.protocol in adapter.protocols]
        # each record times its own fixture through the adapter (skips and n/a without a run are 0)
        each = [record.duration_ms for record in run_fixtures(adapter, corpus, fixtures) if record.duration_ms]
        done = time.perf_counter()
        if isinstance(adapter, SubprocessAdapter):
            adapter.close()
        print(f"{name:34} start {ready - started:6.2f} s   {len(fixtures):3} fixtures {done - ready:6.2f} s"
              f"   (median {statistics.median(each or [0.0]):7.2f} ms per fixture)")
    print(f"full matrix: {time.perf_counter() - total_started:.1f} s")


if __name__ == "__main__":
    main()
