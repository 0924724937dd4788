"""The SSE reader follows WHATWG event-stream parsing; the writer round-trips through it."""

from __future__ import annotations

from deltacheck.corpus.loader import load_corpus
from deltacheck.protocols import decode_stream
from deltacheck.protocols.sse import parse_event_stream


def events(text: str) -> list[tuple[str, str]]:
    return [(e.type, e.data) for e in parse_event_stream(text.encode("utf-8"))]


def test_lf_crlf_and_lone_cr_all_end_lines():
    assert events("data: a\n\ndata: b\r\n\r\ndata: c\r\r") == [("message", "a"), ("message", "b"), ("message", "c")]


def test_comments_are_ignored_and_several_data_lines_join_with_newlines():
    assert events(": keep-alive\ndata: {\"a\":\ndata: 1}\n\n") == [("message", '{"a":\n1}')]


def test_one_leading_space_is_removed_and_no_space_is_fine():
    assert events("data:x\n\ndata:  y\n\n") == [("message", "x"), ("message", " y")]


def test_event_names_ids_and_retry():
    assert events("event: ping\nid: 7\nretry: 10\ndata: {}\n\n") == [("ping", "{}")]


def test_an_event_without_data_is_not_dispatched():
    assert events("event: ping\n\ndata: 1\n\n") == [("message", "1")]


def test_a_bom_is_stripped_and_an_unterminated_last_event_is_discarded():
    assert events("\ufeffdata: 1\n\ndata: 2") == [("message", "1")]


def test_done_ends_a_chat_stream():
    assert decode_stream("openai-chat", b"data: {\"a\":1}\n\ndata: [DONE]\n\ndata: {\"b\":2}\n\n") == ([{"a": 1}], True)


def test_every_fixture_rendered_as_sse_decodes_back_to_its_chunks():
    for fixture in load_corpus().fixtures:
        chunks, done = decode_stream(fixture.protocol, fixture.request().sse)
        assert chunks == list(fixture.chunks), fixture.id
        assert done == (fixture.protocol == "openai-chat" and fixture.stream_end == "terminator"), fixture.id


def test_a_byte_level_fixture_is_read_in_the_pieces_it_cuts_even_inside_a_character():
    from deltacheck.corpus.loader import load_corpus

    fixture = load_corpus(check_reference=False).by_id()["DC-Q8V4"]
    request = fixture.request()
    pieces = request.sse_pieces()
    assert b"".join(pieces) == request.sse and len(pieces) == len(fixture.sse_cuts) + 1
    # a reader that decodes each read on its own breaks the characters the cuts fall in
    assert "\ufffd" in "".join(piece.decode("utf-8", errors="replace") for piece in pieces)
    assert request.to_json()["sse_cuts"] == list(fixture.sse_cuts)


def test_cuts_must_fall_inside_the_fixtures_own_bytes_in_order(tmp_path):
    from deltacheck.corpus.loader import load_corpus
    from tests.corpus_builder import TEXT_FIXTURE, fixture, make_corpus

    from deltacheck.protocols import render_stream
    sse = render_stream("openai-chat", TEXT_FIXTURE["chunks"]).decode()
    cases = {"a.json": fixture(TEXT_FIXTURE, id="DC-AAA1", sse_cuts=[3]),
             "b.json": fixture(TEXT_FIXTURE, id="DC-AAA2", tags=["text", "transport"], sse=sse, sse_cuts=[9, 4]),
             "c.json": fixture(TEXT_FIXTURE, id="DC-AAA3", tags=["text", "transport"], sse=sse, sse_cuts=[len(sse)])}
    corpus = load_corpus(make_corpus(tmp_path, {f"openai-chat/{name}": data for name, data in cases.items()}))
    messages = sorted((p.fixture_id, p.message) for p in corpus.problems)
    assert [fid for fid, _ in messages] == ["DC-AAA1", "DC-AAA2", "DC-AAA3"]
    assert "no `sse`" in messages[0][1] and "increase strictly" in messages[1][1] and "not inside" in messages[2][1]
