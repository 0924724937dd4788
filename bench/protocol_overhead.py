"""What the subprocess protocol costs per fixture, with a warm driver.

    python bench/protocol_overhead.py [--rounds N]

Each fixture runs through the reference adapter twice per round, back to back: in-process
(`call_adapter`, what `run_fixtures` does for an in-process adapter) and through the generic driver
(`SubprocessAdapter.run_request`: encode, pipe, driver decode and assemble, reply, reader thread,
reply validation). The overhead of one fixture in one round is the difference of the two; the
script prints its median and p95 over every fixture of every round. Target: median under 2 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from deltacheck.adapter import get_adapter_factory
from deltacheck.corpus.loader import load_corpus
from deltacheck.running.runner import DEFAULT_TIMEOUT, call_adapter
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from deltacheck.judge.verdict import Returned

REPO = Path(__file__).resolve().parent.parent
TARGET_MEDIAN_MS = 2.0


def timed_ms(run, request) -> float:
    started = time.perf_counter()
    outcome = run(request)
    elapsed = (time.perf_counter() - started) * 1000
    assert isinstance(outcome, Returned), f"{request.fixture_id}: {outcome}"
    return elapsed


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    requests = [fixture.request() for fixture in load_corpus().fixtures]
    in_process = get_adapter_factory("reference")()
    local = lambda request: call_adapter(in_process, request, DEFAULT_TIMEOUT)  # noqa: E731
    with SubprocessAdapter([sys.executable, "-m", "deltacheck.driver", "deltacheck.adapters.reference:ReferenceAdapter"],
                           cwd=str(REPO)) as driver:
        remote = lambda request: driver.run_request(request, DEFAULT_TIMEOUT)  # noqa: E731
        for request in requests:  # warm: imports and caches on both sides
            timed_ms(local, request), timed_ms(remote, request)
        local_ms, remote_ms, overhead_ms = [], [], []
        for _ in range(args.rounds):
            for request in requests:
                here, there = timed_ms(local, request), timed_ms(remote, request)
                local_ms.append(here)
                remote_ms.append(there)
                overhead_ms.append(there - here)
    median = statistics.median(overhead_ms)
    print(f"{len(requests)} fixtures x {args.rounds} rounds = {len(overhead_ms)} samples, warm driver")
    print(f"in-process (call_adapter):     median {statistics.median(local_ms):6.3f} ms   p95 {percentile(local_ms, 0.95):6.3f} ms")
    print(f"through the driver:            median {statistics.median(remote_ms):6.3f} ms   p95 {percentile(remote_ms, 0.95):6.3f} ms")
    print(f"protocol overhead per fixture: median {median:6.3f} ms   p95 {percentile(overhead_ms, 0.95):6.3f} ms"
          f"   (target: median under {TARGET_MEDIAN_MS:g} ms: {'met' if median < TARGET_MEDIAN_MS else 'MISSED'})")


if __name__ == "__main__":
    main()
