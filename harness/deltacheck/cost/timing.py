"""The cost axis: how an implementation's time and memory grow with the length of one stream.

For each scenario of the protocols an implementation speaks (corpus/scenarios), the stream is
generated at each size N in turn, run through the implementation exactly as a fixture is (with the
body cut after every SSE event, so every replay hands the client one event per network read, as a
server flushes them), and judged against the generated expected result by the normal judge: a
wrong result is a failure with its verdict, never a time. Growth stops once one stream takes longer than the time budget, or when the
next size is predicted to take far longer, so a quadratic library costs seconds, not minutes.

The reference is timed on the same streams in the same run and delivered the same way (in
process for an in-process implementation, through the generic Python driver for a driver), so the
ratio beside each absolute time compares like with like.
"""

from __future__ import annotations

import gc
import math
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from deltacheck.cost.scenarios import ScenarioSpec, served_request
from deltacheck.judge.verdict import PASSING, Outcome, Returned, judge
from deltacheck.model import AssemblyRequest
from deltacheck.running.runner import call_adapter, transport_of

if TYPE_CHECKING:
    from deltacheck.adapter import Adapter
    from deltacheck.driver.subprocess_adapter import SubprocessAdapter

DEFAULT_BUDGET = 0.2  # seconds one stream may take before N stops growing (the whole section fits a few minutes)
DEFAULT_STREAM_TIMEOUT = 60.0
OVER_SECONDS = 1.0  # "the N at which one stream takes over 1 s"
AT_FRAGMENTS = 10_000  # the size the report quotes times at
SUPER_LINEAR = 1.3  # a fitted exponent above this is a finding
PREDICTED_LIMIT = 2.0  # a next size predicted to take more than this many budgets is not started
STEEP_BUDGET_FACTOR = 5.0  # budgets a stream growing super-linearly may take (see stop_reason)
MIN_TIMED_SECONDS = 0.1  # a short stream is timed again (best kept) until this much time was spent
MAX_ROUNDS = 3

# Causes of super-linear growth found by profiling the libraries, by adapter name prefix and shape.
TOOL_SHAPES = ("tool", "tools4", "tools4-interleaved")
KNOWN_CAUSES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "langchain-openai",
        TOOL_SHAPES,
        "langchain-core's `chunk + chunk` re-parses the accumulated arguments "
        "with a partial-JSON parser on every fragment",
    ),
    (
        "langchain-anthropic",
        TOOL_SHAPES,
        "langchain-core's `chunk + chunk` re-parses the accumulated tool input "
        "with a partial-JSON parser on every fragment",
    ),
    ("anthropic-python", TOOL_SHAPES, "anthropic-python re-parses its JSON buffer on every input_json_delta"),
)
# Not listed: openai-node-chat's arguments-done event on every switch between interleaved calls, which the
# events judge fails on the interleaved scenario (as on the corpus's interleaved-calls fixtures) before any
# time is taken; openai-node's SSE reader re-slices its buffer after every event, which is quadratic in the
# size of one network read; the cost runs read one event at a time, as servers send them, so it does not show.


def known_cause(adapter_name: str, shape: str) -> str | None:
    for prefix, shapes, cause in KNOWN_CAUSES:
        if adapter_name.startswith(prefix) and shape in shapes:
            return cause
    return None


# -- fitting ---------------------------------------------------------------------------------------


def fitted_exponent(sizes: list[int], seconds: list[float]) -> float | None:
    """The least-squares slope of log(time) against log(N); None with fewer than two sizes."""
    if len(sizes) < 2 or len(set(sizes)) < 2:
        return None
    xs, ys = [math.log(n) for n in sizes], [math.log(max(t, 1e-9)) for t in seconds]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)


FIT_DECADES = 1  # the exponent is fitted over the sizes within 10**FIT_DECADES of the largest measured


def growth_exponent(sizes: list[int], seconds: list[float]) -> float | None:
    """The exponent over the largest sizes measured, where a fixed cost per stream no longer hides the growth."""
    upper = [(n, t) for n, t in zip(sizes, seconds) if n * 10**FIT_DECADES >= max(sizes, default=0)]
    if len(upper) < 2:
        upper = list(zip(sizes, seconds))
    return fitted_exponent([n for n, _ in upper], [t for _, t in upper])


def time_at(target: int, sizes: list[int], seconds: list[float], exponent: float | None) -> tuple[float | None, str]:
    """The time at `target` fragments: measured, or from the nearest measured size along the fitted exponent."""
    if target in sizes:
        return seconds[sizes.index(target)], "measured"
    if exponent is None or not sizes:
        return None, "unknown"
    nearest = min(range(len(sizes)), key=lambda i: abs(math.log(sizes[i] / target)))
    basis = "interpolated" if sizes[0] < target < sizes[-1] else "extrapolated"
    return seconds[nearest] * (target / sizes[nearest]) ** exponent, basis


def size_over(limit: float, sizes: list[int], seconds: list[float], exponent: float | None) -> tuple[float | None, str]:
    """The N from which one stream takes over `limit` seconds: between measured sizes, or extrapolated."""
    for i, t in enumerate(seconds):
        if t > limit:
            if i == 0:
                return float(sizes[0]), "at most (measured)"
            n0, t0, n1, t1 = sizes[i - 1], seconds[i - 1], sizes[i], t
            slope = math.log(t1 / max(t0, 1e-9)) / math.log(n1 / n0)
            if slope <= 0:
                return float(n1), "measured"
            return n0 * (limit / max(t0, 1e-9)) ** (1 / slope), "measured"
    if exponent is None or exponent <= 0.05 or not sizes:
        return None, "unknown"
    return sizes[-1] * (limit / max(seconds[-1], 1e-9)) ** (1 / exponent), "extrapolated"


def local_slope(points: list[Point]) -> float | None:
    """The growth between the two largest sizes measured: where a super-linear term shows first."""
    if len(points) < 2:
        return None
    before, last = points[-2], points[-1]
    return math.log(max(last.seconds, 1e-9) / max(before.seconds, 1e-9)) / math.log(last.fragments / before.fragments)


def stop_reason(points: list[Point], next_size: int, budget: float) -> str | None:
    """Why N stops growing before `next_size`, or None to go on.

    A stream growing super-linearly between its last two sizes may take STEEP_BUDGET_FACTOR budgets:
    at the sizes a small budget reaches, a library's cost per fragment hides a quadratic term, which
    one more size shows (and only such scenarios pay for it).
    """
    if not points:
        return None
    last = points[-1]
    slope = local_slope(points)
    steep = slope is not None and slope > SUPER_LINEAR
    allowed = budget * STEEP_BUDGET_FACTOR if steep else budget
    what = f"the {allowed:g} s a stream growing super-linearly may take" if steep else f"the {budget:g} s budget"
    if last.seconds > allowed:
        return f"one stream took {last.seconds:.2f} s at N={last.fragments:,}, over {what}"
    exponent = max(
        growth_exponent([p.fragments for p in points], [p.seconds for p in points]) or 1.0,
        slope if steep and slope is not None else 1.0,
        1.0,
    )
    predicted = last.seconds * (next_size / last.fragments) ** exponent
    if predicted > PREDICTED_LIMIT * allowed:
        return (
            f"N={next_size:,} would take about {predicted:.1f} s (predicted from N={last.fragments:,}), "
            f"over {PREDICTED_LIMIT:g}x {what}"
        )
    return None


# -- timing one stream -----------------------------------------------------------------------------


@dataclass
class Timed:
    outcome: Outcome  # of the first round: the one judged
    seconds: float  # the best round
    rounds: int
    peak_memory: int | None = None  # bytes
    memory_method: str | None = None


Clock = Callable[[], float]


class Implementation:
    """How one request is run and its memory read: in process (tracemalloc) or through a driver (VmHWM)."""

    def __init__(self, adapter: Any, clock: Clock = time.perf_counter) -> None:
        self.adapter = adapter
        self.clock = clock
        self.driven = getattr(adapter, "run_request", None) is not None
        self._run = adapter.run_request if self.driven else partial(call_adapter, adapter)

    @property
    def mode(self) -> str:
        return "driver" if self.driven else "in-process"

    def time(self, request: AssemblyRequest, timeout: float, warm_up: bool = False) -> Timed:
        """The best of up to MAX_ROUNDS runs (short streams only); a driver's peak RSS during the first.

        `warm_up`: one untimed run first (imports, caches, a JIT), unless it already fails.
        """
        if warm_up:
            outcome = self._run(request, timeout)
            if not isinstance(outcome, Returned):
                return Timed(outcome, 0.0, 0)
        rounds, best, first, spent = 0, math.inf, None, 0.0
        while rounds < MAX_ROUNDS:
            if self.driven:
                reset_peak_rss(driver_pid(self.adapter))
            seconds, outcome = self._timed_run(request, timeout)
            rounds += 1
            spent += seconds
            if isinstance(outcome, Returned) or first is None:  # a later round that failed is no time
                best = min(best, seconds)
            if first is None:
                first = outcome
                if self.driven:
                    peak = peak_rss(driver_pid(self.adapter))
            if not isinstance(outcome, Returned) or spent >= MIN_TIMED_SECONDS:
                break
        assert first is not None  # the loop ran at least once (MAX_ROUNDS > 0), and its first round set it
        timed = Timed(first, best, rounds)
        if self.driven and peak is not None:
            timed.peak_memory, timed.memory_method = peak, "driver peak RSS (VmHWM)"
        return timed

    def _timed_run(self, request: AssemblyRequest, timeout: float) -> tuple[float, Outcome]:
        collecting = gc.isenabled()
        # As timeit does: no collection pauses during the run (the harness encodes a driver's request inside
        # it too). No gc.collect() before it either: with long streams alive a collection costs tens of ms,
        # more than many runs, and garbage left from an earlier run is not collected during this one.
        gc.disable()
        try:
            started = self.clock()
            outcome = self._run(request, timeout)
            return self.clock() - started, outcome
        finally:
            if collecting:
                gc.enable()

    def traced_peak(self, request: AssemblyRequest, timeout: float) -> int | None:
        """Peak bytes Python allocated during one more, untimed run (tracemalloc slows a run several times)."""
        if tracemalloc.is_tracing():
            return None  # someone else is tracing; their figures and ours would mix
        tracemalloc.start()
        try:
            self._run(request, timeout)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


def timed_again_if_steep(
    implementation: Implementation,
    request: AssemblyRequest,
    timeout: float,
    timed: Timed,
    previous: tuple[int, float] | None,
    size: int,
) -> Timed:
    """Time a stream once more when it grew steeply from the previous size: on a shared machine one
    run can be caught by a pause that is not the implementation's; its growth shows again, a pause does not."""
    if previous is None or timed.rounds >= MAX_ROUNDS or not isinstance(timed.outcome, Returned):
        return timed
    slope = math.log(max(timed.seconds, 1e-9) / max(previous[1], 1e-9)) / math.log(size / previous[0])
    if slope <= SUPER_LINEAR:
        return timed
    again = implementation.time(request, timeout)
    if isinstance(again.outcome, Returned):
        timed.seconds, timed.rounds = min(timed.seconds, again.seconds), timed.rounds + again.rounds
    return timed


def driver_pid(adapter: Any) -> int | None:
    """The running driver's process id (SubprocessAdapter.pid; None between restarts or for an adapter without one)."""
    return getattr(adapter, "pid", None)


def reset_peak_rss(pid: int | None) -> bool:
    """Reset a process's peak RSS (Linux: 5 into /proc/<pid>/clear_refs), so VmHWM is one stream's peak."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def peak_rss(pid: int | None) -> int | None:
    """VmHWM of a process in bytes (None where /proc does not tell)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


# -- one scenario ----------------------------------------------------------------------------------


@dataclass
class Point:
    fragments: int
    seconds: float
    rounds: int
    reference_seconds: float | None = None
    peak_memory: int | None = None
    memory_method: str | None = None

    def to_json(self, scenario: str) -> dict[str, Any]:
        return {
            "kind": "point",
            "scenario": scenario,
            "fragments": self.fragments,
            "verdict": "pass",
            "seconds": round(self.seconds, 6),
            "rounds": self.rounds,
            "reference_seconds": None if self.reference_seconds is None else round(self.reference_seconds, 6),
            "peak_memory_bytes": self.peak_memory,
            "memory_method": self.memory_method,
        }


@dataclass
class ScenarioCost:
    spec: ScenarioSpec
    adapter_name: str
    points: list[Point] = field(default_factory=list)
    failure: dict[str, Any] | None = None  # the wrong result that stopped the scenario: its verdict and message
    stopped: str | None = None

    def summary(self) -> dict[str, Any]:
        sizes = [p.fragments for p in self.points]
        seconds = [p.seconds for p in self.points]
        exponent = growth_exponent(sizes, seconds)
        at, at_basis = time_at(AT_FRAGMENTS, sizes, seconds, exponent)
        reference = [p.reference_seconds for p in self.points if p.reference_seconds is not None]
        reference_at = None
        if self.points and len(reference) == len(self.points):  # the reference was timed at every size
            reference_at, _ = time_at(AT_FRAGMENTS, sizes, reference, growth_exponent(sizes, reference))
        over, over_basis = size_over(OVER_SECONDS, sizes, seconds, exponent)
        memories = [p.peak_memory for p in self.points if p.peak_memory is not None]
        super_linear = exponent is not None and exponent > SUPER_LINEAR
        return {
            "kind": "scenario",
            "scenario": self.spec.id,
            "title": self.spec.title,
            "protocol": self.spec.protocol,
            "shape": self.spec.shape,
            "fragment_size": self.spec.fragment_size,
            "sizes": sizes,
            "exponent": _rounded(exponent, 3),
            "seconds_at_10k": _rounded(at, 6),
            "seconds_at_10k_basis": at_basis,
            "reference_seconds_at_10k": _rounded(reference_at, 6),
            "n_over_1s": None if over is None else round(over),
            "n_over_1s_basis": over_basis,
            "peak_memory_bytes": max(memories) if memories else None,
            "memory_method": next((p.memory_method for p in self.points if p.memory_method), None),
            "super_linear": super_linear,
            "cause": known_cause(self.adapter_name, self.spec.shape) if super_linear else None,
            "stopped": self.stopped,
            "failure": self.failure,
        }


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


class ReferenceBaseline:
    """The reference timed on the same streams, delivered the same way; kept per run, so `score` times it once."""

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self._seconds: dict[tuple[str, str, int], float | None] = {}
        self._last: dict[tuple[str, str], tuple[int, float]] = {}  # the largest size timed so far, per scenario
        self._implementations: dict[str, Implementation] = {}

    def seconds(
        self, mode: str, spec: ScenarioSpec, size: int, request: AssemblyRequest, timeout: float
    ) -> float | None:
        key = (mode, spec.id, size)
        if key not in self._seconds:
            from deltacheck.errors import DriverFailed

            previous = self._last.get((mode, spec.id))
            try:
                implementation = self._implementation(mode)
                timed = implementation.time(request, timeout, warm_up=previous is None)
                if previous is not None and previous[0] < size:
                    timed = timed_again_if_steep(implementation, request, timeout, timed, previous, size)
            except DriverFailed:  # no baseline then: the implementation's own figures still stand
                self._seconds[key] = None
            else:
                self._seconds[key] = timed.seconds if isinstance(timed.outcome, Returned) else None
                if self._seconds[key] is not None and (previous is None or previous[0] < size):
                    self._last[(mode, spec.id)] = (size, timed.seconds)
        return self._seconds[key]

    def _implementation(self, mode: str) -> Implementation:
        if mode not in self._implementations:
            adapter: Adapter | SubprocessAdapter  # the reference behind its driver, or in process
            if mode == "driver":
                from deltacheck.driver.subprocess_adapter import SubprocessAdapter

                adapter = SubprocessAdapter(
                    [sys.executable, "-m", "deltacheck.driver", "deltacheck.adapters.reference:ReferenceAdapter"]
                )
                adapter.start()
            else:
                from deltacheck.adapter import get_adapter_factory

                adapter = get_adapter_factory("reference")()
            self._implementations[mode] = Implementation(adapter, self.clock)
        return self._implementations[mode]

    def close(self) -> None:
        for implementation in self._implementations.values():
            if implementation.driven:
                implementation.adapter.close()
        self._implementations.clear()


def measure_scenario(
    implementation: Implementation,
    spec: ScenarioSpec,
    validator,
    fast_check,
    budget: float = DEFAULT_BUDGET,
    timeout: float = DEFAULT_STREAM_TIMEOUT,
    baseline: ReferenceBaseline | None = None,
    on_point: Callable[[dict[str, Any]], None] = lambda record: None,
) -> ScenarioCost:
    """Time one scenario at growing N until the budget stops it or a result is wrong."""
    adapter = implementation.adapter
    capabilities = frozenset(adapter.capabilities)
    cost = ScenarioCost(spec, adapter.name)
    for size in spec.sizes:
        cost.stopped = stop_reason(cost.points, size, budget)
        if cost.stopped:
            break
        scenario = spec.generate(size)
        fixture = spec.fixture(scenario)
        request = served_request(fixture, transport_of(adapter))
        timed = implementation.time(request, timeout, warm_up=not cost.points)
        previous = (cost.points[-1].fragments, cost.points[-1].seconds) if cost.points else None
        timed = timed_again_if_steep(implementation, request, timeout, timed, previous, size)
        verdict = judge(
            fixture,
            timed.outcome,
            capabilities,
            validator,
            ScenarioSpec.fragment_positions(scenario) if "events" in capabilities else None,
            fast_check,
        )
        if verdict.verdict not in PASSING:
            cost.failure = {"fragments": size, "verdict": verdict.verdict, "message": verdict.message}
            cost.stopped = f"a {verdict.verdict} at N={size:,}"
            on_point(
                {
                    "kind": "point",
                    "scenario": spec.id,
                    "fragments": size,
                    "verdict": verdict.verdict,
                    "message": verdict.message,
                }
            )
            break
        reference = None
        if adapter.name == "reference" and not implementation.driven:
            reference = timed.seconds  # the reference itself: the same run is its own baseline
        elif baseline is not None:
            reference = baseline.seconds(implementation.mode, spec, size, request, timeout)
        point = Point(size, timed.seconds, timed.rounds, reference, timed.peak_memory, timed.memory_method)
        cost.points.append(point)
        if not implementation.driven and _is_last(cost.points, spec, budget):
            # In process, memory is traced once, at the largest size (tracemalloc slows a run several times).
            point.peak_memory, point.memory_method = implementation.traced_peak(request, timeout), "tracemalloc"
        on_point(point.to_json(spec.id))
    if (
        cost.failure is None
        and (growth_exponent([p.fragments for p in cost.points], [p.seconds for p in cost.points]) or 0) > SUPER_LINEAR
    ):
        confirm_growth(implementation, spec, cost, timeout, on_point)
    return cost


def confirm_growth(
    implementation: Implementation,
    spec: ScenarioSpec,
    cost: ScenarioCost,
    timeout: float,
    on_point: Callable[[dict[str, Any]], None],
) -> None:
    """Time the sizes the exponent is fitted over once more, smallest first, keeping each one's best.

    Super-linear growth is a finding only if it shows again: a shared machine busy for a few seconds
    slows the runs of one or two sizes (the immediate re-run of a steep size included), which a later
    look does not repeat; real growth does. Only the timing is repeated; the result was judged.
    """
    largest = max(p.fragments for p in cost.points)
    for point in [p for p in cost.points if p.fragments * 10**FIT_DECADES >= largest]:
        fixture = spec.fixture(spec.generate(point.fragments))
        again = implementation.time(served_request(fixture, transport_of(implementation.adapter)), timeout)
        if not isinstance(again.outcome, Returned):
            continue
        own_baseline = (
            point.reference_seconds == point.seconds and cost.adapter_name == "reference" and not implementation.driven
        )
        point.seconds, point.rounds = min(point.seconds, again.seconds), point.rounds + again.rounds
        if own_baseline:
            point.reference_seconds = point.seconds
        on_point({**point.to_json(spec.id), "timed_again": True})


def _is_last(points: list[Point], spec: ScenarioSpec, budget: float) -> bool:
    following = [n for n in spec.sizes if n > points[-1].fragments]
    return not following or stop_reason(points, following[0], budget) is not None


def measure(
    implementation: Implementation,
    specs: list[ScenarioSpec],
    validator,
    fast_check,
    budget: float = DEFAULT_BUDGET,
    timeout: float = DEFAULT_STREAM_TIMEOUT,
    baseline: ReferenceBaseline | None = None,
    on_point: Callable[[dict[str, Any]], None] = lambda record: None,
) -> Iterator[ScenarioCost]:
    """Each scenario of the protocols the implementation speaks, in turn."""
    spoken = set(implementation.adapter.protocols)
    for spec in specs:
        if spec.protocol in spoken:
            yield measure_scenario(implementation, spec, validator, fast_check, budget, timeout, baseline, on_point)
