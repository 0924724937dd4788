"""Redaction on import keeps what the corpus needs: equality structure, prefixes, fragment cut points,
JSON validity of the arguments, and the assembled result (redacted)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltacheck.corpus.loader import load_corpus
from deltacheck.errors import AssemblyError
from deltacheck.protocols.openai_responses.reference import BUILTIN_PAYLOADS
from deltacheck.reference import assemble
from deltacheck.reference.parts import json_text
from deltacheck.contributing.redact import (ID_KEYS, MEANINGFUL_PREFIXES, Cipher, Redactor, _runs, redact_chunks,
                               redact_json_text, rewrite_data, scrub_secrets, secret_locations)
from deltacheck.protocols import protocol

CORPUS = load_corpus(check_reference=False)
seeds = st.integers(min_value=0, max_value=2**32)
# Text with what makes cutting hard: quotes and backslashes (escaped in JSON), controls, accents (2-byte
# UTF-8), CJK (3-byte) and emoji (4-byte, a surrogate pair when escaped).
hard_text = st.text(alphabet=st.sampled_from(list('ab Z9"\\\n\t/é漢😀{}[]:,')) | st.characters(), max_size=30)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | hard_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(hard_text, children, max_size=4),
    max_leaves=12)


def _strings(value):
    """(path, string) for every string value, keys left out (they are kept)."""
    if isinstance(value, str):
        yield (), value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for path, s in _strings(item):
                yield (i, *path), s
    elif isinstance(value, dict):
        for k, item in value.items():
            for path, s in _strings(item):
                yield (k, *path), s


def _shape(value):
    """The value with every string replaced by its length: structure, keys, numbers and literals."""
    if isinstance(value, str):
        return ("str", len(value))
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    return value


# -- the cipher ----------------------------------------------------------------------------------


@given(seeds, st.text(), st.text())
def test_a_text_redacted_in_pieces_is_the_redaction_of_their_join(seed, a, b):
    cipher = Cipher(seed)
    stream = cipher.stream()
    assert cipher.text(a + b) == stream.text(a) + stream.text(b)
    assert len(cipher.text(a)) == len(a)
    assert [len(ch.encode("utf-8", "surrogatepass")) for ch in cipher.text(a)] == \
           [len(ch.encode("utf-8", "surrogatepass")) for ch in a]


@given(seeds, st.text(), st.text())
def test_equal_values_get_equal_replacements_and_different_values_different_ones(seed, a, b):
    cipher = Cipher(seed)
    assert (cipher.text(a) == cipher.text(b)) == (a == b)
    assert (cipher.identifier(a) == cipher.identifier(b)) == (a == b)


@given(seeds, st.sampled_from(MEANINGFUL_PREFIXES), st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789", min_size=8))
def test_meaningful_prefixes_are_kept_and_the_rest_is_replaced(seed, prefix, rest):
    redacted = Cipher(seed).identifier(prefix + rest)
    assert redacted.startswith(prefix)
    assert redacted[len(prefix):] != rest  # no letter or digit maps to itself


@given(seeds, st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12),
       st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=8, max_size=40))
def test_a_guessed_word_decodes_nothing_else(seed, first, second, word):
    """The replacement of a character depends on the key and the whole prefix: what one value's redaction
    reveals (a known word) says nothing of the same word after another prefix."""
    cipher = Cipher(seed)
    if first != second:
        assert cipher.text(first + word)[len(first):] != cipher.text(second + word)[len(second):]
    assert Cipher(seed).text(first + word) != Cipher(seed + 1).text(first + word)  # the key decides


def _kind(ch: str) -> str:
    return "upper" if ch.isupper() else "lower" if ch.islower() else "digit" if ch.isdigit() else "other"


@pytest.mark.parametrize("value", ["gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929", "The weather in Paris is 21 C."])
def test_case_digits_and_separators_are_not_kept(value):
    """Letter-for-letter substitution kept each character's kind, so a model name's shape gave it away."""
    same = total = 0
    for seed in range(200):
        for redacted in (Cipher(seed).text(value), Cipher(seed).token(value)):
            same += sum(_kind(a) == _kind(b) for a, b in zip(value, redacted))
            total += len(value)
    assert same / total < 0.6  # kinds by chance: about half (letters are most of each alphabet)
    if " " not in value:  # a model name stays a token
        assert all(ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_" for ch in Cipher(1).token(value))


# -- tool-call arguments -------------------------------------------------------------------------


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(seeds, json_values, st.booleans(), st.data())
def test_arguments_keep_structure_keys_and_every_cut_point(seed, value, ascii_only, data):
    text = json.dumps(value, ensure_ascii=ascii_only)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=6)))
    fragments = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
    chunks = [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": fragment}}]}, "finish_reason": None}]} for fragment in fragments]
    redacted = redact_chunks("openai-chat", chunks, Cipher(seed))
    pieces = [c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for c in redacted]
    assert [len(p) for p in pieces] == [len(f) for f in fragments]  # cut at the same points, escapes included
    joined = "".join(pieces)
    parsed = json.loads(joined)  # still valid JSON
    assert _shape(parsed) == _shape(value)  # same keys, structure, numbers; strings of the same length
    for (path, before), (_, after) in zip(_strings(value), _strings(parsed)):
        if re.search(r"[A-Za-z0-9]", before):
            assert after != before, path


@given(seeds, json_values, st.data())
def test_arguments_cut_inside_an_escape_or_a_surrogate_pair_stay_cut_there(seed, value, data):
    text = json.dumps(["é😀\"\\\n", value], ensure_ascii=True)
    inside = [m.start() + k for m in re.finditer(r"\\u[0-9a-f]{4}|\\.", text) for k in range(1, len(m.group()))]
    cut = data.draw(st.sampled_from(inside))
    chunks = [{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1",
                                                                          "name": "f", "input": {}}}]
    chunks += [{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}
               for piece in (text[:cut], text[cut:])]
    redacted = redact_chunks("anthropic-messages", chunks, Cipher(seed))
    first, second = (c["delta"]["partial_json"] for c in redacted[1:])
    assert (len(first), len(second)) == (cut, len(text) - cut)
    assert first + second == redact_json_text(text, Cipher(seed))
    element = json.loads(first + second)[0]
    assert element[0] != "é" and element[1:] == "😀\"\\\n"  # the accent replaced; emoji and escapes kept


# -- whole streams: equality structure and the assembled result ------------------------------------


def _builtin_payload(redactor: Redactor, part: dict) -> str:
    """A built-in call's arguments as the item field they come from is redacted in its chunks (by key)."""
    payload = json.loads(part["arguments"])
    key = BUILTIN_PAYLOADS[part["name"]]
    return json_text(redactor.walk(payload) if key is None else redactor.walk({key: payload})[key])


def _redact_result(protocol: str, result: dict, cipher: Cipher, runs: dict[str, list[str]] | None = None) -> dict:
    """What a result becomes when every value in it is redacted as its chunks were. `runs`: for a call whose
    fragments re-send the text so far, the runs its arguments are made of, each redacted from its start."""
    redactor = Redactor(cipher)
    arguments = lambda text: (  # noqa: E731
        "".join(redact_json_text(run, cipher) for run in runs[text])
        if runs and text in runs else redact_json_text(text, cipher))
    choices = []
    for choice in result["choices"]:
        parts = []
        for part in choice["parts"]:
            part = dict(part)
            kind = part["type"]
            if kind in ("text", "refusal"):
                part["text"] = cipher.text(part["text"])
                if "annotations" in part:
                    part["annotations"] = redactor.walk(part["annotations"], "annotations")
                if "extra_content" in part:  # a Chat message's own extension object (a thought signature)
                    part["extra_content"] = redactor.walk(part["extra_content"], "extra_content")
            elif kind == "reasoning":
                part.update(text=cipher.text(part["text"]), summary=[cipher.text(s) for s in part["summary"]],
                            signature=None if part["signature"] is None else cipher.token(part["signature"]))
            elif kind == "redacted_reasoning":  # Bedrock's bytes are base64 the stream decodes: replaced as bytes
                part["data"] = cipher.blob(part["data"]) if protocol == "bedrock-converse" else cipher.token(part["data"])
            elif kind == "tool_call":
                part.update(id=part["id"] and cipher.identifier(part["id"]),
                            item_id=part["item_id"] and cipher.identifier(part["item_id"]),
                            arguments=part["arguments"] if not isinstance(part["arguments"], str)
                            else cipher.text(part["arguments"]) if part["kind"] == "custom"  # free text, not JSON
                            else _builtin_payload(redactor, part) if part["kind"] == "builtin"
                            else arguments(part["arguments"]))
                if "extra_content" in part:
                    part["extra_content"] = redactor.walk(part["extra_content"], "extra_content")
            elif kind == "server_tool_result":
                part.update(tool_use_id=part["tool_use_id"] and cipher.identifier(part["tool_use_id"]),
                            content=redactor.walk(part["content"], "content"))
            if kind in ("text", "tool_call") and "signature" in part:  # a Gemini part's thoughtSignature
                part["signature"] = cipher.token(part["signature"])
            parts.append(part)
        detail = choice["finish_detail"]
        if protocol in ("anthropic-messages", "gemini") and isinstance(detail, str):  # free text of the stream
            detail = cipher.text(detail)
        choices.append({**choice, "parts": parts, "finish_detail": detail})
    error = result["error"]
    if error is not None:
        error = {**error, "message": error["message"] if error.get("message") is None else cipher.text(error["message"])}
    usage = None if result["usage"] is None else redactor.walk(result["usage"], "usage")
    return {"choices": choices, "usage": usage, "error": error}


@settings(max_examples=3, deadline=None)
@given(seed=seeds)
@pytest.mark.parametrize("fixture", CORPUS.fixtures, ids=lambda f: f.id)
def test_a_stream_assembles_after_redaction_to_its_result_redacted(fixture, seed):
    cipher = Cipher(seed)
    redacted = redact_chunks(fixture.protocol, json.loads(json.dumps(fixture.chunks)), cipher)
    if fixture.expected is None:  # a stream the reference rejects is rejected after redaction too
        with pytest.raises(AssemblyError):
            assemble(fixture.protocol, redacted)
        return
    assembled = {k: v for k, v in assemble(fixture.protocol, redacted).result.items() if k != "events"}
    assert assembled == _redact_result(fixture.protocol, fixture.expected, cipher, _snapshot_runs(fixture))


def _snapshot_runs(fixture) -> dict[str, list[str]]:
    """A cumulative stream's calls: their whole argument text -> the runs import redacts it as. Each fragment that
    re-sends the text so far starts a run read as JSON from its start, so no value of it is read as a key."""
    if "cumulative-arguments" not in fixture.tags:
        return {}
    calls: dict = {}
    for call, holder, key in protocol(fixture.protocol).part("redaction").argument_fragments(fixture.chunks):
        calls.setdefault(call, []).append((holder, key))
    runs = {}
    for pieces in calls.values():
        texts = [text for text, _ in _runs(pieces)]
        runs["".join(texts)] = texts
    return runs


@given(seeds, st.lists(st.sampled_from(["call_Ab12", "call_Zz99", "toolu_01Xy", "fc_77", "msg_q"]), min_size=2, max_size=6))
def test_ids_across_a_stream_keep_their_equality_structure(seed, ids):
    chunks = [{"type": "response.output_item.added", "sequence_number": n,
               "item": {"type": "function_call", "id": fid, "call_id": fid, "name": "f", "arguments": ""}}
              for n, fid in enumerate(ids)]
    redacted = [c["item"]["id"] for c in redact_chunks("openai-responses", chunks, Cipher(seed))]
    for (a, ra) in zip(ids, redacted):
        for (b, rb) in zip(ids, redacted):
            assert (a == b) == (ra == rb)
        assert ra != a and ra.startswith(next(p for p in MEANINGFUL_PREFIXES if a.startswith(p)))


def test_free_text_model_and_fingerprint_are_replaced_and_keep_text_keeps_only_text():
    chunk = {"id": "chatcmpl-Q1w2", "object": "chat.completion.chunk", "model": "gpt-4o-2024-08-06",
             "system_fingerprint": "fp_cbf1785567",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Alice lives in Paris"},
                          "finish_reason": "stop"}]}
    redacted, = redact_chunks("openai-chat", [chunk], Cipher(7))
    assert redacted["id"].startswith("chatcmpl-") and redacted["id"] != chunk["id"]
    assert redacted["model"] != chunk["model"] and redacted["system_fingerprint"].startswith("fp_")
    assert redacted["system_fingerprint"] != chunk["system_fingerprint"]
    assert "Alice" not in json.dumps(redacted) and "Paris" not in json.dumps(redacted)
    assert redacted["object"] == "chat.completion.chunk" and redacted["choices"][0]["finish_reason"] == "stop"
    kept, = redact_chunks("openai-chat", [chunk], Cipher(7), keep_text=True)
    assert kept["choices"][0]["delta"]["content"] == "Alice lives in Paris"
    assert kept["id"] != chunk["id"] and kept["model"] != chunk["model"]
    assert set(ID_KEYS) >= {"id", "call_id", "item_id", "tool_use_id", "system_fingerprint"}


@pytest.mark.parametrize("secret", ["sk-proj-" + "a1B2" * 10, "Bearer eyJhbGciOiJIUzI1NiJ9.abc", "sk-ant-api03-" + "x9" * 20])
@pytest.mark.parametrize("keep_text", [False, True])
def test_api_keys_and_bearer_tokens_are_never_written(secret, keep_text):
    chunk = {"object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {"content": f"the key is {secret} ok"}, "finish_reason": None}]}
    redacted, = redact_chunks("openai-chat", [chunk], Cipher(3), keep_text=keep_text)
    assert secret not in json.dumps(redacted)
    assert not secret_locations(redacted)
    assert scrub_secrets(secret) == "X" * len(secret)


@given(seeds, json_values)
def test_raw_event_data_is_rewritten_in_place_with_its_layout(seed, value):
    chunk = {"type": "response.output_text.delta", "sequence_number": 1, "delta": "hi there", "extra": value}
    raw = json.dumps(chunk, indent=1)  # a layout the harness would not render
    redacted, = redact_chunks("openai-responses", [chunk], Cipher(seed))
    rewritten = rewrite_data(raw, chunk, redacted)
    assert json.loads(rewritten) == redacted
    assert re.sub(r'"(?:[^"\\]|\\.)*"', '""', rewritten) == re.sub(r'"(?:[^"\\]|\\.)*"', '""', raw)


def test_hyphenated_prose_is_not_taken_for_an_api_key():
    prose = "a disk-encryption-key-rotation-schedule and a task-management-system-overview"
    assert scrub_secrets(prose) == prose and not secret_locations({"text": prose})


@given(seeds, st.text(alphabet=st.characters(min_codepoint=0xC0, max_codepoint=0xD7FF), min_size=1))
def test_no_letter_digit_or_non_ascii_character_stays_itself(seed, text):
    cipher = Cipher(seed)
    assert all(a != b for a, b in zip(cipher.text(text), text))
    assert all(chr(cipher.stream().char(ord(c))) != c for c in "azAZ09 -.")


@given(seeds, json_values, st.data())
def test_arguments_re_sent_whole_on_every_fragment_stay_prefixes_of_each_other(seed, value, data):
    text = json.dumps({"q": value, "path": "src/main.rs"})
    cuts = sorted(data.draw(st.sets(st.integers(1, len(text)), min_size=1, max_size=5)) | {len(text)})
    chunks = [{"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": text[:cut]}}]}, "finish_reason": None}]} for cut in cuts]
    redacted = redact_chunks("openai-chat", chunks, Cipher(seed))
    snapshots = [c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for c in redacted]
    whole = redact_json_text(text, Cipher(seed))
    assert snapshots[-1] == whole and _shape(json.loads(whole)) == _shape(json.loads(text))
    for snapshot, cut in zip(snapshots, cuts):  # each re-sent snapshot is the whole one cut where it was
        assert len(snapshot) == cut and (whole.startswith(snapshot) or re.search(r"\\u[0-9a-fA-F]{0,3}$", snapshot))


@given(seeds, st.lists(st.text(max_size=8), min_size=1, max_size=5))
def test_a_streamed_text_and_the_done_event_repeating_it_stay_equal(seed, pieces):
    """Deltas are redacted as the text they build, so a `.done` event's whole text is still their join."""
    whole = "".join(pieces)
    chunks = [{"type": "response.output_text.delta", "sequence_number": n, "item_id": "msg_1", "output_index": 0,
               "content_index": 0, "delta": piece} for n, piece in enumerate(pieces)]
    chunks.append({"type": "response.output_text.done", "sequence_number": 9, "item_id": "msg_1", "output_index": 0,
                   "content_index": 0, "text": whole})
    redacted = redact_chunks("openai-responses", chunks, Cipher(seed))
    assert "".join(c["delta"] for c in redacted[:-1]) == redacted[-1]["text"]
    assert [len(c["delta"]) for c in redacted[:-1]] == [len(p) for p in pieces]


def test_fields_that_identify_nothing_are_kept_and_known_prefixes_survive():
    chunks = [{"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant",
               "model": "claude-x", "content": [], "usage": {"input_tokens": 1, "inference_geo": "us"}}},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "mcp_tool_use",
               "id": "mcptoolu_01AbC", "name": "f", "input": {}}}]
    redacted = redact_chunks("anthropic-messages", chunks, Cipher(5))
    assert redacted[0]["message"]["usage"]["inference_geo"] == "us"
    assert redacted[1]["content_block"]["id"].startswith("mcptoolu_") and redacted[1]["content_block"]["id"] != "mcptoolu_01AbC"
    call = {"type": "response.output_item.added", "sequence_number": 0, "output_index": 0,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "xs_call_9f8e7d", "name": "f", "arguments": ""}}
    assert redact_chunks("openai-responses", [call], Cipher(5))[0]["item"]["call_id"].startswith("xs_call_")
