"""The event-stream codec agrees with botocore's own decoder, byte for byte and read by read.

botocore (`botocore.eventstream.EventStreamBuffer`) is what boto3 and every Python Bedrock client read
ConverseStream bodies with: it is the oracle here. Every bedrock-converse fixture's body, and event
streams hypothesis makes up, cut at any byte, must give the same messages (headers and payload) from
both readers, each message once its last byte has arrived and not before; a damaged message is refused
by both.
"""

from __future__ import annotations

import base64
import json
import struct

import pytest
from botocore.eventstream import EventStreamBuffer, EventStreamHeaderParser, ParserError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltacheck.corpus.loader import load_corpus
from deltacheck.protocols import decode_stream, protocol, render_stream
from deltacheck.protocols import eventstream as es
from deltacheck.protocols.bedrock_converse.frames import FRAME_ERROR, EventStreamFraming, decode_pieces

PROTOCOL = "bedrock-converse"
FIXTURES = [f for f in load_corpus().fixtures if f.protocol == PROTOCOL]

# vercel/ai packages/amazon-bedrock/src/__fixtures__/model-stream-error-exception.eventstream.base64.txt: a real
# modelStreamErrorException message as Bedrock sent it.
CAPTURED_EXCEPTION = (
    "AAAA3QAAAGfHkZB6DTptZXNzYWdlLXR5cGUHAAlleGNlcHRpb24POmV4Y2VwdGlvbi10eXBlBwAZbW9kZWxTdHJlYW1FcnJvckV4Y2VwdGlvbg06"
    "Y29udGVudC10eXBlBwAQYXBwbGljYXRpb24vanNvbnsibWVzc2FnZSI6Ik1vZGVsIFN0cmVhbSBFcnJvciIsIm9yaWdpbmFsU3RhdHVzQ29kZSI6"
    "NTAwLCJvcmlnaW5hbE1lc3NhZ2UiOiJUaGUgbW9kZWwgc3RyZWFtIGZhaWxlZC4ifVczQxM="
)


def botocore_messages(pieces: list[bytes]) -> tuple[list[list[tuple[dict, bytes]]], Exception | None]:
    """What botocore yields after each piece (headers, payload per message), and what it raised, if anything."""
    buffer, after_each = EventStreamBuffer(), []
    try:
        for piece in pieces:
            buffer.add_data(piece)
            after_each.append([(m.headers, m.payload) for m in buffer])
    except (ParserError, KeyError) as exc:  # botocore reads an unknown header value type as a KeyError
        return after_each, exc
    return after_each, None


def our_messages(pieces: list[bytes]) -> tuple[list[list[tuple[dict, bytes]]], Exception | None]:
    reader, after_each = es.MessageReader(), []
    try:
        for piece in pieces:
            after_each.append([(m.headers, m.payload) for m in reader.feed(piece)])
    except es.FrameError as exc:
        return after_each, exc
    return after_each, None


def cut(body: bytes, cuts: list[int]) -> list[bytes]:
    edges = [0, *sorted(set(c for c in cuts if 0 < c < len(body))), len(body)]
    return [body[a:b] for a, b in zip(edges, edges[1:])]


def assert_same_reading(pieces: list[bytes]) -> None:
    ours, our_error = our_messages(pieces)
    theirs, their_error = botocore_messages(pieces)
    assert ours == theirs
    assert (our_error is None) == (their_error is None), (our_error, their_error)


# -- the corpus --------------------------------------------------------------------------------------


def test_the_corpus_has_bedrock_fixtures():
    assert len(FIXTURES) >= 8


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.id)
def test_botocore_reads_every_fixture_body_as_the_codec_does_whole_and_byte_by_byte(fixture):
    body = fixture.request().sse
    assert_same_reading([body])
    assert_same_reading([body[i : i + 1] for i in range(len(body))])


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.id)
def test_every_fixture_body_decodes_to_its_chunks_in_any_reads(fixture):
    body = fixture.request().sse
    assert decode_stream(PROTOCOL, body) == (list(fixture.chunks), False)
    assert decode_pieces([body[i : i + 1] for i in range(len(body))]) == list(fixture.chunks)


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.frames is None], ids=lambda f: f.id)
def test_botocore_parses_each_rendered_event_to_the_fixture_chunk_less_the_padding(fixture):
    for chunk, message in zip(fixture.chunks, EventStreamBuffer_all(fixture.request().sse)):
        ((name, value),) = chunk.items()
        kind = message.headers[":message-type"]
        if kind == "error":
            assert {"Code": message.headers[":error-code"], "Message": message.headers[":error-message"]} == value
            continue
        assert message.headers[f":{kind}-type"] == name
        assert message.headers[":content-type"] == "application/json"
        assert json.loads(message.payload) == value


def EventStreamBuffer_all(body: bytes) -> list:
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    return list(buffer)


# -- a captured message ------------------------------------------------------------------------------


def test_a_message_bedrock_sent_decodes_as_botocore_reads_it_and_renders_back_byte_for_byte():
    body = base64.b64decode(CAPTURED_EXCEPTION)
    assert len(body) == 221 and struct.unpack("!I", body[8:12])[0] == es.crc32(body[:8]) == 0xC791907A
    chunks, _ = decode_stream(PROTOCOL, body)
    assert chunks == [
        {
            "modelStreamErrorException": {
                "message": "Model Stream Error",
                "originalStatusCode": 500,
                "originalMessage": "The model stream failed.",
            }
        }
    ]
    assert_same_reading([body[:5], body[5:100], body[100:]])
    # The same headers in the same order give the same bytes: the captured order (message type first).
    assert render_stream(PROTOCOL, chunks) == body


# -- made-up streams ---------------------------------------------------------------------------------

_text = st.text(max_size=40)
_index = st.integers(min_value=0, max_value=5)
_events = st.one_of(
    st.builds(lambda: {"messageStart": {"role": "assistant"}}),
    st.builds(lambda i, t: {"contentBlockDelta": {"contentBlockIndex": i, "delta": {"text": t}}}, _index, _text),
    st.builds(lambda i, t: {"contentBlockDelta": {"contentBlockIndex": i, "delta": {"toolUse": {"input": t}}}}, _index, _text),
    st.builds(
        lambda i, t, p: {"contentBlockDelta": {"contentBlockIndex": i, "delta": {"reasoningContent": {"text": t}}, "p": p}},
        _index,
        _text,
        st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", max_size=60),
    ),
    st.builds(lambda i: {"contentBlockStop": {"contentBlockIndex": i}}, _index),
    st.builds(lambda r: {"messageStop": {"stopReason": r}}, st.sampled_from(["end_turn", "tool_use", "max_tokens"])),
    st.builds(lambda m: {"throttlingException": {"message": m}}, _text),
    st.builds(lambda c, m: {"Error": {"Code": c, "Message": m}}, _text, _text),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_events, min_size=1, max_size=8), st.lists(st.integers(min_value=1, max_value=4000), max_size=12))
def test_made_up_streams_cut_at_random_bytes_read_the_same_in_botocore_and_decode_back(chunks, cuts):
    body = render_stream(PROTOCOL, chunks)
    pieces = cut(body, cuts)
    assert_same_reading(pieces)
    assert decode_pieces(pieces) == chunks


_header_values = st.one_of(
    st.booleans().map(lambda b: es.Header(es.TRUE if b else es.FALSE, b)),
    st.integers(-(2**7), 2**7 - 1).map(lambda v: es.Header(es.BYTE, v)),
    st.integers(-(2**15), 2**15 - 1).map(lambda v: es.Header(es.SHORT, v)),
    st.integers(-(2**31), 2**31 - 1).map(lambda v: es.Header(es.INTEGER, v)),
    st.integers(-(2**63), 2**63 - 1).map(lambda v: es.Header(es.LONG, v)),
    st.binary(max_size=30).map(lambda v: es.Header(es.BYTE_ARRAY, v)),
    st.text(max_size=30).map(es.Header.string),
    st.integers(0, 2**62).map(lambda v: es.Header(es.TIMESTAMP, v)),
    st.binary(min_size=16, max_size=16).map(lambda v: es.Header(es.UUID, v)),
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=12), _header_values, max_size=6), st.binary(max_size=64))
def test_every_header_type_reads_back_as_botocore_reads_it(headers, payload):
    body = es.encode_message(headers, payload)
    raw = body[es.PRELUDE_LENGTH : es.PRELUDE_LENGTH + struct.unpack("!I", body[4:8])[0]]
    expected = {name: header.value for name, header in headers.items()}
    assert EventStreamHeaderParser().parse(raw) == expected == es.decode_headers(raw)
    assert_same_reading([body])


# -- damage ------------------------------------------------------------------------------------------


def test_a_flipped_bit_anywhere_in_a_message_is_refused_by_both_readers():
    body = render_stream(PROTOCOL, [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}])
    for position in range(len(body)):
        damaged = body[:position] + bytes([body[position] ^ 0x10]) + body[position + 1 :]
        ours, our_error = our_messages([damaged])
        theirs, their_error = botocore_messages([damaged])
        assert ours == theirs == [[]] or ours == theirs == [], position
        assert our_error is not None and their_error is not None, position


@pytest.mark.parametrize("fault", es.FAULTS)
def test_a_damaged_message_ends_the_chunks_with_its_fault_and_botocore_refuses_it_too(fault):
    chunks = [{"messageStart": {"role": "assistant"}}, {FRAME_ERROR: fault}]
    body = render_stream(PROTOCOL, chunks) + render_stream(PROTOCOL, [{"messageStop": {"stopReason": "end_turn"}}])
    assert decode_stream(PROTOCOL, body) == (chunks, False)  # nothing after the damaged message is read
    _, their_error = botocore_messages([body])
    assert their_error is not None
    with pytest.raises(es.FrameError, match=fault):
        es.MessageReader().feed(body)


def test_a_message_cut_off_by_the_end_of_the_body_carries_no_chunk_and_is_left_pending():
    body = render_stream(PROTOCOL, [{"messageStart": {"role": "assistant"}}, {"messageStop": {"stopReason": "end_turn"}}])
    reader = es.MessageReader()
    assert len(reader.feed(body[:-3])) == 1 and reader.pending > 0
    assert decode_stream(PROTOCOL, body[:-3]) == ([{"messageStart": {"role": "assistant"}}], False)


def test_one_piece_per_message_and_the_framing_is_binary():
    framing = protocol(PROTOCOL).framing
    assert isinstance(framing, EventStreamFraming) and framing.binary and framing.terminator is None
    chunks = [{"messageStart": {"role": "assistant"}}, {"messageStop": {"stopReason": "end_turn"}}]
    pieces = framing.pieces(render_stream(PROTOCOL, chunks))
    assert [decode_pieces([piece]) for piece in pieces] == [[chunk] for chunk in chunks]
