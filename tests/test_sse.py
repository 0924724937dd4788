"""The SSE reader follows WHATWG event-stream parsing; the writer round-trips through it."""

from __future__ import annotations

from deltacheck.corpus import load_corpus
from deltacheck.sse import decode_stream, parse_event_stream


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
