"""A deadline for an in-process call on the main thread: SIGALRM interrupts an implementation that hangs.

Arming and disarming an interval timer around every call costs two system calls, a tenth of the
harness's own work per fixture. Inside `shared_timer()` (a run over many fixtures) the timer is
instead armed once and left running: a call only records its deadline; when the timer fires, the
handler raises in a call past its deadline, re-arms for a call that still has time, and does
nothing between calls. Leaving `shared_timer()` disarms it, so no alarm outlives the run. Outside
it, each call arms and disarms its own timer.
"""

from __future__ import annotations

# The C module (typeshed has no stubs for it): its getsignal skips the enum conversion that
# `signal.getsignal` adds per call.
import _signal  # type: ignore[import-not-found]
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class Expired(BaseException):
    """Raised inside a hanging call by the timer; a BaseException so `except Exception` can't eat it."""


_deadline: float | None = None  # time.monotonic() by which the call in progress must return
_fires_at: float | None = None  # when the armed timer fires; None when it is not armed
_sharing = 0  # how many shared_timer() contexts are open


def _on_alarm(signum, frame) -> None:
    global _fires_at
    _fires_at = None
    if _deadline is None:
        return  # between calls: stay disarmed until the next call
    left = _deadline - time.monotonic()
    if left <= 0:
        raise Expired()
    _arm(left)


def _arm(seconds: float) -> None:
    global _fires_at
    signal.setitimer(signal.ITIMER_REAL, seconds)
    _fires_at = time.monotonic() + seconds


def _disarm() -> None:
    global _fires_at
    signal.setitimer(signal.ITIMER_REAL, 0)
    _fires_at = None


def within(work: Callable[[], Any], timeout: float) -> Any:
    """`work()`, or Expired once `timeout` seconds have passed. Main thread only."""
    global _deadline
    # The handler stays installed between calls: re-installing it per call was a measurable cost.
    if _signal.getsignal(signal.SIGALRM) is not _on_alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
    deadline = time.monotonic() + timeout
    if not _sharing or _fires_at is None or _fires_at > deadline:  # a shared timer must fire by this deadline
        _arm(timeout)
    _deadline = deadline
    try:
        return work()
    finally:
        _deadline = None
        if not _sharing:
            _disarm()


def _forget_in_child() -> None:
    """A forked process inherits these values but not the timer itself: it starts with none."""
    global _deadline, _fires_at, _sharing
    _deadline, _fires_at, _sharing = None, None, 0


os.register_at_fork(after_in_child=_forget_in_child)


@contextmanager
def shared_timer() -> Iterator[None]:
    """Calls made inside share one timer (see the module's docstring); it is disarmed on the way out."""
    global _sharing
    _sharing += 1
    try:
        yield
    finally:
        _sharing -= 1
        if not _sharing and _fires_at is not None:
            _disarm()
