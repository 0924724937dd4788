"""Async adapters: awaited on the caller's event loop, in the runner and in the pytest plugin (pytest-asyncio's loop).

A user's async accumulator often needs what their own async fixtures made (a client, a queue, a
session), and those belong to one event loop: the plugin awaits the adapter there, not on a loop of
its own.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest

from deltacheck.judge.verdict import Raised, Returned, TimedOut
from deltacheck.model import AssemblyRequest
from deltacheck.running.runner import call_adapter_async

REQUEST = AssemblyRequest("DC-TEST", "openai-chat", ({"choices": []},))


class _Coroutine:
    """An adapter whose `assemble` awaits `behaviour()` and returns what it gives."""

    name, capabilities, protocols = "coroutine", frozenset(), frozenset({"openai-chat"})

    def __init__(self, behaviour):
        self.behaviour = behaviour

    async def assemble(self, request):
        return await self.behaviour()


@pytest.mark.asyncio
async def test_an_async_adapter_is_awaited_on_the_callers_loop():
    async def which_loop():
        return {"loop": id(asyncio.get_running_loop())}

    outcome = await call_adapter_async(_Coroutine(which_loop), REQUEST, timeout=5)
    assert isinstance(outcome, Returned) and outcome.result == {"loop": id(asyncio.get_running_loop())}


@pytest.mark.asyncio
async def test_an_async_adapter_that_never_answers_times_out_and_the_loop_goes_on():
    outcome = await call_adapter_async(_Coroutine(asyncio.Event().wait), REQUEST, timeout=0.05)
    assert isinstance(outcome, TimedOut) and outcome.seconds == 0.05
    assert await asyncio.sleep(0, "still running") == "still running"


@pytest.mark.asyncio
async def test_an_async_adapters_own_timeout_error_is_its_failure_not_a_timeout():
    async def gives_up():
        raise TimeoutError("upstream took too long")

    outcome = await call_adapter_async(_Coroutine(gives_up), REQUEST, timeout=5)
    assert isinstance(outcome, Raised) and outcome.message == "TimeoutError: upstream took too long"


@pytest.mark.asyncio
async def test_an_async_adapters_exception_is_a_verdict():
    async def breaks():
        raise KeyError("index")

    outcome = await call_adapter_async(_Coroutine(breaks), REQUEST, timeout=5)
    assert isinstance(outcome, Raised) and outcome.message == "KeyError: 'index'"


USER_ADAPTER = '''
import asyncio
from deltacheck import Adapter
from deltacheck.reference import assemble

class OnMyLoop(Adapter):
    """Awaits an event made by the user's session-scoped async fixture: only valid on that fixture's loop."""
    name = "on-my-loop"
    library = "mine"
    version = "1"
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"finish_reason", "usage", "error", "refusal", "multiple_choices"})
    code_path = "the reference behind a coroutine that needs the user's event loop"
    loop = gate = None

    async def assemble(self, request):
        assert asyncio.get_running_loop() is self.loop, "awaited on another loop than the user's fixtures'"
        await self.gate.wait()
        return assemble(request.protocol, request.chunks).result

class CallsAsyncioRun(Adapter):
    """A sync adapter around an async library: it runs its own loop, so it must not be called inside one."""
    name = "calls-asyncio-run"
    library = "mine"
    version = "1"
    protocols = frozenset({"openai-chat"})
    capabilities = OnMyLoop.capabilities
    code_path = "the reference behind asyncio.run"

    def assemble(self, request):
        async def inner():
            return assemble(request.protocol, request.chunks).result
        return asyncio.run(inner())
'''
USER_CONFTEST = '''
import asyncio
import pytest_asyncio
import mine

@pytest_asyncio.fixture(scope="session", loop_scope="session", autouse=True)
async def my_loop():
    mine.OnMyLoop.loop = asyncio.get_running_loop()
    mine.OnMyLoop.gate = asyncio.Event()
    mine.OnMyLoop.gate.set()
    yield
'''


def _run_users_suite(tmp_path, loop_scope: str, adapter: str) -> subprocess.CompletedProcess:
    (tmp_path / "mine.py").write_text(USER_ADAPTER)
    (tmp_path / "conftest.py").write_text(USER_CONFTEST)
    (tmp_path / "pytest.ini").write_text(textwrap.dedent(f"""\
        [pytest]
        asyncio_mode = strict
        asyncio_default_fixture_loop_scope = {loop_scope}
        """))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--deltacheck-adapter",
                           adapter, "--deltacheck-fixture", "DC-8499", "--deltacheck-fixture", "DC-0KW2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_the_plugin_awaits_an_async_adapter_on_the_loop_of_the_users_async_fixtures(tmp_path):
    outcome = _run_users_suite(tmp_path, "session", "mine:OnMyLoop")
    assert outcome.returncode == 0 and "2 passed" in outcome.stdout, outcome.stdout[-3000:]


def test_an_adapter_awaited_on_another_loop_than_its_fixtures_fails_there(tmp_path):
    # The control for the test above: with the plugin's run on function-scoped loops, the user's
    # session-loop event is out of reach, and the adapter's own check says so.
    outcome = _run_users_suite(tmp_path, "function", "mine:OnMyLoop")
    assert outcome.returncode == 1 and "2 failed" in outcome.stdout, outcome.stdout[-3000:]
    assert "awaited on another loop than the user's fixtures'" in outcome.stdout


def test_a_sync_adapter_that_runs_its_own_loop_is_not_called_inside_one(tmp_path):
    outcome = _run_users_suite(tmp_path, "session", "mine:CallsAsyncioRun")
    assert outcome.returncode == 0 and "2 passed" in outcome.stdout, outcome.stdout[-3000:]
