"""What a maintainer pays for deltacheck as a dependency: start-up, and a run through their own adapter.

    python bench/user_adapter.py [--rounds N]

Prints the median of N runs of `python -c "import deltacheck"` and `deltacheck --help` as whole
processes, and the time to run the whole corpus through the reference adapter named as a bundled
adapter (`reference`) and as a user would name their own class (`MODULE:CLASS`): the second must
cost no more than the first.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from deltacheck.adapter import get_adapter
from deltacheck.corpus.loader import load_corpus
from deltacheck.running.runner import run_fixtures

DELTACHECK = Path(sys.executable).with_name("deltacheck")


def process_seconds(command: list[str], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def corpus_seconds(adapter_name: str, corpus, rounds: int) -> float:
    adapter = get_adapter(adapter_name)
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        for record in run_fixtures(adapter, corpus, corpus.fixtures):
            assert record.verdict.verdict == "pass", record.verdict.message
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    print(f"import deltacheck:    {process_seconds([sys.executable, '-c', 'import deltacheck'], rounds) * 1000:7.1f} ms"
          " (median, whole process)")
    print(f"deltacheck --help:    {process_seconds([str(DELTACHECK), '--help'], rounds) * 1000:7.1f} ms (target < 300 ms)")
    corpus = load_corpus()
    bundled = corpus_seconds("reference", corpus, rounds)
    spec = corpus_seconds("deltacheck.adapters.reference:ReferenceAdapter", corpus, rounds)
    print(f"corpus, bundled name: {bundled * 1000:7.2f} ms for {len(corpus.fixtures)} fixtures")
    print(f"corpus, MODULE:CLASS: {spec * 1000:7.2f} ms ({(spec / bundled - 1) * 100:+.0f}%)")


if __name__ == "__main__":
    main()
