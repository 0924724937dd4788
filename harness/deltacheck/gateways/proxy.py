"""Proxy mode: score a gateway from outside.

The harness starts the gateway with its upstream pointed at the loopback replay
(deltacheck/gateways/upstream.py), sends it one client request per fixture on its endpoint for the
downstream protocol, captures the bytes it streams back, and hands them to the judge
(deltacheck/gateways/judge.py). Only 127.0.0.1 is ever used. The gateway process runs in a session of
its own and is always stopped at the end (SIGTERM, then SIGKILL to its whole process group), also
when the run is interrupted.

What a client of each protocol sends is its package's `client.py`: `headers(api_key) -> dict` (its
credentials) and `streaming_request(model, prompt, tool_names) -> dict` (the request body).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltacheck.corpus.loader import Corpus
from deltacheck.gateways.judge import Capture, judge_gateway
from deltacheck.gateways.text import plain_line
from deltacheck.gateways.translation import shared_capabilities
from deltacheck.gateways.upstream import Upstream
from deltacheck.judge.verdict import Verdict
from deltacheck.model import Fixture
from deltacheck.protocols import all_protocols, protocol
from deltacheck.running.runner import RunRecord

LOOPBACK = "127.0.0.1"
API_ROOT = "/v1"  # where a gateway serves each protocol's endpoint, unless told otherwise
DEFAULT_MODEL = "deltacheck"
DEFAULT_API_KEY = "sk-deltacheck"
MAX_BODY = 16 * 1024 * 1024  # a flooding gateway is cut off here
STOP_GRACE = 5.0
MAX_RESTARTS = 3
LOG_TAIL = 600
PLACEHOLDERS = ("{port}", "{upstream}", "{upstream_root}", "{config_dir}", "{env}")


class GatewayFailed(Exception):
    """The gateway process could not be started, or stopped answering; the message is one line."""


@dataclass(frozen=True)
class GatewaySpec:
    """One gateway route: how to start the process, and which translation it is scored on."""

    name: str
    command: tuple[str, ...]
    upstream: str
    downstream: str
    model: str = DEFAULT_MODEL
    path: str | None = None  # the downstream endpoint; default: default_path(downstream)
    ready_path: str | None = None  # GET it until it answers; default: until the port accepts
    api_key: str = DEFAULT_API_KEY
    env: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # name -> template, written to {config_dir}
    cwd: str | None = None
    env_dir: str = ""  # {env}: the gateway's own environment, for bundled gateways
    library: str = ""
    version: str = ""
    code_path: str = ""
    # What it promises to read (CONTRACT.md 4.4): a gateway forwards whatever its upstream servers send.
    scope: str = "multi-provider"
    scope_note: str = "a gateway reads the streams of every upstream server it routes to"

    @property
    def endpoint(self) -> str:
        return self.path or default_path(self.downstream)

    def describe(self) -> dict[str, Any]:
        """The results header's `adapter` entry: a gateway route reads like an implementation."""
        capabilities, notes = shared_capabilities(self.upstream, self.downstream)
        return {
            "name": self.name,
            "library": self.library or self.command[0],
            "version": self.version or "",
            "protocols": [self.upstream],
            "capabilities": sorted(capabilities),
            "capability_notes": notes,
            "code_path": self.code_path
            or f"gateway `{' '.join(self.command)}`, {self.upstream} upstream, "
            f"{self.downstream} downstream on POST {self.endpoint}",
            "gateway": {"upstream": self.upstream, "downstream": self.downstream, "endpoint": self.endpoint},
            "scope": self.scope,
            "scope_note": self.scope_note,
        }


def default_path(name: str) -> str:
    """Where a gateway serves protocol `name` to its clients unless told otherwise: the endpoint under /v1."""
    return API_ROOT + protocol(name).endpoint


def fill(text: str, values: dict[str, str]) -> str:
    """Replace the known placeholders only: a command may hold braces of its own (JSON)."""
    for placeholder in PLACEHOLDERS:
        if placeholder in values:
            text = text.replace(placeholder, values[placeholder])
    return text


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


class GatewayProcess:
    def __init__(self, spec: GatewaySpec, upstream: Upstream, startup_timeout: float) -> None:
        self.spec = spec
        self.upstream = upstream
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.workdir: Path | None = None
        self.log_path: Path | None = None

    def start(self) -> None:
        """Start and wait until it listens; GatewayFailed says why it did not."""
        self.stop()
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="deltacheck-gateway-"))
        values = {
            "{port}": str(self.port),
            "{upstream}": self.upstream.base_url,
            "{upstream_root}": self.upstream.root,
            "{config_dir}": str(self.workdir),
            "{env}": self.spec.env_dir,
        }
        for name, template in self.spec.files.items():
            target = (self.workdir / name).resolve()
            if self.workdir.resolve() not in target.parents:
                raise GatewayFailed(f"configuration file {name!r} would be written outside its folder")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(fill(template, values), encoding="utf-8")
            except OSError as exc:
                raise GatewayFailed(f"cannot write configuration file {name!r}: {exc.strerror or exc}") from None
        command = [fill(part, values) for part in self.spec.command]
        env = {
            **os.environ,
            **{k: fill(v, values) for k, v in self.spec.env.items()},
            "DELTACHECK_GATEWAY_PORT": str(self.port),
            "DELTACHECK_UPSTREAM_BASE_URL": self.upstream.base_url,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
        for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            env.pop(variable, None)  # the upstream is on loopback; nothing may go through a proxy
        self.log_path = self.workdir / "gateway.log"
        with self.log_path.open("wb") as log:
            try:
                self.process = subprocess.Popen(
                    command,
                    cwd=fill(self.spec.cwd, values) if self.spec.cwd else None,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as exc:
                raise GatewayFailed(f"cannot start `{' '.join(self.spec.command)}`: {exc.strerror or exc}") from None
        self._wait_until_listening()

    def _wait_until_listening(self) -> None:
        assert self.process is not None  # start() has just started it
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            status = self.process.poll()
            if status is not None:
                raise GatewayFailed(
                    f"the gateway exited with status {status} before listening on its {LOOPBACK} "
                    f"port{self._tail_note()}"
                )
            if self._answers():
                return
            time.sleep(0.1)
        raise GatewayFailed(
            f"the gateway did not listen on its {LOOPBACK} port within {self.startup_timeout:g} s "
            f"(--startup-timeout){self._tail_note()}"
        )

    def _answers(self) -> bool:
        try:
            with socket.create_connection((LOOPBACK, self.port), timeout=0.5):
                pass
        except OSError:
            return False
        if self.spec.ready_path is None:
            return True
        try:
            connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=2)
            connection.request("GET", self.spec.ready_path)
            ready = connection.getresponse().status < 500
            connection.close()
            return ready
        except (OSError, http.client.HTTPException):
            return False

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exit_note(self) -> str:
        status = self.process.poll() if self.process else None
        return f"the gateway exited with status {status}{self._tail_note()}"

    def log_tail(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        data = self.log_path.read_bytes()[-LOG_TAIL:]
        return data.decode("utf-8", errors="replace").strip()

    def _tail_note(self) -> str:
        tail = " | ".join(plain_line(line) for line in self.log_tail().splitlines()[-3:] if plain_line(line))
        return f"; its last output: {tail}" if tail else ""

    def stop(self) -> None:
        """SIGTERM to its process group, SIGKILL after a grace period; idempotent."""
        process, self.process = self.process, None
        if process is not None:
            _stop_group(process)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
            self.log_path = None


def _stop_group(process: subprocess.Popen) -> None:
    try:
        group = os.getpgid(process.pid)
    except ProcessLookupError:
        group = None
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            if group is not None:
                os.killpg(group, sig)
            elif process.poll() is None:
                process.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=STOP_GRACE)
            if sig == signal.SIGTERM and group is not None:
                continue  # the leader is gone; SIGKILL whatever of its group is left
            return
        except subprocess.TimeoutExpired:
            continue


# -- the client side -----------------------------------------------------------------------------


def tool_names(fixture: Fixture) -> list[str]:
    """The function names the fixture's model calls: a client declares the tools it offers."""
    names: list[str] = []
    results = ([fixture.expected] if fixture.expected else []) + [a["result"] for a in fixture.acceptable]
    for result in results:
        for choice in result.get("choices", []):
            for part in choice.get("parts", []):
                name = part.get("name") if part.get("type") == "tool_call" and part.get("kind") == "function" else None
                if isinstance(name, str) and name and name not in names:
                    names.append(name)
    return names


def client_request(spec: GatewaySpec, fixture: Fixture) -> dict[str, Any]:
    """The downstream request: a minimal streaming request of the downstream protocol."""
    client = protocol(spec.downstream).part("client")
    body: dict[str, Any] = client.streaming_request(spec.model, f"deltacheck fixture {fixture.id}", tool_names(fixture))
    return body


def client_headers(api_key: str) -> dict[str, str]:
    """The headers of the request: the credentials of every protocol's client, so a gateway finds the ones
    it looks for whichever protocol it serves."""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    for each in all_protocols():
        headers.update(each.part("client").headers(api_key))
    return headers


class _TimedOut(Exception):
    pass


def exchange(spec: GatewaySpec, port: int, body: dict[str, Any], timeout: float) -> Capture:
    """POST the request and read the whole answer within `timeout` seconds; the body exactly as sent."""
    payload = json.dumps(body).encode("utf-8")
    headers = client_headers(spec.api_key)
    deadline = time.monotonic() + timeout
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
    try:
        connection.request("POST", spec.endpoint, body=payload, headers=headers)
        sock = connection.sock  # the connection forgets it when the answer says `Connection: close`
        response = connection.getresponse()
        data = bytearray()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _TimedOut()
            sock.settimeout(remaining)
            piece = response.read1(65536)
            if not piece:
                break
            data += piece
            if len(data) > MAX_BODY:
                return Capture(
                    response.status, response.getheader("content-type") or "", bytes(data[:MAX_BODY]), flooded=True
                )
        return Capture(response.status, response.getheader("content-type") or "", bytes(data))
    except (TimeoutError, _TimedOut):
        return Capture(timed_out=True)
    except (OSError, http.client.HTTPException, ValueError) as exc:  # ValueError: http.client on a garbled answer
        return Capture(failure=f"{type(exc).__name__}: {plain_line(str(exc))}")
    finally:
        connection.close()


# -- the run -------------------------------------------------------------------------------------


class GatewaySession:
    """One gateway process and its upstream, shared by the routes of one gateway (they differ only in the
    client request); always stopped on leaving the `with` block."""

    def __init__(self, spec: GatewaySpec, corpus: Corpus, startup_timeout: float) -> None:
        self.upstream = Upstream(corpus.fixtures)
        self.process = GatewayProcess(spec, self.upstream, startup_timeout)

    def __enter__(self) -> GatewaySession:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.process.stop()
        finally:
            self.upstream.stop()


def run_gateway(
    spec: GatewaySpec,
    corpus: Corpus,
    fixtures: Iterable[Fixture],
    timeout: float,
    max_timeouts: int,
    startup_timeout: float,
    notes: list[str] | None = None,
    session: GatewaySession | None = None,
) -> Iterator[RunRecord]:
    """One record per fixture, in order; the gateway's own failures are verdicts.

    The gateway is started when first needed and stopped at the end, or, in a `session` shared by
    several routes, when the session ends. `notes` collects the overall messages (the gateway did
    not start, was restarted, ...).
    """
    notes = notes if notes is not None else []
    fixtures = list(fixtures)
    if session is not None:
        yield from _run(spec, corpus, fixtures, session.process, session.upstream, timeout, max_timeouts, notes)
        return
    with GatewaySession(spec, corpus, startup_timeout) as own:
        yield from _run(spec, corpus, fixtures, own.process, own.upstream, timeout, max_timeouts, notes)


def _run(
    spec: GatewaySpec,
    corpus: Corpus,
    fixtures: list[Fixture],
    process: GatewayProcess,
    upstream: Upstream,
    timeout: float,
    max_timeouts: int,
    notes: list[str],
) -> Iterator[RunRecord]:
    restarts = 0
    timeouts_in_a_row = 0
    down: str | None = None  # why the gateway cannot be asked any more
    for position, fixture in enumerate(fixtures):
        if down is None and not process.alive():
            if position and restarts >= MAX_RESTARTS:
                down = f"not run: the gateway died {restarts + 1} times; the run stopped restarting it"
            else:
                try:
                    process.start()
                    if position:
                        restarts += 1
                        notes.append(f"{spec.name}: the gateway was restarted before {fixture.id}")
                except GatewayFailed as exc:
                    down = f"the gateway did not start: {exc}"
                    notes.append(f"{spec.name}: {down}")
        if down is None and max_timeouts and timeouts_in_a_row >= max_timeouts:
            down = (
                f"not run: the gateway timed out on {timeouts_in_a_row} fixtures in a row, and the run "
                "stopped asking it (--max-timeouts)"
            )
            notes.append(f"{spec.name}: {down}")
        if down is not None:
            kind = "skip" if down.startswith("not run") else "error"
            yield RunRecord.of(spec.name, Verdict(fixture.id, fixture.protocol, kind, down), 0.0, fixture)
            continue
        upstream.serve(fixture)
        started = time.perf_counter()
        capture = exchange(spec, process.port, client_request(spec, fixture), timeout)
        elapsed = (time.perf_counter() - started) * 1000
        if capture.failure and not process.alive():
            capture = Capture(crashed=process.exit_note())
        capture.upstream_paths = [r.path for r in upstream.requests]
        verdict = judge_gateway(fixture, spec.upstream, spec.downstream, capture, corpus, timeout)
        timeouts_in_a_row = timeouts_in_a_row + 1 if verdict.verdict == "timeout" else 0
        yield RunRecord.of(spec.name, verdict, elapsed, fixture)
