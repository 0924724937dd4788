"""The shared deadline timer stops every hanging call, keeps every quick one, and outlives no run."""

from __future__ import annotations

import signal
import time

import pytest

from deltacheck.running.deadlines import Expired, shared_timer, within


def _hang() -> None:
    while True:
        time.sleep(0.005)


def _nap(seconds: float):
    def work() -> str:
        time.sleep(seconds)
        return "done"
    return work


def test_a_hanging_call_expires_alone_and_within_a_run() -> None:
    with pytest.raises(Expired):
        within(_hang, 0.05)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with shared_timer():
        assert within(_nap(0), 0.2) == "done"
        started = time.monotonic()
        with pytest.raises(Expired):
            within(_hang, 0.2)
        assert 0.15 < time.monotonic() - started < 1.0  # its own deadline, not one left from the call before


def test_a_timer_armed_by_an_earlier_call_is_carried_to_a_later_calls_deadline() -> None:
    with shared_timer():
        within(_nap(0), 0.1)  # arms the timer to fire ~0.1 s from now
        time.sleep(0.05)
        # Fires inside this call, which still has time: re-armed, not raised.
        assert within(_nap(0.12), 0.3) == "done"
        started = time.monotonic()
        with pytest.raises(Expired):
            within(_hang, 0.1)
        assert time.monotonic() - started < 0.6


def test_calls_after_a_run_and_between_calls_are_left_alone() -> None:
    with shared_timer():
        within(_nap(0), 0.05)
        time.sleep(0.1)  # the timer fires between calls: nothing is raised here
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no alarm outlives the run
    with shared_timer():
        within(_nap(0), 5.0)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_process_forked_during_a_run_still_times_out_its_own_calls() -> None:
    import os

    with shared_timer():
        within(_nap(0), 0.3)  # the parent's timer fires in 0.3 s; a child does not inherit it
        child = os.fork()
        if child == 0:
            try:
                within(_hang, 0.6)  # a later deadline than the inherited one: only its own timer can stop it
                os._exit(1)
            except Expired:
                os._exit(0)
            except BaseException:
                os._exit(2)
        for _ in range(100):  # up to 5 s, then the child is taken for hung
            done, status = os.waitpid(child, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(child, 9)
            os.waitpid(child, 0)
            pytest.fail("the forked process's hanging call was never stopped")
    assert os.waitstatus_to_exitcode(status) == 0
