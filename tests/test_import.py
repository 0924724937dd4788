"""`deltacheck import` drafts a redacted, unreviewed fixture from a capture; `deltacheck new` scaffolds one."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.judge.compare import json_equal
from deltacheck.corpus.loader import DEFAULT_CORPUS, load_corpus
from deltacheck.reference import assemble
from deltacheck import protocols
from deltacheck.protocols import decode_stream, render_stream

BUNDLED = load_corpus(check_reference=False)
# One fixture per protocol with tool calls and text, rendered as a provider sends them.
SAMPLES = {"openai-chat": "DC-8499", "openai-responses": "DC-GBZB", "anthropic-messages": "DC-Y4WJ"}


@pytest.fixture
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    shutil.copytree(DEFAULT_CORPUS, root)
    return root


def invoke(args: list, exit_code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert result.exit_code == exit_code, result.output
    return result


def drafted(result) -> dict:
    path = Path(result.stdout.strip().splitlines()[-1])
    return json.loads(path.read_text(encoding="utf-8")), path


def reviewed(data: dict, path: Path) -> None:
    """What a contributor does to a draft: decide its basis, delete the mark, save it."""
    del data["unreviewed"]
    data["basis"] = {"kind": "policy", "source": "CONTRACT.md 3.3, the rule the tests stand for"}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def sample(protocol: str):
    return BUNDLED.by_id()[SAMPLES[protocol]]


def _without_event_lines(body: bytes) -> bytes:
    return b"".join(line for line in body.splitlines(keepends=True) if not line.startswith(b"event:"))


def _har(body: str, base64_encoded: bool = False, streams: int = 1) -> str:
    def entry(mime: str, text: str) -> dict:
        content = {"mimeType": mime, "text": text}
        if base64_encoded:
            content = {"mimeType": mime, "text": base64.b64encode(text.encode()).decode(), "encoding": "base64"}
        return {"request": {"method": "POST", "url": "https://api.example/v1/x",
                            "headers": [{"name": "Authorization", "value": "Bearer sk-live-" + "q" * 40}]},
                "response": {"status": 200, "content": content}}
    entries = [entry("application/json", "{}")] + [entry("text/event-stream; charset=utf-8", body)] * streams
    return json.dumps({"log": {"version": "1.2", "entries": entries}})


CAPTURES = {
    "sse": lambda f: render_stream(f.protocol, f.chunks, f.stream_end),
    "sse-without-event-lines": lambda f: _without_event_lines(render_stream(f.protocol, f.chunks, f.stream_end)),
    "jsonl": lambda f: "".join(json.dumps(c) + "\n" for c in f.chunks).encode(),
    "har": lambda f: _har(render_stream(f.protocol, f.chunks, f.stream_end).decode()).encode(),
    "har-base64": lambda f: _har(render_stream(f.protocol, f.chunks, f.stream_end).decode(), True).encode(),
}


@pytest.mark.parametrize("fmt", CAPTURES)
@pytest.mark.parametrize("protocol", SAMPLES)
def test_a_capture_becomes_a_redacted_unreviewed_fixture_that_lint_refuses_until_reviewed(corpus, tmp_path, protocol, fmt):
    original = sample(protocol)
    capture = tmp_path / f"capture.{fmt}"
    capture.write_bytes(CAPTURES[fmt](original))
    data, path = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert path.parent == corpus / "fixtures" / protocol
    assert data["protocol"] == protocol and data["provenance"]["kind"] == "captured"
    assert data["id"] not in {f.id for f in BUNDLED.fixtures} | BUNDLED.retired
    assert len(data["chunks"]) == len(original.chunks)
    assert "unreviewed" in data and "sse" not in data or fmt == "sse-without-event-lines"
    # redacted: no id, text or model of the capture is left, the shape of the result is
    before = [p for c in original.expected["choices"] for p in c["parts"]]
    after = [p for c in data["expected"]["choices"] for p in c["parts"]]
    for old, new in zip(before, after):
        for key in ("id", "text"):
            if old.get(key) and re.search(r"[A-Za-z0-9]", old[key]):
                assert new[key] != old[key] and len(new[key]) == len(old[key]), key
        if old.get("type") == "tool_call":  # keys and numbers kept, string values replaced
            strings = r'"(?:[^"\\]|\\.)*(?:"|\\?$)'  # a string a cut stream left open included
            assert re.sub(strings, '""', new["arguments"]) == re.sub(strings, '""', old["arguments"])
            assert (new["arguments"] != old["arguments"]) == bool(re.search(r':\s*"[^"]*[A-Za-z0-9]', old["arguments"]))
    assert [[p["type"] for p in c["parts"]] for c in data["expected"]["choices"]] == \
           [[p["type"] for p in c["parts"]] for c in original.expected["choices"]]
    assert data["expected"] == {k: v for k, v in assemble(protocol, data["chunks"]).result.items() if k != "events"}
    # lint refuses it, saying what to check; reviewed and with its basis decided it is a valid fixture
    assert data["basis"]["kind"] == "observed" and data["basis"]["source"].startswith("TODO")
    lint = invoke(["lint", "--corpus", corpus], exit_code=1)
    unreviewed, basis = lint.stdout.splitlines()[:2]
    assert data["id"] in unreviewed and "/unreviewed" in unreviewed and "provider's documented stream semantics" in unreviewed
    assert f"{data['id']}: /basis: not decided" in basis
    reviewed(data, path)
    invoke(["lint", "--corpus", corpus])


def test_framing_that_differs_from_the_rendered_sse_is_kept_as_the_fixtures_own_bytes(corpus, tmp_path):
    original = sample("openai-chat")
    body = render_stream(original.protocol, original.chunks).replace(b"\n", b"\r\n")
    body = b": keep-alive\r\n\r\n" + body.replace(b"data: ", b"data:", 1)
    capture = tmp_path / "crlf.sse"
    capture.write_bytes(body)
    data, path = drafted(invoke(["import", capture, "--corpus", corpus, "--tag", "transport", "--tag", "tool-call",
                                 "--title", "CRLF framing with a comment keeps every call"]))
    assert path.name == "crlf-framing-with-a-comment-keeps-every-call.json"
    assert data["tags"] == ["transport", "tool-call"]
    sse = data["sse"]
    assert sse.count("\r\n") == body.count(b"\r\n") and sse.startswith(": keep-alive\r\n\r\ndata:{")
    chunks, done = decode_stream("openai-chat", sse.encode())
    assert done and json_equal(chunks, data["chunks"])
    assert original.chunks[0]["id"] not in sse


def test_a_chat_stream_without_done_is_drafted_with_stream_end_eof(corpus, tmp_path):
    original = sample("openai-chat")
    capture = tmp_path / "eof.sse"
    capture.write_bytes(render_stream(original.protocol, original.chunks, "eof"))
    data, _ = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert data["stream_end"] == "eof"


def test_keep_text_keeps_the_text_but_not_ids_and_never_a_secret(corpus, tmp_path):
    key = "sk-proj-" + "Zq8" * 12
    chunks = [{"id": "chatcmpl-abc123", "object": "chat.completion.chunk", "model": "gpt-4o",
               "choices": [{"index": 0, "delta": {"content": f"My own words, and a key {key}."}, "finish_reason": None}]},
              {"id": "chatcmpl-abc123", "object": "chat.completion.chunk", "model": "gpt-4o",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    capture = tmp_path / "own.sse"
    capture.write_bytes(render_stream("openai-chat", chunks))
    data, path = drafted(invoke(["import", capture, "--corpus", corpus, "--keep-text"]))
    text = data["expected"]["choices"][0]["parts"][0]["text"]
    assert text.startswith("My own words, and a key ") and key not in path.read_text()
    assert data["chunks"][0]["id"] != "chatcmpl-abc123" and data["chunks"][0]["id"].startswith("chatcmpl-")
    assert data["chunks"][0]["model"] != "gpt-4o"


def test_a_secret_split_across_chunks_is_overwritten_across_them_with_keep_text(corpus, tmp_path):
    key = "sk-proj-" + "Zq8" * 12
    chunks = [{"object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
              for piece in ("the key: " + key[:12], key[12:] + " ok")]
    capture = tmp_path / "split.sse"
    capture.write_bytes(render_stream("openai-chat", chunks))
    data, path = drafted(invoke(["import", capture, "--corpus", corpus, "--keep-text"]))
    text = path.read_text(encoding="utf-8")
    assert key[:12] not in text and key[12:] not in text
    pieces = [c["choices"][0]["delta"]["content"] for c in data["chunks"]]
    assert pieces == ["the key: " + "X" * 12, "X" * (len(key) - 12) + " ok"]  # cut where it was


def test_redaction_that_looks_like_a_key_does_not_stop_the_import(corpus, tmp_path, monkeypatch):
    """A long blob redacted can read like an API key by chance: only a key the capture holds is refused."""
    from deltacheck.contributing import redact
    monkeypatch.setattr(redact.Cipher, "token", lambda self, value: ("hf_" + "a1" * 40)[: len(value)])
    blob = "EqQBCkgIARABGAIiQL" * 20
    chunks = [{"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                    "model": "m", "content": [], "usage": {"input_tokens": 1}}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": blob}},
              {"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]
    capture = tmp_path / "blob.sse"
    capture.write_bytes(render_stream("anthropic-messages", chunks))
    data, _ = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert data["chunks"][1]["content_block"]["data"].startswith("hf_a1")


BAD_CAPTURES = {
    "empty.sse": (b"", "empty"),
    "blank.sse": (b"\n\n  \n", "empty"),
    "prose.txt": (b"hello, this is not a stream\n", "line 1"),
    "bad-json.sse": (b'data: {"choices": [}\n\n', "line 1: the event's data is not a JSON object"),
    "truncated.sse": (b'data: {"object":"chat.completion.chunk","choices":[]}\n\ndata: {"object":"chat', "truncated"),
    "unclosed.sse": (b'data: {"object":"chat.completion.chunk","choices":[]}\n\ndata: {"object":"chat.co\n', "truncated"),
    "two-chat-responses.sse": (b'data: {"object":"chat.completion.chunk","choices":[]}\n\ndata: [DONE]\n\n'
                               b'data: {"object":"chat.completion.chunk","choices":[]}\n\ndata: [DONE]\n\n',
                               "several responses end to end"),
    "mixed.sse": (b'data: {"object":"chat.completion.chunk","choices":[]}\n\n'
                  b'event: message_stop\ndata: {"type":"message_stop"}\n\n', "line 3: this chunk is anthropic-messages, but the stream began as openai-chat"),
    "unknown.jsonl": (b'{"hello": 1}\n', "line 1: a chunk of no known protocol"),
    "list-type.sse": (b'data: {"type": ["message_start"]}\n\n', "line 1: a chunk of no known protocol"),
    "object-type.sse": (b'data: {"type": {"a": 1}}\n\n', "line 1: a chunk of no known protocol"),
    "bad.jsonl": (b'{"object":"chat.completion.chunk","choices":[]}\n{nope\n', "line 2 is not a JSON object"),
    "after-done.sse": (b'data: {"object":"chat.completion.chunk","choices":[]}\n\ndata: [DONE]\n\n'
                       b'data: {"object":"chat.completion.chunk","choices":[]}\n\n', "after `data: [DONE]`"),
    "no-sse.har": (json.dumps({"log": {"entries": [{"response": {"content": {"mimeType": "application/json",
                                                                           "text": "{}"}}}]}}).encode(),
                   "no HAR entry has a text/event-stream response"),
    "two.har": (_har("data: {}\n\n", streams=2).encode(), "2 HAR entries are event streams"),
    "binary.sse": (b"\xff\xfe\x00data", "not UTF-8"),
}


@pytest.mark.parametrize("name", BAD_CAPTURES)
def test_a_bad_capture_is_one_line_naming_the_file_and_where_it_stopped_and_nothing_is_written(corpus, tmp_path, name):
    content, expected = BAD_CAPTURES[name]
    capture = tmp_path / name
    capture.write_bytes(content)
    before = sorted(corpus.rglob("*"))
    result = invoke(["import", capture, "--corpus", corpus], exit_code=1)
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert str(capture) in line and expected in line, line
    assert sorted(corpus.rglob("*")) == before


def test_a_missing_capture_file_and_an_unknown_tag_are_named(corpus, tmp_path):
    missing = invoke(["import", tmp_path / "nope.sse", "--corpus", corpus], exit_code=1)
    assert "nope.sse" in missing.output and "cannot read" in missing.output
    capture = tmp_path / "c.jsonl"
    capture.write_text(json.dumps(sample("openai-chat").chunks[0]) + "\n")
    tag = invoke(["import", capture, "--corpus", corpus, "--tag", "no-such-tag"], exit_code=2)
    assert "--tag" in tag.output and "no-such-tag" in tag.output


def test_an_existing_output_file_is_never_overwritten(corpus, tmp_path):
    capture = tmp_path / "c.jsonl"
    capture.write_text("".join(json.dumps(c) + "\n" for c in sample("openai-chat").chunks))
    target = tmp_path / "mine.json"
    target.write_text("keep me")
    result = invoke(["import", capture, "--corpus", corpus, "--output", target], exit_code=1)
    assert "already exists" in result.output and target.read_text() == "keep me"


@pytest.mark.parametrize("protocol", SAMPLES)
def test_new_scaffolds_an_unreviewed_fixture_that_lint_refuses(corpus, protocol):
    result = invoke(["new", "--protocol", protocol, "--title", "a scaffolded answer is one text part",
                     "--tag", "text", "--corpus", corpus])
    data, path = drafted(result)
    assert path == corpus / "fixtures" / protocol / "a-scaffolded-answer-is-one-text-part.json"
    assert data["provenance"]["kind"] == "synthetic" and "unreviewed" in data
    assert data["expected"]["choices"][0]["parts"][0] == {"type": "text", "text": "TODO", "annotations": []}
    lint = invoke(["lint", "--corpus", corpus], exit_code=1)
    assert f"{data['id']}: /unreviewed: not reviewed" in lint.stdout
    assert f"{data['id']}: /basis: not decided" in lint.stdout and data["basis"]["source"].startswith("TODO")
    assert protocols.protocol(protocol).part("drafting").STREAM_DOCUMENTATION in data["basis"]["source"]
    reviewed(data, path)
    invoke(["lint", "--corpus", corpus])


def test_curl_i_output_has_its_headers_dropped(corpus, tmp_path):
    original = sample("anthropic-messages")
    capture = tmp_path / "with-headers.sse"
    capture.write_bytes(b"HTTP/2 200\r\ncontent-type: text/event-stream\r\nanthropic-organization-id: org-secret-name\r\n\r\n"
                        + render_stream(original.protocol, original.chunks))
    data, path = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert data["protocol"] == "anthropic-messages" and "sse" not in data and "org-secret-name" not in path.read_text()
    capture.write_bytes(b"HTTP/2 200\r\ncontent-type: text/event-stream\r\n")
    assert "no blank line after them" in invoke(["import", capture, "--corpus", corpus], exit_code=1).output


def test_a_stream_the_reference_rejects_is_drafted_as_a_rejection_where_the_corpus_has_them(corpus, tmp_path):
    chunks = [{"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                                                    "model": "m", "stop_reason": None, "stop_sequence": None,
                                                    "usage": {"input_tokens": 1, "output_tokens": 1}}},
              {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "hi"}}]
    capture = tmp_path / "broken.jsonl"
    capture.write_text("".join(json.dumps(c) + "\n" for c in chunks))
    schema = json.loads((corpus / "schema" / "fixture.schema.json").read_text())
    if "rejected" not in schema["properties"]:  # a corpus without rejected fixtures: one error, nothing written
        result = invoke(["import", capture, "--corpus", corpus], exit_code=1)
        assert "the reference assembler cannot assemble chunk 1" in result.output and str(capture) in result.output
        return
    data, path = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert "expected" not in data and "rejected-stream" in data["tags"]
    assert data["rejected"]["reason"].startswith("TODO") and "chunk 1" in data["rejected"]["reason"]
    reviewed(data, path)
    invoke(["lint", "--corpus", corpus])


@pytest.mark.parametrize("ending", [b"\n", b""])
@pytest.mark.parametrize("protocol", list(SAMPLES))
def test_a_final_event_with_complete_json_and_no_blank_line_after_it_is_accepted(corpus, tmp_path, protocol, ending):
    fixture = sample(protocol)
    body = render_stream(protocol, fixture.chunks, fixture.stream_end).rstrip(b"\n") + ending
    capture = tmp_path / "cut.sse"
    capture.write_bytes(body)
    data, _ = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert len(data["chunks"]) == len(fixture.chunks)
    if "sse" in data:  # the bytes kept are a stream a client dispatches every event of
        assert decode_stream(protocol, data["sse"].encode())[0] == data["chunks"]


@pytest.mark.parametrize("protocol", ["anthropic-messages", "openai-responses"])
def test_a_done_marker_a_gateway_appends_to_a_stream_without_one_is_accepted(corpus, tmp_path, protocol):
    fixture = sample(protocol)
    capture = tmp_path / "gateway.sse"
    capture.write_bytes(render_stream(protocol, fixture.chunks) + b"data: [DONE]\n\n")
    data, _ = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert len(data["chunks"]) == len(fixture.chunks) and "[DONE]" not in data.get("sse", "")


@pytest.mark.parametrize("protocol", ["anthropic-messages", "openai-responses"])
@pytest.mark.parametrize("fmt", ["sse", "jsonl"])
def test_several_responses_end_to_end_are_refused_saying_so(corpus, tmp_path, protocol, fmt):
    fixture = sample(protocol)
    one = CAPTURES[fmt](fixture)
    one = one if isinstance(one, bytes) else one.encode()
    capture = tmp_path / f"two.{fmt}"
    capture.write_bytes(one + one)
    before = sorted(corpus.rglob("*"))
    result = invoke(["import", capture, "--corpus", corpus], exit_code=1)
    assert "several responses end to end" in result.output and str(capture) in result.output
    assert len(result.output.strip().splitlines()) <= 3  # one message (wrapped)
    assert sorted(corpus.rglob("*")) == before


def test_a_capture_too_large_for_a_fixture_is_refused_unread_saying_the_limit(corpus, tmp_path):
    from deltacheck.contributing.capture import MAX_CAPTURE_BYTES
    capture = tmp_path / "huge.sse"
    with capture.open("wb") as out:
        out.write(b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"')
        out.truncate(MAX_CAPTURE_BYTES + 10)  # sparse: the test does not need the bytes in memory
    result = invoke(["import", capture, "--corpus", corpus], exit_code=1)
    assert "4 MiB" in result.output and "the most a fixture holds" in result.output


def _chat_chunk(delta: dict, finish=None, **extra) -> dict:
    return {"id": "chatcmpl-9xYz", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **extra}]}


def test_logprob_bytes_in_the_raw_sse_are_redacted_with_their_tokens_and_lint_accepts_the_draft(corpus, tmp_path):
    logprobs = {"content": [{"token": "Paris", "logprob": -0.1, "bytes": list(b"Paris"), "top_logprobs": []}]}
    chunks = [_chat_chunk({"role": "assistant", "content": "Paris"}, logprobs=logprobs), _chat_chunk({}, "stop")]
    body = "".join("data: " + json.dumps(c, separators=(", ", ": ")) + "\r\n\r\n" for c in chunks) + "data: [DONE]\r\n\r\n"
    capture = tmp_path / "logprobs.sse"
    capture.write_text(body, encoding="utf-8")
    data, path = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert "sse" in data and "Paris" not in path.read_text(encoding="utf-8")
    assert str(list(b"Paris"))[1:-1] not in data["sse"]  # the bytes would spell the text back
    token = data["chunks"][0]["choices"][0]["logprobs"]["content"][0]
    assert token["bytes"] == list(token["token"].encode("utf-8"))
    data["tags"], data["title"] = ["text", "transport"], "a chat stream with logprobs framed with CRLF"
    reviewed(data, path)
    invoke(["lint", "--corpus", corpus])


def test_a_real_final_chunk_the_schema_refuses_is_drafted_tagged_off_schema_and_lint_accepts_it(corpus, tmp_path):
    done = {**_chat_chunk({}, "stop"), "object": "chat.completion.done"}
    capture = tmp_path / "done-object.jsonl"
    capture.write_text("".join(json.dumps(c) + "\n" for c in [_chat_chunk({"content": "hi"}), done]), encoding="utf-8")
    data, path = drafted(invoke(["import", capture, "--corpus", corpus]))
    assert "off-schema" in data["tags"] and data["off_schema"] == ["/chunks/1/object"]
    assert data["chunks"][1]["object"] == "chat.completion.done"
    data["title"] = "a final chunk whose object is chat.completion.done"
    reviewed(data, path)
    invoke(["lint", "--corpus", corpus])


@pytest.mark.parametrize("command", ["import", "new"])
def test_help_says_where_the_draft_goes_checkout_and_installed(command):
    text = " ".join(invoke([command, "--help"]).output.split())
    assert "current directory" in text and "fixtures/<protocol>/" in text
