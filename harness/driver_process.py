"""One running driver process: its pipes, a reader thread per output stream, and how to end it.

This module knows about processes and bytes, not about the protocol: `deltacheck.subprocess_adapter`
decides what the lines mean. Every wait takes a deadline, so a driver that stops reading or writing
can never hang the harness.
"""

from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import threading
import time
from typing import IO, Mapping, Sequence

from deltacheck.errors import DriverFailed

EOF = None  # what `next_line` returns once the driver closed its stdout
STDERR_LIMIT = 64 * 1024


class StderrTail:
    """The last STDERR_LIMIT bytes a process wrote to stderr, drained by a thread so the pipe never fills."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(pipe,), name="driver-stderr", daemon=True)
        self._thread.start()

    def _drain(self, pipe: IO[bytes]) -> None:
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


def _read_lines(pipe: IO[bytes], lines: queue.SimpleQueue) -> None:
    # Takes the pipe and the queue, not the DriverProcess, so an abandoned process object can be collected.
    with pipe:
        for line in iter(pipe.readline, b""):
            lines.put(line)
    lines.put(EOF)


class DriverProcess:
    def __init__(self, command: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.command = list(command)
        try:
            # A session of its own, so a timeout kills the driver and anything it spawned (npm, node).
            self._popen = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, cwd=cwd, env=None if env is None else dict(env),
                                           start_new_session=True)
        except OSError as exc:
            raise DriverFailed(self.command, f"cannot start it: {exc}") from None
        self._stdin_fd = self._popen.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)  # writes wait in select() against the deadline instead
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        self._stdout_reader = threading.Thread(target=_read_lines, args=(self._popen.stdout, self._lines),
                                               name="driver-stdout", daemon=True)
        self._stdout_reader.start()
        self.stderr = StderrTail(self._popen.stderr)
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
                    view = view[os.write(self._stdin_fd, view):]
                except BlockingIOError:
                    continue

    def next_line(self, deadline: float) -> bytes | None:
        """The next stdout line, or EOF; TimeoutError past the deadline."""
        if self._stdout_closed:
            return EOF
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError from None
        if line is EOF:
            self._stdout_closed = True
        return line

    def pending_lines(self, wait: float = 0.0) -> list[bytes]:
        """Lines already written but not asked for (none expected from a well-behaved driver)."""
        out = []
        deadline = time.monotonic() + wait
        while True:
            try:
                line = self.next_line(deadline)
            except TimeoutError:
                return out
            if line is EOF:
                return out
            out.append(line)

    def exit_status(self, wait: float) -> int | None:
        """The exit status, waiting up to `wait` seconds; None while it still runs."""
        try:
            return self._popen.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    def close_stdin(self) -> None:
        try:
            self._popen.stdin.close()
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
        self._stdout_reader.join(1.0)


def describe_status(status: int | None) -> str:
    if status is None:
        return "closed its stdout but kept running"
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"
