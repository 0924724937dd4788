"""One job per adapter, run in worker processes up to a number at a time.

Workers are forked from the calling process, so a job sees the same registry, corpus and options
without anything being pickled but its name and its outcome. A job writes its own files; what it
prints is kept off the shared terminal: its console output is dropped (the caller records what
matters in files), and every other line it writes to stdout or stderr (environment builds, notices,
an in-process library's prints) is passed to the caller whole, named by its job, so lines from two
jobs never mix. Outcomes arrive in completion order.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

POLL_SECONDS = 0.1
MAX_LINE_BYTES = 64 * 1024


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask), at least 1."""
    process_cpu_count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if process_cpu_count is not None:
        return process_cpu_count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class JobEvents(Protocol):
    """What the caller hears about the jobs, always on its own thread."""

    def started(self, name: str) -> None: ...

    def line(self, name: str, text: str) -> None: ...

    def finished(self, name: str, outcome: Any) -> None: ...

    def died(self, name: str, reason: str) -> None: ...

    # Around the fork of the workers: a display's refresh thread must not hold a lock they copy.
    def pause(self) -> None: ...

    def resume(self) -> None: ...


@dataclass(frozen=True)
class _Event:
    kind: str  # "started" or "line"
    name: str
    text: str = ""


# Set in the caller before the workers are forked; each worker inherits them.
_job: Callable[[str], Any] | None = None
_events: Any = None

# In a worker: the job running, and the barrier that its output has been passed on.
_current = ""
_output_passed = threading.Event()
_END_OF_JOB = b"\0deltacheck: end of job\n"


def _start_worker() -> None:
    """Drop the console's output; pass every line written to stdout or stderr (even from C) to the caller."""
    # Drivers the caller had running are its own: a worker neither talks to them nor stops them.
    from deltacheck.cli.common import err
    from deltacheck.driver import external

    external._running.clear()
    err.file = open(os.devnull, "w", encoding="utf-8")
    read_end, write_end = os.pipe()
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)
    os.close(write_end)
    # New streams on the new fds: the inherited ones may be the caller's captures (a test runner's).
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    threading.Thread(target=_pass_output, args=(read_end,), name="job-output", daemon=True).start()


def _pass_output(read_end: int) -> None:
    with open(read_end, "rb") as pipe:
        for raw in iter(lambda: pipe.readline(MAX_LINE_BYTES), b""):  # a flood without newlines comes in pieces
            if raw == _END_OF_JOB:
                _output_passed.set()
                continue
            if not raw.strip():
                continue
            _events.put(_Event("line", _current, raw.decode("utf-8", errors="replace").rstrip("\n")))


def _run_job(name: str) -> Any:
    global _current
    assert _job is not None  # run_jobs sets it before it forks the workers
    _current = name
    _events.put(_Event("started", name))
    try:
        return _job(name)
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        _output_passed.clear()
        os.write(2, b"\n" + _END_OF_JOB)  # after a line left unfinished, if any
        _output_passed.wait(timeout=5.0)


def run_jobs(names: list[str], job: Callable[[str], Any], workers: int, events: JobEvents) -> None:
    """Run `job(name)` for every name in worker processes, at most `workers` at once.

    A job's exception stops the jobs not yet started and is raised here once the running ones are
    done. A worker that dies (killed, out of memory) breaks its pool and takes the other running
    jobs with it: those jobs run again, each alone in a fresh worker, so that `events.died` names
    only the job that dies on its own; the jobs not started yet run in a fresh pool.
    """
    global _job, _events
    context = multiprocessing.get_context("fork")
    _job, _events = job, context.SimpleQueue()
    waiting = list(names)
    while waiting:
        waiting, interrupted = _run_pool(waiting, context, workers, events)
        for name in interrupted:
            _run_pool([name], context, 1, events)


def _run_pool(names: list[str], context, workers: int, events: JobEvents) -> tuple[list[str], list[str]]:
    """Run the names in one pool; when it breaks, returns the names not started and those interrupted."""
    started: set[str] = set()
    finished: set[str] = set()
    error: BaseException | None = None
    not_started: list[str] = []
    interrupted: list[str] = []
    alone = len(names) == 1
    events.pause()
    try:  # the workers are forked at the first submit
        pool = ProcessPoolExecutor(max_workers=min(workers, len(names)), mp_context=context, initializer=_start_worker)
        pending: dict[Future, str] = {pool.submit(_run_job, name): name for name in names}
    finally:
        events.resume()
    try:
        while pending:
            done, _ = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            _deliver(events, started, finished)
            for future in done:
                name = pending.pop(future)
                finished.add(name)
                if future.cancelled():
                    continue
                failure = future.exception()
                if isinstance(failure, BrokenProcessPool):
                    if name not in started:
                        not_started.append(name)
                    elif alone:
                        events.died(name, f"its worker process died ({failure})")
                    else:
                        interrupted.append(name)
                elif failure is not None:
                    error = error or failure
                    for other in pending:
                        other.cancel()
                else:
                    events.finished(name, future.result())
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    _deliver(events, started, finished)
    if error is not None:
        raise error
    return [n for n in names if n in not_started], [n for n in names if n in interrupted]


def _deliver(events: JobEvents, started: set[str], finished: set[str]) -> None:
    while not _events.empty():
        event = _events.get()
        if event.kind == "started":
            started.add(event.name)
            if event.name not in finished:
                events.started(event.name)
        else:
            events.line(event.name, event.text)
