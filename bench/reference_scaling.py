"""How the reference assemblers' cost grows with the length of a stream.

    python bench/reference_scaling.py [--sizes 100,1000,10000,100000] [--rounds N]

For each protocol and the shapes it streams (a text answer, one tool call, four calls; see
deltacheck.cost.long_streams) the script generates streams of N fragments of 4 characters, assembles each with
`deltacheck.reference.assemble`, checks the result against the expected one (a wrong result stops
the bench), and prints the best time of N rounds per size (garbage collector off, as timeit does),
the growth exponent fitted on a log-log scale over all sizes, and at the largest size the time of a
minimal loop that only appends the fragments to lists in a dict and joins them (no checks, no
events: the protocol's `joined_fragments`, in its package's long_streams module), timed in turns
with the reference, and the ratio of the two. The minimal loop's own exponent is printed too: what
the machine (caches, load) adds to a loop that is linear by design.

Targets: exponent <= 1.1 on every scenario; at 100k fragments within 10x of the minimal loop.
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
from typing import Any, Callable

from deltacheck.cost.long_streams import Scenario, layout, streamed_shapes
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble

TARGET_EXPONENT = 1.1
TARGET_RATIO = 10.0


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds for one call, with the garbage collector off (as timeit does), and its value."""
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        value = fn()
        return time.perf_counter() - started, value
    finally:
        gc.enable()


def best_times(fns: list[Callable[[], Any]], rounds: int) -> list[tuple[float, Any]]:
    """The best time of each function over the rounds, taking turns so that both see the same load."""
    best: list[tuple[float, Any]] = [(math.inf, None)] * len(fns)
    for _ in range(rounds):
        for position, fn in enumerate(fns):
            seconds, value = timed(fn)
            if seconds < best[position][0]:
                best[position] = (seconds, value)
    return best


def fitted_exponent(sizes: list[int], seconds: list[float]) -> float:
    """The least-squares slope of log(time) against log(size)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(max(t, 1e-9)) for t in seconds]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000,100000", help="fragment counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per size; the best is kept")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    largest = max(sizes)
    header = "".join(f"{n:>11,}" for n in sizes)
    print(f"{'scenario':<32}{header}   exponent   minimal@{largest:,}  ratio  minimal exponent")
    failures = []
    for protocol in PROTOCOLS:
        minimal_loop = layout(protocol).joined_fragments
        for shape in streamed_shapes(protocol):
            times, minimal_times = [], []
            for size in sizes:
                scenario = Scenario(protocol, shape, size)
                (seconds, outcome), (minimal, assembled) = best_times(
                    [lambda: assemble(protocol, scenario.chunks), lambda: minimal_loop(scenario.chunks)], args.rounds)
                problem = scenario.mismatch(outcome.result)
                if problem:
                    print(f"{scenario.name} at {size:,} fragments: wrong result: {problem}", file=sys.stderr)
                    return 1
                wanted = [scenario.assembled_arguments(c) for c in scenario.calls] or [scenario.text]
                if sorted(assembled.values()) != sorted(wanted):
                    print(f"{scenario.name}: the minimal loop assembled something else", file=sys.stderr)
                    return 1
                times.append(seconds)
                minimal_times.append(minimal)
            exponent = fitted_exponent(sizes, times)
            ratio = times[-1] / minimal_times[-1]
            cells = "".join(f"{t * 1000:>9.1f}ms" for t in times)
            print(f"{scenario.name:<32}{cells}   {exponent:>8.2f}   {minimal_times[-1] * 1000:>9.1f}ms  {ratio:>5.1f}x"
                  f"  {fitted_exponent(sizes, minimal_times):>8.2f}")
            if exponent > TARGET_EXPONENT:
                failures.append(f"{scenario.name}: exponent {exponent:.2f} > {TARGET_EXPONENT}")
            if largest >= 100_000 and ratio > TARGET_RATIO:
                failures.append(f"{scenario.name}: {ratio:.1f}x the minimal loop at {largest:,} > {TARGET_RATIO}x")
    print()
    print("targets met" if not failures else "targets missed:\n  " + "\n  ".join(failures))
    return 0 if not failures else 2


if __name__ == "__main__":
    sys.exit(main())
