"""The bedrock-invoke transport: Anthropic Messages events inside Bedrock InvokeModelWithResponseStream messages.

botocore is the oracle, as for the bedrock-converse codec (tests/test_eventstream.py): its `EventStreamBuffer` and
its parser with the bedrock-runtime `ResponseStream` shape are what anthropic-python's Bedrock client reads the body
with (`anthropic.lib.bedrock._stream_decoder`). Every anthropic-messages fixture the transport carries must read back,
through botocore, as its chunks, one `chunk` message each, in any reads; the fixtures it cannot carry (their own SSE
bytes) are n/a for an adapter that reads it, decided by the harness, never run.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from botocore.eventstream import EventStreamBuffer
from botocore.loaders import Loader
from botocore.model import ServiceModel
from botocore.parsers import EventStreamJSONParser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltacheck.adapter import Adapter
from deltacheck.corpus.loader import load_corpus
from deltacheck.driver.manifests import load_manifests
from deltacheck.driver.message_schemas import message_problems, schema
from deltacheck.driver.messages import request_from_wire, run_request
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from deltacheck.model import AssemblyRequest
from deltacheck.protocols import TRANSPORTS, UnknownTransport, transport, transport_for
from deltacheck.protocols import eventstream as es
from deltacheck.protocols.anthropic_messages.bedrock_invoke import InvokeStreamFraming
from deltacheck.reference import assemble
from deltacheck.running.runner import run_fixtures

REPO = Path(__file__).resolve().parent.parent
TRANSPORT = "bedrock-invoke"
PROTOCOL = "anthropic-messages"
CORPUS = load_corpus()
FIXTURES = [f for f in CORPUS.fixtures if f.protocol == PROTOCOL]
CARRIED = [f for f in FIXTURES if f.transport_problem(TRANSPORT) is None]
FRAMING = InvokeStreamFraming()


def response_stream_shape():
    """The bedrock-runtime `ResponseStream` shape from botocore's own service model, as the Anthropic SDK loads it."""
    return ServiceModel(Loader().load_service_model("bedrock-runtime", "service-2")).shape_for("ResponseStream")


SHAPE = response_stream_shape()


def botocore_events(pieces: list[bytes]) -> list[dict]:
    """Each message botocore reads from the body, parsed with the ResponseStream shape."""
    buffer, parser, parsed = EventStreamBuffer(), EventStreamJSONParser(), []
    for piece in pieces:
        buffer.add_data(piece)
        for message in buffer:
            parsed.append((message.headers, parser.parse(message.to_response_dict(), SHAPE)))
    return parsed


def anthropic_events(pieces: list[bytes]) -> list:
    """The Anthropic events botocore's reading gives: each `chunk`'s bytes as JSON."""
    return [json.loads(event["chunk"]["bytes"]) for _, event in botocore_events(pieces)]


# -- the rendering, read by botocore -----------------------------------------------------------------


def test_the_transport_carries_most_anthropic_fixtures():
    assert len(CARRIED) >= 25 and len(CARRIED) < len(FIXTURES)


@pytest.mark.parametrize("fixture", CARRIED, ids=lambda f: f.id)
def test_botocore_reads_every_carried_fixture_as_its_chunks_one_chunk_message_each(fixture):
    request = fixture.request(TRANSPORT)
    body = request.sse
    assert request.binary and request.content_type == "application/vnd.amazon.eventstream"
    read = botocore_events([body])
    assert [headers for headers, _ in read] == [
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    ] * len(fixture.chunks)
    assert [json.loads(event["chunk"]["bytes"]) for _, event in read] == list(fixture.chunks)
    # byte by byte, and as the replay hands it over (one message per read), the same events
    assert anthropic_events([body[i : i + 1] for i in range(len(body))]) == list(fixture.chunks)
    assert request.sse_pieces() == [body[a:b] for a, b in es.message_spans(body)]
    assert len(request.sse_pieces()) == len(fixture.chunks)


@pytest.mark.parametrize("fixture", CARRIED, ids=lambda f: f.id)
def test_every_carried_fixture_decodes_back_to_its_chunks(fixture):
    assert FRAMING.decode(fixture.request(TRANSPORT).sse) == (list(fixture.chunks), False)


def test_a_payload_is_the_events_json_as_an_sse_data_line_writes_it_in_base64():
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Grüße ✓"}}
    (message,) = es.MessageReader().feed(FRAMING.render([event]))
    assert json.loads(message.payload) == {
        "bytes": base64.b64encode('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Grüße ✓"}}'.encode()).decode()
    }


_text = st.text(max_size=30)
_events = st.one_of(
    st.builds(lambda: {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
    st.builds(lambda t: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}, _text),
    st.builds(lambda t: {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": t}}, _text),
    st.builds(lambda: {"type": "ping"}),
    st.builds(lambda m: {"type": "error", "error": {"type": "overloaded_error", "message": m}}, _text),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_events, min_size=1, max_size=8), st.lists(st.integers(min_value=1, max_value=3000), max_size=12))
def test_made_up_streams_cut_at_random_bytes_read_the_same_in_botocore(chunks, cuts):
    body = FRAMING.render(chunks)
    edges = [0, *sorted({c for c in cuts if 0 < c < len(body)}), len(body)]
    assert anthropic_events([body[a:b] for a, b in zip(edges, edges[1:])]) == chunks


# -- which fixtures it carries -----------------------------------------------------------------------


def test_exactly_the_fixtures_with_their_own_body_are_not_carried_and_say_why():
    not_carried = {f.id: f.transport_problem(TRANSPORT) for f in FIXTURES if f not in CARRIED}
    assert set(not_carried) == {f.id for f in FIXTURES if f.sse is not None}
    for fixture_id, problem in not_carried.items():
        assert "\n" not in problem and "InvokeModelWithResponseStream" in problem, fixture_id
        with pytest.raises(ValueError, match=fixture_id):
            CORPUS.by_id()[fixture_id].request(TRANSPORT)


def test_the_transport_applies_only_to_the_protocol_it_carries():
    other = next(f for f in CORPUS.fixtures if f.protocol == "openai-chat" and f.sse is not None)
    assert other.transport_problem(TRANSPORT) is None
    assert other.request(TRANSPORT) is other.request()  # its own framing, its own bytes
    assert transport_for("openai-chat", TRANSPORT) is None
    assert transport_for(PROTOCOL, TRANSPORT) is transport(TRANSPORT)[1]
    with pytest.raises(UnknownTransport, match="bedrock-invoke"):
        transport("bedrock-converse")


# -- an adapter that reads it, in process and through the driver protocol -----------------------------


class InvokeReference(Adapter):
    """The reference assembler over the events it reads from the body, as a client reads them: what the transport
    carries must be the whole stream."""

    name = "test-invoke-reference"
    library, version, code_path = "deltacheck", "0", "the reference over the bedrock-invoke body, read by botocore"
    protocols = frozenset({PROTOCOL})
    capabilities = frozenset({"finish_reason", "finish_detail", "usage", "error", "reasoning", "reasoning_signature",
                              "annotations", "server_tools", "flags"})
    transport = TRANSPORT

    def assemble(self, request: AssemblyRequest) -> dict:
        assert request.binary and request.transport == TRANSPORT
        return assemble(request.protocol, anthropic_events(request.sse_pieces())).result


def _verdicts(records) -> dict[str, tuple[str, str]]:
    return {r.verdict.fixture: (r.verdict.verdict, r.verdict.message) for r in records}


def test_an_adapter_that_reads_the_transport_passes_every_carried_fixture_and_the_rest_are_n_a_never_run():
    verdicts = _verdicts(run_fixtures(InvokeReference(), CORPUS, FIXTURES, timeout=10))
    assert {fid for fid, (v, _) in verdicts.items() if v == "n/a"} == {f.id for f in FIXTURES if f not in CARRIED}
    failing = {fid: v for fid, v in verdicts.items() if v[0] not in ("pass", "n/a")}
    assert failing == {}


def test_the_run_request_carries_the_transport_and_the_body_in_base64_and_reads_back_the_same():
    fixture = max(CARRIED, key=lambda f: len(f.chunks))
    request = fixture.request(TRANSPORT)
    message = run_request(3, request)
    assert message_problems("run-request", message) == []
    wire = message["request"]
    assert wire["transport"] == TRANSPORT and "sse" not in wire
    assert base64.b64decode(wire["body_base64"]) == request.sse
    back = request_from_wire(json.loads(json.dumps(wire)))
    assert back.sse == request.sse and back.binary and back.sse_pieces() == request.sse_pieces()


def test_the_generic_python_driver_serves_the_transport_s_bytes():
    driver = SubprocessAdapter(
        [sys.executable, "-m", "deltacheck.driver", f"{__name__}:InvokeReference"],
        cwd=str(REPO),
        startup_timeout=30,
        declared={"transport": TRANSPORT},
    )
    with driver:
        assert driver.transport == TRANSPORT and driver.describe()["transport"] == TRANSPORT
        picked = [f for f in FIXTURES if f not in CARRIED][:1] + CARRIED[:3]
        verdicts = _verdicts(run_fixtures(driver, CORPUS, picked, timeout=10))
    assert [v for v, _ in verdicts.values()] == ["n/a", "pass", "pass", "pass"]


# -- declaring it --------------------------------------------------------------------------------------


def test_schemas_name_every_transport():
    assert set(schema("run-request")["properties"]["request"]["properties"]["transport"]["enum"]) == set(TRANSPORTS)


def test_a_manifest_may_declare_a_known_transport_only(tmp_path):
    folder = tmp_path / "adapters" / "lib"
    folder.mkdir(parents=True)
    (folder / "requirements.txt").write_text("lib==1\n")
    entry = {"entry": "x:Y", "requirements": "requirements.txt", "language": "python", "scope": "provider", "scope_note": "its own"}
    (folder / "manifest.json").write_text(
        json.dumps([{**entry, "name": "lib-ok", "transport": TRANSPORT}, {**entry, "name": "lib-bad", "transport": "carrier-pigeon"}])
    )
    manifests = load_manifests(tmp_path / "adapters")
    assert [(m.name, m.transport) for m in manifests.adapters] == [("lib-ok", TRANSPORT)]
    ((problem),) = manifests.problems
    assert problem.field == "/1/transport" and "carrier-pigeon" in problem.message


def test_the_bundled_bedrock_adapters_declare_the_transport():
    declared = {m.name: m.transport for m in load_manifests().adapters if m.transport}
    assert declared == {"anthropic-python-bedrock": TRANSPORT, "anthropic-node-bedrock": TRANSPORT}


def test_an_adapter_class_cannot_read_a_transport_of_a_protocol_it_does_not_speak():
    with pytest.raises(TypeError, match="does not speak"):

        class Confused(Adapter):  # noqa: F841
            name, library, version, code_path = "test-confused-transport", "x", "0", "none"
            protocols = frozenset({"openai-chat"})
            capabilities = frozenset()
            transport = TRANSPORT
