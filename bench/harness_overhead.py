"""How fast the harness runs the whole corpus through the reference, and its overhead over the bare loop.

    python bench/harness_overhead.py [--rounds N]

"bare" is `deltacheck.reference.assemble` over every fixture's chunks and nothing else; "harness" is
`run_fixtures` with the reference adapter: request building, the per-fixture timer, result
validation, comparison and verdicts. Numbers are the median of N rounds, one core.
"""

from __future__ import annotations

import argparse
import statistics
import time

from deltacheck.adapter import get_adapter
from deltacheck.corpus import load_corpus
from deltacheck.reference import assemble
from deltacheck.runner import run_fixtures


def bare(fixtures) -> None:
    for fixture in fixtures:
        assemble(fixture.protocol, fixture.chunks)


def harness(adapter, corpus, fixtures) -> None:
    for record in run_fixtures(adapter, corpus, fixtures):
        assert record.verdict.verdict == "pass", record.verdict.message


def timed(fn, rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    started = time.perf_counter()
    corpus = load_corpus()
    load_seconds = time.perf_counter() - started
    fixtures = corpus.fixtures
    adapter = get_adapter("reference")
    harness(adapter, corpus, fixtures)  # warm caches (schema validators, imports)
    bare_s = statistics.median(timed(lambda: bare(fixtures), args.rounds))
    harness_s = statistics.median(timed(lambda: harness(adapter, corpus, fixtures), args.rounds))
    chunks = sum(len(f.chunks) for f in fixtures)
    print(f"corpus: {len(fixtures)} fixtures, {chunks} chunks; load + lint {load_seconds * 1000:.1f} ms")
    print(f"bare reference loop:   {bare_s * 1000:8.2f} ms per corpus  ({len(fixtures) / bare_s:9.0f} fixtures/s)")
    print(f"harness (run + judge): {harness_s * 1000:8.2f} ms per corpus  ({len(fixtures) / harness_s:9.0f} fixtures/s)")
    print(f"harness overhead over the bare loop: {(harness_s / bare_s - 1) * 100:.1f}%  (target: under 20%)")
    print(f"whole corpus through the harness in {harness_s:.3f} s (target: under 1 s)")


if __name__ == "__main__":
    main()
