"""Wall time of the full matrix: every adapter over the whole corpus, environments already built.

    python bench/matrix.py [--adapter NAME ...]

Prints, per adapter, the driver start-up time and the time to run every fixture it speaks, then
the total. Build the environments first (`deltacheck envs`), so installs are not timed.
"""

from __future__ import annotations

import argparse
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
        for _ in run_fixtures(adapter, corpus, fixtures):
            pass
        done = time.perf_counter()
        if isinstance(adapter, SubprocessAdapter):
            adapter.close()
        print(f"{name:34} start {ready - started:6.2f} s   {len(fixtures):3} fixtures {done - ready:6.2f} s"
              f"   ({(done - ready) / max(len(fixtures), 1) * 1000:6.1f} ms per fixture)")
    print(f"full matrix: {time.perf_counter() - total_started:.1f} s")


if __name__ == "__main__":
    main()
