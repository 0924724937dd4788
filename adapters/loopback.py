"""Serve a fixture's event-stream body on a loopback port, for SDKs that bring their own HTTP stack (boto3).

botocore has no mock transport to hand a body to: its client sends the request through urllib3 to the
endpoint it is given. So the adapter points the library's own AWS client at `LoopbackReplay.url`
(`endpoint_url`, dummy credentials, SigV4 signing left on: the server ignores the signature) and every
request there answers with the current fixture's body, byte for byte (`application/vnd.amazon.eventstream`),
as HTTP/1.1 chunked transfer encoding with one HTTP chunk per piece: one per event-stream message, or where a
byte-level fixture cuts the body (`sse_cuts`), as `AssemblyRequest.sse_pieces()` cuts it. urllib3 hands a
chunked body to botocore's event-stream reader one HTTP chunk at a time, so the reader gets exactly those
reads, a cut inside a message's prelude included.

The pieces are cut here, from the body's own preludes, rather than through the harness's protocol registry,
so that a reproduction script (`deltacheck explain --repro python`), which inlines this module and has no
registry, serves the same reads. A fixture is replayed once: a second request (the library retrying) is
answered with HTTP 500 and `Served.requests` says so afterwards. The server binds to 127.0.0.1 only
(standard library only and no sibling imports, so it imports in every adapter's own environment).
"""

from __future__ import annotations

import json
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"
# The dummy credentials and region every AWS client of an adapter is given (never real, never sent anywhere).
AWS_ACCESS_KEY_ID = "test"
AWS_SECRET_ACCESS_KEY = "test"
AWS_REGION = "us-east-1"
EVENT_STREAM = "application/vnd.amazon.eventstream"
PRELUDE_AND_CHECKSUM = 16  # total length, headers length, prelude CRC, message CRC: the smallest message


def pieces(body: bytes, cuts: Any) -> list[bytes]:
    """The body as a server flushes it: at the cuts, else one piece per message (its prelude's total length)."""
    if cuts:
        edges = [0, *cuts, len(body)]
        return [body[start:end] for start, end in zip(edges, edges[1:])]
    out, start = [], 0
    while start < len(body):
        end = len(body)  # a cut-off last message ends with the body
        if len(body) - start >= 4:
            (total,) = struct.unpack("!I", body[start : start + 4])
            end = min(start + max(total, PRELUDE_AND_CHECKSUM), len(body))
        out.append(body[start:end])
        start = end
    return out


class Served:
    """One fixture's body as the server hands it out: its pieces, and how many requests asked for it."""

    def __init__(self, request: Any) -> None:
        self.pieces = pieces(request.sse, request.sse_cuts)
        self.requests = 0


class LoopbackReplay:
    """A loopback HTTP server answering every request with the current fixture's body."""

    def __init__(self) -> None:
        self.current: Served | None = None
        self._server = ThreadingHTTPServer((LOOPBACK, 0), _handler_for(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="deltacheck-loopback", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self._server.server_address[1]}"

    def serve(self, request: Any) -> Served:
        """Make `request` the fixture every request answers with, from now on."""
        self.current = Served(request)
        return self.current

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(owner: LoopbackReplay) -> type[BaseHTTPRequestHandler]:
    class ReplayHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)  # the request is irrelevant: the fixture decides the reply
            served = owner.current
            if served is None or served.requests >= 1:
                if served is not None:
                    served.requests += 1
                self._refuse()
                return
            served.requests += 1
            self.send_response(200)
            self.send_header("content-type", EVENT_STREAM)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for piece in served.pieces:  # one HTTP chunk per piece, flushed: one read each for the client
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the library stopped reading: nothing more to send

        do_GET = do_POST  # noqa: N815

        def _refuse(self) -> None:
            body = json.dumps({"message": "deltacheck replays one stream per fixture; this was another request"})
            self.send_response(500)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the driver's stdout is the protocol's, and a request log is noise on stderr

    return ReplayHandler


def botocore_stream_error(exc: BaseException) -> dict[str, Any] | None:
    """The canonical error of the event-stream error botocore raised (an exception or error message), found
    on `exc` or an exception it was raised from; None when botocore raised none. botocore is imported here,
    not at the top, so that this module stays standard library only for adapters that do not use it."""
    from botocore.exceptions import EventStreamError

    seen: BaseException | None = exc
    while seen is not None and not isinstance(seen, EventStreamError):
        seen = seen.__cause__
    if seen is None:
        return None
    error = seen.response.get("Error", {})
    return {"type": error.get("Code"), "message": error.get("Message")}
