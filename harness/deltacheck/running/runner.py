"""Run fixtures through an adapter, one at a time, isolating whatever the implementation does."""

from __future__ import annotations

import asyncio
import inspect
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import partial
from typing import Any

from deltacheck.adapter import Adapter
from deltacheck.corpus.loader import Corpus, fast_result_check, result_validator
from deltacheck.errors import shortened, without_embedded_traceback
from deltacheck.judge.plain_json import kind_of
from deltacheck.judge.severity import FAILING
from deltacheck.judge.verdict import Crashed, Outcome, Raised, Returned, TimedOut, Verdict, judge
from deltacheck.locations import portable
from deltacheck.model import AssemblyRequest, Fixture
from deltacheck.protocols import PROTOCOLS
from deltacheck.running.deadlines import Expired, shared_timer, within

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_TIMEOUTS = 5
# What one verdict's message can print or record (an implementation's 10 MB exception text); the observed
# result and the diff are kept whole.
MAX_VERDICT_MESSAGE_CHARS = 2_000
# A signal can interrupt a call only on the main thread, and only where the OS has interval timers.
HAS_TIMER = hasattr(signal, "setitimer")
MAIN_THREAD = threading.main_thread()


def call_adapter(adapter: Adapter, request: AssemblyRequest, timeout: float) -> Outcome:
    """Run one request; never raises (except KeyboardInterrupt)."""

    def work() -> Any:
        value = adapter.assemble(request)
        if type(value) is not dict and inspect.isawaitable(value):  # the type test first: it is 10x cheaper
            value = asyncio.run(_awaited(value))
        return value

    try:
        if HAS_TIMER and threading.current_thread() is MAIN_THREAD:
            return Returned(within(work, timeout))
        return Returned(_with_thread(work, timeout))
    except (Expired, FutureTimeout):
        return TimedOut(timeout)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the implementation's failure is a verdict, not our crash
        return Raised(described(exc), exception=exc)


def described(exc: BaseException) -> str:
    """`Type: message` for an implementation's exception, even one whose __str__ raises or is not a str."""
    try:
        text = str(exc)
    except Exception:
        text = "(its message could not be read: its __str__ raised)"
    # Cut here, not only in the record: what the judge adds after it (which rejection it wanted) stays readable.
    return f"{kind_of(exc)}: {shortened(portable(without_embedded_traceback(text)), MAX_VERDICT_MESSAGE_CHARS // 2)}"


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


async def call_adapter_async(adapter: Adapter, request: AssemblyRequest, timeout: float) -> Outcome:
    """Run one request on the event loop the caller runs on (the pytest plugin's: pytest-asyncio's loop),
    so an async adapter can use what was made for that loop; never raises (except KeyboardInterrupt).

    The timeout cancels the adapter's coroutine at its next await; one that blocks the loop without
    awaiting cannot be interrupted on its own loop.
    """
    try:
        async with asyncio.timeout(timeout) as deadline:
            value = adapter.assemble(request)
            if inspect.isawaitable(value):
                value = await value
        return Returned(value)
    except TimeoutError as exc:
        if deadline.expired():
            return TimedOut(timeout)
        return Raised(described(exc), exception=exc)  # the implementation's own timeout
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise  # the run was stopped, or the caller's task cancelled: not the implementation's verdict
    except BaseException as exc:  # the implementation's failure is a verdict, not our crash
        return Raised(described(exc), exception=exc)


def _with_thread(work: Callable[[], Any], timeout: float) -> Any:
    # Off the main thread there is no signal to interrupt with; a hung worker is abandoned.
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(work).result(timeout=timeout)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class RunRecord:
    """One line of a results file: the verdict plus where it came from."""

    adapter: str
    verdict: Verdict
    duration_ms: float
    title: str = ""
    path: str = ""
    # What the fixture's expected result rests on, and whether its chunks break the published shape:
    # a failure's severity follows from them (deltacheck/judge/severity.py), so failing records carry them.
    basis: dict[str, Any] | None = None
    off_schema: bool = False

    @classmethod
    def of(cls, adapter: str, verdict: Verdict, duration_ms: float, fixture: Fixture) -> RunRecord:
        # A driver's message, and a diff (a gateway's error text), may name files under the checkout.
        verdict.message = portable(verdict.message)
        if verdict.diff:
            verdict.diff = portable(verdict.diff)
        if len(verdict.message) > MAX_VERDICT_MESSAGE_CHARS:  # one line a person reads, printed and recorded
            verdict.message = shortened(verdict.message, MAX_VERDICT_MESSAGE_CHARS)
        basis = {k: v for k, v in (fixture.basis or {}).items() if k in ("kind", "servers")} or None
        return cls(adapter, verdict, duration_ms, fixture.title, fixture.path, basis, "off-schema" in fixture.tags)

    def to_json(self) -> dict[str, Any]:
        failing: dict[str, Any] = {}
        if self.verdict.verdict in FAILING:
            failing = {"basis": self.basis} if self.basis else {}
            failing |= {"off_schema": True} if self.off_schema else {}
        return {
            "kind": "result",
            "fixture": self.verdict.fixture,
            "adapter": self.adapter,
            "title": self.title,
            "path": self.path,
            "duration_ms": round(self.duration_ms, 3),
            **self.verdict.to_json(),
            **failing,
        }


# A fixture that times out is run once more with this many times the limit before the timeout counts.
TIMEOUT_CONFIRM_FACTOR = 3


def run_fixtures(
    adapter: Adapter,
    corpus: Corpus,
    fixtures: Iterable[Fixture],
    timeout: float = DEFAULT_TIMEOUT,
    max_timeouts: int = 0,
    announce: Callable[[str], None] | None = None,
) -> Iterator[RunRecord]:
    """Yield one record per fixture, in order; skips and n/a are records too, never silent.

    `announce(fixture_id)` is called just before the implementation is given a fixture: the results
    file's `running` line, which outlives a process the implementation ends.

    After `max_timeouts` timeouts in a row (0: never) the adapter is taken for dead: the remaining
    fixtures are recorded as skipped with the reason, so a hung driver costs seconds, not fixtures x timeout.
    """
    validator = result_validator(corpus.root)
    fast_check = fast_result_check(corpus.root)
    # An out-of-process adapter (SubprocessAdapter) runs a request itself; an in-process one is called here.
    run_request = getattr(adapter, "run_request", None) or partial(call_adapter, adapter)
    timeouts_in_a_row = 0
    name, protocols, capabilities = adapter.name, adapter.protocols, frozenset(adapter.capabilities)
    transport = transport_of(adapter)
    with shared_timer():  # one deadline timer for the whole run, not two system calls per fixture
        for fixture in fixtures:
            if max_timeouts and timeouts_in_a_row >= max_timeouts:
                verdict = Verdict(
                    fixture.id,
                    fixture.protocol,
                    "skip",
                    f"not run: {name} timed out on "
                    f"{timeouts_in_a_row} fixtures in a row, and the run stopped asking it (--max-timeouts)",
                )
                yield RunRecord.of(name, verdict, 0.0, fixture)
                continue
            if fixture.protocol not in protocols:
                yield _not_spoken(name, fixture)
                continue
            if (problem := fixture.transport_problem(transport)) is not None:
                yield _not_carried(name, fixture, problem)
                continue
            if announce is not None:
                announce(fixture.id)
            started = time.perf_counter()
            request = fixture.request(transport)
            outcome = run_request(request, timeout)
            if isinstance(outcome, TimedOut) and timeouts_in_a_row == 0:
                # A timeout stands only when a second run, allowed TIMEOUT_CONFIRM_FACTOR times longer, times
                # out too: one run slowed by a busy machine must not change a score the next run would not
                # give. Only the first of a streak is run again, so a dead driver still costs seconds.
                outcome = run_request(request, timeout * TIMEOUT_CONFIRM_FACTOR)
            record = judged(
                name,
                capabilities,
                corpus,
                fixture,
                outcome,
                (time.perf_counter() - started) * 1000,
                validator,
                fast_check,
            )
            timeouts_in_a_row = timeouts_in_a_row + 1 if record.verdict.verdict == "timeout" else 0
            yield record


async def run_fixture_async(
    adapter: Adapter, corpus: Corpus, fixture: Fixture, timeout: float = DEFAULT_TIMEOUT
) -> RunRecord:
    """One fixture through an async adapter on the caller's event loop (`call_adapter_async`), judged as `run_fixtures` judges."""
    if fixture.protocol not in adapter.protocols:
        return _not_spoken(adapter.name, fixture)
    transport = transport_of(adapter)
    if (problem := fixture.transport_problem(transport)) is not None:
        return _not_carried(adapter.name, fixture, problem)
    started = time.perf_counter()
    outcome = await call_adapter_async(adapter, fixture.request(transport), timeout)
    return judged(
        adapter.name,
        frozenset(adapter.capabilities),
        corpus,
        fixture,
        outcome,
        (time.perf_counter() - started) * 1000,
        result_validator(corpus.root),
        fast_result_check(corpus.root),
    )


def _not_spoken(name: str, fixture: Fixture) -> RunRecord:
    verdict = Verdict(fixture.id, fixture.protocol, "skip", f"{name} does not speak {fixture.protocol}")
    return RunRecord.of(name, verdict, 0.0, fixture)


def transport_of(adapter: Any) -> str | None:
    """The wire an adapter reads its protocol's streams on (its manifest's or class's `transport`), else None."""
    return getattr(adapter, "transport", None)


def _not_carried(name: str, fixture: Fixture, problem: str) -> RunRecord:
    """n/a, never run: the fixture's stream cannot travel on the transport the adapter reads (model.Fixture)."""
    return RunRecord.of(name, Verdict(fixture.id, fixture.protocol, "n/a", problem), 0.0, fixture)


def judged(
    name: str,
    capabilities: frozenset[str],
    corpus: Corpus,
    fixture: Fixture,
    outcome: Outcome,
    elapsed_ms: float,
    validator,
    fast_check,
) -> RunRecord:
    """The record of what one run of a fixture produced."""
    lacking = corpus.required_capabilities(fixture) - capabilities
    reference = corpus.reference_outcome(fixture) if "events" in capabilities else None
    verdict = judge(fixture, outcome, capabilities, validator, reference, fast_check, lacking)
    return RunRecord.of(name, verdict, elapsed_ms, fixture)


def problem_records(adapter_name: str, corpus: Corpus, protocols: set[str], ids: set[str]) -> Iterator[dict[str, Any]]:
    """Skip records for fixture files the corpus could not load, with the lint message."""
    by_file: dict[str, list] = {}
    for problem in corpus.problems:
        by_file.setdefault(problem.path, []).append(problem)
    for path, problems in by_file.items():
        fixture_id = problems[0].fixture_id
        if ids and fixture_id not in ids:
            continue
        protocol = next((p for p in PROTOCOLS if f"/{p}/" in path), None)
        if protocols and protocol not in protocols:
            continue
        yield {
            "kind": "result",
            "fixture": fixture_id,
            "adapter": adapter_name,
            "path": path,
            "protocol": protocol,
            "verdict": "skip",
            "bug_in_fixture": True,
            "message": "BUG IN FIXTURE: " + "; ".join(f"{p.field}: {p.message}" for p in problems),
        }


__all__ = [
    "DEFAULT_MAX_TIMEOUTS",
    "DEFAULT_TIMEOUT",
    "Crashed",
    "RunRecord",
    "call_adapter",
    "call_adapter_async",
    "judged",
    "problem_records",
    "run_fixture_async",
    "run_fixtures",
    "transport_of",
]
