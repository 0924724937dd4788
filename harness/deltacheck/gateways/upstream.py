"""The upstream a gateway under test talks to: the loopback replay server, with a route to "the
fixture under test" and a record of what the gateway asked for.

A gateway is configured with one upstream base URL, `http://127.0.0.1:PORT/current/v1`; whatever it
requests under it is answered with the fixture the harness is running now. Every fixture also
keeps its own base URL, `http://127.0.0.1:PORT/<FIXTURE-ID>/v1`, as `deltacheck serve` gives it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http.server import ThreadingHTTPServer

from deltacheck.model import Fixture
from deltacheck.running.serve import LOOPBACK, make_handler

CURRENT = "current"


@dataclass(frozen=True)
class UpstreamRequest:
    path: str
    body: bytes


class _Routes(Mapping):
    """Fixture ids, plus `current`: the fixture under test."""

    def __init__(self, fixtures: list[Fixture]) -> None:
        self.by_id = {f.id: f for f in fixtures}
        self.current: Fixture | None = None

    def __getitem__(self, key: str) -> Fixture:
        if key == CURRENT and self.current is not None:
            return self.current
        return self.by_id[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_id)

    def __len__(self) -> int:
        return len(self.by_id)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # a gateway that hangs up mid-stream is the gateway's business, judged downstream: no traceback


class Upstream:
    """A running replay server on 127.0.0.1; use as a context manager, or call `stop()`."""

    def __init__(self, fixtures: list[Fixture]) -> None:
        self.routes = _Routes(fixtures)
        self.requests: list[UpstreamRequest] = []
        lock = threading.Lock()
        record = self.requests.append
        base = make_handler(self.routes)  # type: ignore[arg-type]  # any mapping of id -> fixture

        class RecordingHandler(base):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with lock:
                    record(UpstreamRequest(self.path, body))
                self._replay()

            do_GET = do_POST  # noqa: N815

            def log_message(self, format: str, *args) -> None:
                pass

        self.server = _QuietServer((LOOPBACK, 0), RecordingHandler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="deltacheck-gateway-upstream", daemon=True).start()

    @property
    def root(self) -> str:
        return f"http://{LOOPBACK}:{self.server.server_port}"  # the address it was bound to, and the port it got

    @property
    def base_url(self) -> str:
        """The base URL a gateway is given: it serves the fixture under test."""
        return f"{self.root}/{CURRENT}/v1"

    def serve(self, fixture: Fixture) -> None:
        """From now on, `current` is this fixture; the request record starts afresh."""
        self.routes.current = fixture
        self.requests.clear()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Upstream:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
