"""adapters/loopback.py: the server the boto3-based adapters read a Bedrock fixture from.

It must hand a client exactly the fixture's body, in exactly the reads the harness gives every other adapter
(`AssemblyRequest.sse_pieces()`), although it cuts them without the protocol registry.
"""

from __future__ import annotations

import http.client
import importlib.util
import json

import pytest

from deltacheck.corpus.loader import load_corpus
from deltacheck.locations import ADAPTERS_DIR

# Loaded from its file: `deltacheck.adapters` is the installed name of adapters/, which a checkout's static tools
# do not map (the module imports nothing of its own folder, so it loads alone).
_spec = importlib.util.spec_from_file_location("deltacheck_loopback", ADAPTERS_DIR / "loopback.py")
assert _spec is not None and _spec.loader is not None
loopback_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(loopback_module)
EVENT_STREAM, LoopbackReplay, pieces = loopback_module.EVENT_STREAM, loopback_module.LoopbackReplay, loopback_module.pieces

BEDROCK = [f for f in load_corpus(check_reference=False).fixtures if f.protocol == "bedrock-converse"]


@pytest.fixture(scope="module")
def loopback():
    server = LoopbackReplay()
    yield server
    server.close()


def _post(url: str) -> http.client.HTTPResponse:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("POST", "/model/m/converse-stream", body=b"{}")
    return connection.getresponse()


@pytest.mark.parametrize("fixture", BEDROCK, ids=[f.id for f in BEDROCK])
def test_the_pieces_are_the_reads_every_adapter_gets(fixture):
    request = fixture.request()
    assert pieces(request.sse, request.sse_cuts) == request.sse_pieces()


def test_a_byte_level_fixture_is_served_whole_one_http_chunk_per_cut(loopback):
    fixture = next(f for f in BEDROCK if f.sse_cuts)
    request = fixture.request()
    served = loopback.serve(request)
    response = _post(loopback.url)
    assert response.status == 200 and response.getheader("content-type") == EVENT_STREAM
    reads = []
    while chunk := response.read1():
        reads.append(chunk)
    assert b"".join(reads) == request.sse and served.requests == 1


def test_a_second_request_for_one_fixture_is_refused_and_counted(loopback):
    served = loopback.serve(BEDROCK[0].request())
    _post(loopback.url).read()
    second = _post(loopback.url)
    assert second.status == 500 and "one stream per fixture" in json.loads(second.read())["message"]
    assert served.requests == 2
