"""Serve a fixture's SSE bytes through an SDK's own HTTP client, and tell how far the SDK has read.

Shared by every Python adapter that replays through a mock transport or respx (stdlib only, so it imports in
every adapter's own environment).

The body is `request.sse`, byte for byte, handed to the client one SSE event at a time (as a server
flushes them), or in the pieces a byte-level fixture cuts it into (`sse_cuts`, which may fall inside
a multi-byte character), so the SDK's own SSE parser runs over exactly the fixture's bytes. Counting the
pieces the client has pulled tells the index of the last chunk the library could have consumed
when it emitted something (CONTRACT.md 3.4 `after_chunk`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}
BASE_URL = "http://deltacheck.invalid/v1"  # never resolved: the mock transport answers every request
API_KEY = "sk-deltacheck-dummy"


class Replay:
    """One fixture's stream as an HTTP response body, with a count of the events handed out."""

    def __init__(self, request: Any) -> None:
        self.body: bytes = request.sse
        self.pieces = request.sse_pieces()  # one per event, or where a byte-level fixture cuts the body
        self.chunk_count = len(request.chunks)
        terminator = 1 if request.protocol == "openai-chat" and request.stream_end != "eof" else 0
        # Only when every chunk is one SSE event can a piece count name a chunk.
        self.aligned = len(self.pieces) == self.chunk_count + terminator
        self.pulled = 0
        self.requests = 0

    def iterate(self) -> Iterator[bytes]:
        for piece in self.pieces:
            self.pulled += 1
            yield piece

    async def aiterate(self) -> AsyncIterator[bytes]:
        for piece in self.iterate():
            yield piece

    def handler(self, response_class: type, asynchronous: bool = False) -> Callable[[Any], Any]:
        """A mock-transport handler (httpx or httpx2) that answers one request with the stream.

        A second request is the library retrying or re-asking: that is not a stream to replay.
        """
        def answer(_request: Any) -> Any:
            self.requests += 1
            if self.requests > 1:
                raise RuntimeError("the library sent a second request; only one stream is replayed")
            body = self.aiterate() if asynchronous else self.iterate()
            return response_class(200, headers=SSE_HEADERS, content=body)

        return answer

    def after_chunk(self) -> int | None:
        if not self.aligned or self.pulled == 0 or self.chunk_count == 0:
            return None
        return min(self.pulled, self.chunk_count) - 1
