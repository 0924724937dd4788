"""One running driver process: its pipes, a reader thread per output stream, and how to end it.

This module knows about processes and bytes, not about the protocol: `deltacheck.driver.subprocess_adapter`
decides what the lines mean. Every wait takes a deadline, so a driver that stops reading or writing
can never hang the harness.
"""

from __future__ import annotations

import io
import os
import queue
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO

from deltacheck.errors import DriverFailed

EOF = None  # what `next_line` returns once the driver closed its stdout
STDERR_LIMIT = 64 * 1024
# One protocol line (a hello or a reply) may be this long; a longer one is a broken driver, never
# read whole. At most PENDING_LINES read lines wait in memory: a driver flooding stdout blocks on
# its own pipe instead of filling the harness's memory.
MAX_LINE_BYTES = 16 * 1024 * 1024
PENDING_LINES = 4


class LineTooLong:
    """What `next_line` returns for a line over MAX_LINE_BYTES; the driver stops being read after it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def describe(self) -> str:
        return f"a line of more than {self.limit} bytes (MAX_LINE_BYTES) without a newline"


class StderrTail:
    """The last STDERR_LIMIT bytes a process wrote to stderr, drained by a thread so the pipe never fills."""

    def __init__(self, pipe: io.BufferedReader) -> None:
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(pipe,), name="driver-stderr", daemon=True)
        self._thread.start()

    def _drain(self, pipe: io.BufferedReader) -> None:
        with pipe:
            for block in iter(lambda: pipe.read1(65536), b""):
                with self._lock:
                    self._tail += block
                    del self._tail[:-STDERR_LIMIT]

    def text(self, chars: int = 1500, wait: float = 0.0) -> str:
        """The last `chars` characters; `wait` lets a dying process finish writing first."""
        self._thread.join(wait)
        with self._lock:
            return self._tail.decode("utf-8", errors="replace")[-chars:]


def _read_lines(pipe: IO[bytes], lines: queue.Queue, limit: int) -> None:
    # Takes the pipe and the queue, not the DriverProcess, so an abandoned process object can be collected.
    with pipe:
        for line in iter(lambda: pipe.readline(limit + 1), b""):
            if len(line) > limit:
                lines.put(LineTooLong(limit))  # and read no further: whoever gets this discards the driver
                return
            lines.put(line)
    lines.put(EOF)


class DriverProcess:
    def __init__(self, command: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.command = list(command)
        try:
            # A session of its own, so a timeout kills the driver and anything it spawned (npm, node).
            self._popen = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=None if env is None else dict(env),
                start_new_session=True,
            )
        except OSError as exc:
            raise DriverFailed(self.command, f"cannot start it: {exc}") from None
        # All three are pipes, opened in binary mode with the default buffering.
        stdin, stdout, stderr = self._popen.stdin, self._popen.stdout, self._popen.stderr
        assert stdin is not None and stdout is not None and isinstance(stderr, io.BufferedReader)
        self._stdin = stdin
        self._stdin_fd = stdin.fileno()
        os.set_blocking(self._stdin_fd, False)  # writes wait in select() against the deadline instead
        self._lines: queue.Queue = queue.Queue(maxsize=PENDING_LINES)
        self._stdout_reader = threading.Thread(
            target=_read_lines, args=(stdout, self._lines, MAX_LINE_BYTES), name="driver-stdout", daemon=True
        )
        self._stdout_reader.start()
        self.stderr = StderrTail(stderr)
        self._stdout_closed = False

    @property
    def pid(self) -> int:
        return self._popen.pid

    def send(self, data: bytes, deadline: float) -> None:
        """Write all of `data`; BrokenPipeError when the driver is gone, TimeoutError past the deadline."""
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            _, writable, _ = select.select([], [self._stdin_fd], [], remaining)
            if writable:
                try:
                    view = view[os.write(self._stdin_fd, view) :]
                except BlockingIOError:
                    continue

    def next_line(self, deadline: float) -> bytes | LineTooLong | None:
        """The next stdout line, EOF, or LineTooLong (after which nothing more is read); TimeoutError past the deadline."""
        if self._stdout_closed:
            return EOF
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError from None
        if line is EOF or isinstance(line, LineTooLong):
            self._stdout_closed = True
        return line

    def pending_lines(self, wait: float = 0.0) -> list[bytes]:
        """Lines already written but not asked for (none expected from a well-behaved driver)."""
        out: list[bytes] = []
        deadline = time.monotonic() + wait
        while True:
            try:
                line = self.next_line(deadline)
            except TimeoutError:
                return out
            if line is EOF:
                return out
            out.append(f"<{line.describe()}>".encode() if isinstance(line, LineTooLong) else line)

    def exit_status(self, wait: float) -> int | None:
        """The exit status, waiting up to `wait` seconds; None while it still runs."""
        try:
            return self._popen.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    def close_stdin(self) -> None:
        try:
            self._stdin.close()
        except OSError:
            pass  # already gone: the driver died with unread input

    def kill(self) -> None:
        """SIGKILL the driver's whole session and reap it."""
        try:
            os.killpg(self._popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # already exited
        self._popen.wait()
        self.close_stdin()
        deadline = time.monotonic() + 1.0
        while self._stdout_reader.is_alive() and time.monotonic() < deadline:
            try:  # a reader waiting for room in the full queue must get it, or it never sees EOF
                self._lines.get(timeout=0.05)
            except queue.Empty:
                pass


def describe_status(status: int | None) -> str:
    if status is None:
        return "closed its stdout but kept running"
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"
