"""The harness side of the driver protocol: an implementation in a process of its own.

A SubprocessAdapter looks like an in-process adapter to the runner (name, protocols,
capabilities, describe()) and adds `run_request`, which turns everything a driver can do with one
request into an Outcome: a reply, a crash, a hang, a line that is not a valid reply. After any
failure the driver is killed, and the next request starts a fresh one.
"""

from __future__ import annotations

import atexit
import json
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deltacheck.driver.message_schemas import message_problems
from deltacheck.driver.messages import PROTOCOL_VERSION, encode_line, run_request, start_request, stop_request
from deltacheck.driver.process import EOF, DriverProcess, LineTooLong, describe_status
from deltacheck.errors import DriverFailed
from deltacheck.judge.plain_json import NotPlainJson, plain_json
from deltacheck.judge.verdict import BrokeProtocol, Crashed, Outcome, Raised, Returned, Skipped, TimedOut
from deltacheck.model import AssemblyRequest
from deltacheck.protocols.capability_notes import with_protocol_reasons

DEFAULT_STARTUP_TIMEOUT = 120.0  # importing an SDK (or starting node) can be slow on a cold cache
# The first run after a driver starts also pays for what the library loads on its first call (LiteLLM
# imports 200+ modules then, 1-2.5 s on a quiet machine and ten times that on a busy one): it gets this
# many times the time limit, so a slow first call is not read as a hang.
FIRST_RUN_FACTOR = 3
DEFAULT_STOP_TIMEOUT = 5.0
QUOTE_LIMIT = 300


def quote(text: str | bytes, limit: int = QUOTE_LIMIT) -> str:
    """The offending output as a Python literal, cut to `limit` characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.rstrip("\n")
    return repr(text[:limit]) + (f" (cut at {limit} of {len(text)} characters)" if len(text) > limit else "")


@dataclass(frozen=True)
class Hello:
    """What a driver said about itself in its start reply, with its protocols' capability reasons filled in."""

    name: str
    library: str
    version: str
    language: str
    protocols: frozenset[str]
    capabilities: frozenset[str]
    code_path: str
    # Why each left-out capability cannot be expressed, one sentence each: the library's own reasons (optional
    # in the hello) and its protocols' reasons for the rest.
    capability_notes: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_json(cls, implementation: dict[str, Any]) -> Hello:
        """The hello's implementation as the harness keeps it, the protocols' reasons filled into capability_notes."""
        protocols, capabilities = frozenset(implementation["protocols"]), frozenset(implementation["capabilities"])
        notes = with_protocol_reasons(protocols, capabilities, implementation.get("capability_notes", {}))
        return cls(
            **{
                **implementation,
                "protocols": protocols,
                "capabilities": capabilities,
                "capability_notes": tuple(notes.items()),
            }
        )

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "library": self.library,
            "version": self.version,
            "protocols": sorted(self.protocols),
            "capabilities": sorted(self.capabilities),
            "code_path": self.code_path,
            "capability_notes": dict(self.capability_notes),
            "language": self.language,
        }


@dataclass(frozen=True)
class Stopped:
    """How a driver ended: exit status (None if it had to be killed) and any stdout it wrote unasked."""

    status: int | None
    stray_output: tuple[str, ...] = ()
    was_running: bool = True  # False: no driver ran when `stop` was due (it had crashed or was killed)

    @property
    def clean(self) -> bool:
        return self.was_running and self.status == 0 and not self.stray_output


_live: weakref.WeakSet[SubprocessAdapter] = weakref.WeakSet()


@atexit.register
def _stop_live_drivers() -> None:
    for adapter in list(_live):
        adapter.close()


class SubprocessAdapter:
    """An adapter whose implementation runs behind `command`, speaking the driver protocol."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        expected_name: str | None = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        stop_timeout: float = DEFAULT_STOP_TIMEOUT,
        on_hello: Callable[[Hello], None] | None = None,
        declared: Mapping[str, str] | None = None,
    ) -> None:
        self.command = list(command)
        self.on_hello = on_hello  # told every hello the driver gives (the registry records it)
        # What the manifest says of the implementation beside the driver's hello (its scope, CONTRACT.md 4.4).
        self.declared = dict(declared or {})
        self.cwd = cwd
        self.env = env
        self.expected_name = expected_name
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self._process: DriverProcess | None = None
        self._hello: Hello | None = None
        self._seq = 0
        self._warm = False  # has the running driver answered a run yet?
        self._cannot_restart: str | None = None
        _live.add(self)

    # -- the in-process adapter surface, from the hello ------------------------------------------

    @property
    def hello(self) -> Hello:
        return self._hello or self.start()

    @property
    def name(self) -> str:
        return self.hello.name

    @property
    def protocols(self) -> frozenset[str]:
        return self.hello.protocols

    @property
    def capabilities(self) -> frozenset[str]:
        return self.hello.capabilities

    @property
    def capability_notes(self) -> dict[str, str]:
        return dict(self.hello.capability_notes)

    @property
    def transport(self) -> str | None:
        """The wire the manifest says the implementation reads its protocol on (None: the protocol's own)."""
        return self.declared.get("transport")

    def describe(self) -> dict[str, Any]:
        return {**self.hello.describe(), **self.declared}

    @property
    def pid(self) -> int | None:
        """The running driver's process id; None before it starts and between a stop and a restart."""
        process = self._process
        return None if process is None else process.pid

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> Hello:
        """Start the driver and check its hello; DriverFailed quotes what went wrong."""
        if self._process is not None:
            assert self._hello is not None  # set together with the process it came from
            return self._hello
        process = DriverProcess(self.command, self.cwd, self.env)
        deadline = time.monotonic() + self.startup_timeout
        try:
            process.send(encode_line(start_request()), deadline)
            line = process.next_line(deadline)
        except TimeoutError:
            process.kill()
            raise DriverFailed(
                self.command, f"no reply to `start` within {self.startup_timeout:g} s{_stderr_note(process, wait=1.0)}"
            ) from None
        except BrokenPipeError:
            line = EOF
        if line is EOF:
            status = process.exit_status(wait=2.0)
            process.kill()
            raise DriverFailed(
                self.command, f"it {describe_status(status)} before answering `start`{_stderr_note(process, wait=1.0)}"
            )
        if isinstance(line, LineTooLong):
            process.kill()
            raise DriverFailed(self.command, f"it answered `start` with {line.describe()}")
        try:
            hello = self._check_hello(line)
        except DriverFailed:
            process.kill()
            raise
        self._process, self._hello, self._warm = process, hello, False
        if self.on_hello is not None:
            self.on_hello(hello)
        return hello

    def _check_hello(self, line: bytes) -> Hello:
        def failed(problem: str) -> DriverFailed:
            return DriverFailed(self.command, f"{problem}; it answered `start` with {quote(line)}")

        try:
            reply = json.loads(line)
        except ValueError:
            raise failed("its start reply is not a JSON line") from None
        except RecursionError:
            raise failed("its start reply is nested too deeply to read") from None
        if isinstance(reply, dict) and reply.get("version") != PROTOCOL_VERSION:
            raise failed(f"it speaks protocol version {reply.get('version')!r}; this harness speaks {PROTOCOL_VERSION}")
        problems = message_problems("start-reply", reply)
        if problems:
            raise failed("its start reply is invalid (" + "; ".join(problems[:3]) + ")")
        hello = Hello.from_json(reply["implementation"])
        if self.expected_name is not None and hello.name != self.expected_name:
            raise failed(f"it calls itself {hello.name!r}, but the manifest names it {self.expected_name!r}")
        if self._hello is not None and hello != self._hello:
            raise failed(f"after a restart it describes itself differently than before ({self._hello.describe()})")
        return hello

    def stop(self) -> Stopped:
        """Send `stop` and wait for a clean exit; kill the driver if it does not come."""
        process, self._process = self._process, None
        if process is None:
            return Stopped(None, was_running=False)
        stray = process.pending_lines()
        try:
            process.send(encode_line(stop_request()), time.monotonic() + self.stop_timeout)
        except (BrokenPipeError, TimeoutError):
            pass  # it is gone or stuck; the exit status tells which
        process.close_stdin()
        status = process.exit_status(wait=self.stop_timeout)
        if status is None:
            process.kill()
        stray += process.pending_lines(wait=1.0)  # whatever it wrote on the way out; EOF ends the wait
        process.kill()  # reaps, and ends anything it left running in its session
        return Stopped(status, tuple(line.decode("utf-8", errors="replace") for line in stray))

    def close(self) -> None:
        self.stop()

    def __enter__(self) -> SubprocessAdapter:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _discard(self) -> None:
        """Kill a driver that failed; the next request starts a fresh one."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()

    # -- one request -----------------------------------------------------------------------------

    def run_request(self, request: AssemblyRequest, timeout: float) -> Outcome:
        """Run one request through the driver; never raises."""
        if self._process is None:
            if self._cannot_restart is not None:
                return Crashed(self._cannot_restart)
            try:
                self.start()
            except DriverFailed as exc:
                # Restarting an import-time failure for every fixture would only repeat it, slowly.
                self._cannot_restart = f"the driver could not be (re)started: {exc.message}"
                return Crashed(self._cannot_restart)
        process = self._process
        assert process is not None  # running, or started just above
        self._seq += 1
        seq = self._seq
        limit = timeout if self._warm else timeout * FIRST_RUN_FACTOR
        deadline = time.monotonic() + limit
        try:
            process.send(encode_line(run_request(seq, request)), deadline)
            line = process.next_line(deadline)
        except TimeoutError:
            self._discard()
            return TimedOut(limit)
        except BrokenPipeError:
            line = EOF
        self._warm = True
        if line is EOF:
            status = process.exit_status(wait=2.0)
            self._discard()
            return Crashed(
                f"the driver {describe_status(status)} while running {request.fixture_id}"
                f"{_stderr_note(process, wait=1.0)}"
            )
        if isinstance(line, LineTooLong):
            self._discard()
            return BrokeProtocol(f"it answered run #{seq} ({request.fixture_id}) with {line.describe()}")
        outcome = _outcome_of(line, seq)
        if isinstance(outcome, BrokeProtocol):
            self._discard()
        return outcome


def _outcome_of(line: bytes, seq: int) -> Outcome:
    try:
        reply = json.loads(line)
    except ValueError:
        return BrokeProtocol(f"expected a JSON reply to run #{seq}, got {quote(line)}")
    except RecursionError:  # the decoder's own limit, near Python's recursion limit; the judge's is lower
        return BrokeProtocol(f"its reply to run #{seq} is nested too deeply to read: {quote(line)}")
    try:
        reply = plain_json(reply)  # NaN and nesting the schema checks would recurse into: before they run
    except NotPlainJson as exc:
        return BrokeProtocol(f"its reply to run #{seq} is not plain JSON ({exc}): {quote(line)}")
    problems = message_problems("run-reply", reply)
    if problems:
        return BrokeProtocol(f"invalid reply to run #{seq} ({'; '.join(problems[:3])}): {quote(line)}")
    if reply["seq"] != seq:
        return BrokeProtocol(f"reply carries seq {reply['seq']}, expected {seq}: {quote(line)}")
    if "result" in reply:
        return Returned(reply["result"])
    if "errored" in reply:
        return Raised(reply["errored"]["message"], reply["errored"].get("traceback", ""))
    return Skipped(reply["skipped"]["reason"])


def _stderr_note(process: DriverProcess, wait: float = 0.0) -> str:
    tail = process.stderr.text(wait=wait).strip()
    return f"; stderr ends with:\n{tail}" if tail else "; it wrote nothing to stderr"
