"""Run fixtures through an adapter, one at a time, isolating whatever the implementation does."""

from __future__ import annotations

import asyncio
import inspect
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Iterable, Iterator

from deltacheck.adapter import Adapter
from deltacheck.corpus.loader import Corpus, fast_result_check, result_validator
from deltacheck.running.deadlines import Expired, shared_timer, within
from deltacheck.model import AssemblyRequest, Fixture
from deltacheck.protocols import PROTOCOLS
from deltacheck.judge.verdict import Crashed, Outcome, Raised, Returned, TimedOut, Verdict, judge

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_TIMEOUTS = 5
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
        return Raised(f"{type(exc).__name__}: {exc}", exception=exc)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


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

    def to_json(self) -> dict[str, Any]:
        return {"kind": "result", "fixture": self.verdict.fixture, "adapter": self.adapter, "title": self.title,
                "path": self.path, "duration_ms": round(self.duration_ms, 3), **self.verdict.to_json()}


def run_fixtures(adapter: Adapter, corpus: Corpus, fixtures: Iterable[Fixture],
                 timeout: float = DEFAULT_TIMEOUT, max_timeouts: int = 0) -> Iterator[RunRecord]:
    """Yield one record per fixture, in order; skips and n/a are records too, never silent.

    After `max_timeouts` timeouts in a row (0: never) the adapter is taken for dead: the remaining
    fixtures are recorded as skipped with the reason, so a hung driver costs seconds, not fixtures x timeout.
    """
    validator = result_validator(corpus.root)
    fast_check = fast_result_check(corpus.root)
    capabilities = frozenset(adapter.capabilities)
    # An out-of-process adapter (SubprocessAdapter) runs a request itself; an in-process one is called here.
    run_request = getattr(adapter, "run_request", None) or partial(call_adapter, adapter)
    timeouts_in_a_row = 0
    name, protocols, wants_events = adapter.name, adapter.protocols, "events" in capabilities
    with shared_timer():  # one deadline timer for the whole run, not two system calls per fixture
        for fixture in fixtures:
            if max_timeouts and timeouts_in_a_row >= max_timeouts:
                verdict = Verdict(fixture.id, fixture.protocol, "skip", f"not run: {name} timed out on "
                                  f"{timeouts_in_a_row} fixtures in a row, and the run stopped asking it (--max-timeouts)")
                yield RunRecord(name, verdict, 0.0, fixture.title, fixture.path)
                continue
            if fixture.protocol not in protocols:
                verdict = Verdict(fixture.id, fixture.protocol, "skip", f"{name} does not speak {fixture.protocol}")
                yield RunRecord(name, verdict, 0.0, fixture.title, fixture.path)
                continue
            lacking = corpus.required_capabilities(fixture) - capabilities
            started = time.perf_counter()
            outcome = run_request(fixture.request(), timeout)
            elapsed = (time.perf_counter() - started) * 1000
            reference = corpus.reference_outcome(fixture) if wants_events else None
            verdict = judge(fixture, outcome, capabilities, validator, reference, fast_check, lacking)
            timeouts_in_a_row = timeouts_in_a_row + 1 if verdict.verdict == "timeout" else 0
            yield RunRecord(name, verdict, elapsed, fixture.title, fixture.path)


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
        yield {"kind": "result", "fixture": fixture_id, "adapter": adapter_name, "path": path, "protocol": protocol,
               "verdict": "skip", "bug_in_fixture": True,
               "message": "BUG IN FIXTURE: " + "; ".join(f"{p.field}: {p.message}" for p in problems)}


__all__ = ["DEFAULT_MAX_TIMEOUTS", "DEFAULT_TIMEOUT", "Crashed", "RunRecord", "call_adapter", "problem_records", "run_fixtures"]
