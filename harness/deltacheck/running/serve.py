"""Wire replay: serve any fixture as real SSE (or its protocol's binary frames) on a loopback port.

An unmodified client in any language, pointed at `http://127.0.0.1:PORT/<FIXTURE-ID>/v1` as its
base URL, streams that fixture: every request under the prefix (POST /chat/completions,
/responses, /messages, ...) answers with the fixture's SSE bytes, flushed one event at a time.
The server binds to loopback only and never evaluates anything in a fixture.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from deltacheck.model import Fixture

LOOPBACK = "127.0.0.1"


def make_handler(
    fixtures: dict[str, Fixture], log: Callable[[str], None] | None = None
) -> type[BaseHTTPRequestHandler]:
    class ReplayHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)  # the request body is irrelevant: the fixture decides the reply
            self._replay()

        do_GET = do_POST  # noqa: N815

        def _replay(self) -> None:
            fixture_id = self.path.lstrip("/").split("/", 1)[0]
            fixture = fixtures.get(fixture_id)
            if fixture is None:
                body = f'{{"error": {{"message": "no fixture {fixture_id!r}; use /<FIXTURE-ID>/v1 as the base URL"}}}}'.encode()
                self.send_response(404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_response(200)
            self.send_header("content-type", fixture.request().content_type)
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for piece in fixture.request().sse_pieces():  # one chunked write per event, or per byte-level cut
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def log_message(self, format: str, *args) -> None:
            if log:
                log(f"{self.address_string()} {format % args}")

    return ReplayHandler


def start_server(
    fixtures: list[Fixture], port: int = 0, log: Callable[[str], None] | None = None
) -> ThreadingHTTPServer:
    """A running server on 127.0.0.1 (port 0: any free port); stop it with `.shutdown()`."""
    server = ThreadingHTTPServer((LOOPBACK, port), make_handler({f.id: f for f in fixtures}, log))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="deltacheck-replay", daemon=True).start()
    return server
