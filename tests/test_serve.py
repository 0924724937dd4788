"""Wire replay: a real HTTP client on loopback streams a fixture's exact SSE bytes."""

from __future__ import annotations

import httpx

from deltacheck.corpus.loader import load_corpus
from deltacheck.running.serve import start_server

CORPUS = load_corpus()


def test_a_client_pointed_at_the_fixture_base_url_streams_its_exact_bytes():
    fixture = CORPUS.by_id()["DC-8499"]
    server = start_server(CORPUS.fixtures)
    try:
        host, port = server.server_address[:2]
        with httpx.Client(base_url=f"http://{host}:{port}/{fixture.id}/v1") as client:
            with client.stream("POST", "/chat/completions", json={"model": "x", "stream": True}) as response:
                assert response.headers["content-type"] == "text/event-stream"
                pieces = list(response.iter_raw())
        assert b"".join(pieces) == fixture.request().sse
        missing = httpx.post(f"http://{host}:{port}/DC-NONE/v1/chat/completions")
        assert missing.status_code == 404 and "no fixture" in missing.text
    finally:
        server.shutdown()


def test_the_server_binds_to_loopback_only():
    server = start_server(CORPUS.fixtures[:1])
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.shutdown()
