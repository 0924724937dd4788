"""Recorded outcomes of the reference assemblers, so a change meant to be behaviour-neutral is checked.

    .venv/bin/python tests/reference_outcomes.py    # re-record tests/data/reference_outcomes.json

For every corpus fixture the file holds what `assemble` produced: the whole result (events
included) and `last_fragment`, or the AssemblyError it raised. It also holds a digest of the
outcome on restreamings of each fixture: every fragment cut down to single characters (escapes,
keys and values split everywhere), every run of fragments of one field merged into one, and for
chat the cut stream with each call's id and name repeated on every fragment. Re-record only when a
rule of CONTRACT.md 3.3 or a fixture changed on purpose.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from deltacheck.corpus.loader import load_corpus
from deltacheck.errors import AssemblyError
from deltacheck.model import Fixture
from deltacheck.reference import assemble

RECORDED = Path(__file__).resolve().parent / "data" / "reference_outcomes.json"
Chunks = list[Any]


def outcome_of(protocol: str, chunks: Chunks) -> dict[str, Any]:
    """The reference's outcome as plain JSON: result and last_fragment, or the error it raised."""
    try:
        outcome = assemble(protocol, chunks)
    except AssemblyError as error:
        return {"error": str(error)}
    last_fragment = sorted([choice, position, chunk] for (choice, position), chunk in outcome.last_fragment.items())
    return {"result": outcome.result, "last_fragment": last_fragment}


def digest(outcome: dict[str, Any]) -> str:
    text = json.dumps(outcome, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- restreamings: built here, not by deltacheck.adequacy.rechunk, so that the recording depends on the reference only --

CHAT_TEXT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")
RESPONSES_DELTA_KEYS = ("type", "output_index", "content_index", "summary_index", "item_id")
ANTHROPIC_FIELDS = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}


def _chat_fragment(chunk: Any) -> tuple[str, str, Any] | None:
    """(field, text, tool index) of the one fragment a chat chunk carries: a text field, or the
    arguments of a single tool_calls entry (tool index: the entry's `index`, absent if it has none)."""
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
        return None
    delta = choices[0].get("delta")
    if not isinstance(delta, dict):
        return None
    found = [(name, delta[name], None) for name in CHAT_TEXT_FIELDS if isinstance(delta.get(name), str) and delta[name]]
    calls = delta.get("tool_calls")
    if isinstance(calls, list) and len(calls) == 1 and isinstance(calls[0], dict):
        function = calls[0].get("function")
        if isinstance(function, dict) and isinstance(function.get("arguments"), str) and function["arguments"]:
            found.append(("arguments", function["arguments"], calls[0].get("index", ...)))
    return found[0] if len(found) == 1 else None


def _chat_piece(choice_index: Any, name: str, piece: str, tool_index: Any) -> dict[str, Any]:
    if name != "arguments":
        delta: dict[str, Any] = {name: piece}
    else:
        entry: dict[str, Any] = {"function": {"arguments": piece}}
        if tool_index is not ...:
            entry = {"index": tool_index, **entry}
        delta = {"tool_calls": [entry]}
    return {"choices": [{"index": choice_index, "delta": delta, "finish_reason": None}]}


def _chat_with(chunk: dict[str, Any], name: str, text: str) -> dict[str, Any]:
    """A copy of a one-fragment chunk carrying `text` as its fragment."""
    copied = copy.deepcopy(chunk)
    delta = copied["choices"][0]["delta"]
    if name == "arguments":
        delta["tool_calls"][0]["function"]["arguments"] = text
    else:
        delta[name] = text
    return copied


def _chat_characters(chunks: Chunks) -> Chunks:
    """Each one-fragment chunk: the chunk with the first character, then a chunk per character;
    the finish reason and usage travel with the last one."""
    out: Chunks = []
    for chunk in chunks:
        fragment = _chat_fragment(chunk)
        if fragment is None or len(fragment[1]) < 2:
            out.append(chunk)
            continue
        name, text, tool_index = fragment
        first = _chat_with(chunk, name, text[0])
        choice = first["choices"][0]
        pieces = [_chat_piece(choice.get("index"), name, char, tool_index) for char in text[1:]]
        pieces[-1]["choices"][0]["finish_reason"] = choice.get("finish_reason")
        choice["finish_reason"] = None
        if "usage" in first:
            pieces[-1]["usage"] = first.pop("usage")
        out += [first, *pieces]
    return out


def _chat_merged(chunks: Chunks) -> Chunks:
    """A chunk that carries only a fragment merged into the chunk before it when that one carries a
    fragment of the same field (and call) and no finish reason or usage."""
    out: Chunks = []
    for chunk in chunks:
        fragment = _chat_fragment(chunk)
        previous = _chat_fragment(out[-1]) if out else None
        if fragment and previous and _chat_bare(chunk) and _chat_open(out[-1]) \
                and (fragment[0], fragment[2]) == (previous[0], previous[2]) \
                and chunk["choices"][0].get("index") == out[-1]["choices"][0].get("index"):
            out[-1] = _chat_with(out[-1], previous[0], previous[1] + fragment[1])
        else:
            out.append(chunk)
    return out


def _chat_open(chunk: dict[str, Any]) -> bool:
    """No finish reason and no usage: the chunk says nothing that must stay after its fragment."""
    return chunk.get("usage") is None and chunk["choices"][0].get("finish_reason") is None


def _chat_bare(chunk: dict[str, Any]) -> bool:
    """A fragment and nothing else (no id, name, role, finish reason or usage): it can join the one before."""
    fragment = _chat_fragment(chunk)
    choice = chunk["choices"][0]
    return (fragment is not None and _chat_open(chunk)
            and {k: v for k, v in choice["delta"].items() if v is not None} == _chat_piece(None, *fragment)["choices"][0]["delta"])


def _chat_identity_repeated(chunks: Chunks) -> Chunks:
    """Each call's first id and name repeated on every later fragment of its index (as LM Studio does)."""
    identity: dict[tuple[Any, Any], dict[str, Any]] = {}
    out: Chunks = []
    for chunk in chunks:
        fragment = _chat_fragment(chunk)
        if fragment is None or fragment[0] != "arguments" or fragment[2] is ...:
            out.append(chunk)
            continue
        key = (chunk["choices"][0].get("index"), fragment[2])
        entry = chunk["choices"][0]["delta"]["tool_calls"][0]
        if key not in identity:
            identity[key] = {"id": entry.get("id"), "name": entry["function"].get("name")}
        repeated = copy.deepcopy(chunk)
        entry = repeated["choices"][0]["delta"]["tool_calls"][0]
        entry.setdefault("id", identity[key]["id"])
        entry["function"].setdefault("name", identity[key]["name"])
        out.append(repeated)
    return out


def _field_of(protocol: str, event: Any) -> str | None:
    """The field of a Responses or Anthropic delta event that carries a text fragment."""
    if not isinstance(event, dict):
        return None
    if protocol == "openai-responses":
        kind = event.get("type")
        return "delta" if isinstance(kind, str) and kind.endswith(".delta") and isinstance(event.get("delta"), str) else None
    delta = event.get("delta") if event.get("type") == "content_block_delta" else None
    name = ANTHROPIC_FIELDS.get(delta.get("type")) if isinstance(delta, dict) else None
    return name if name and isinstance(delta.get(name), str) else None


def _event_text(protocol: str, event: dict[str, Any], name: str) -> str:
    return event[name] if protocol == "openai-responses" else event["delta"][name]


def _event_with(protocol: str, event: dict[str, Any], name: str, text: str) -> dict[str, Any]:
    copied = copy.deepcopy(event)
    (copied if protocol == "openai-responses" else copied["delta"])[name] = text
    return copied


def _event_characters(protocol: str, chunks: Chunks) -> Chunks:
    out: Chunks = []
    for event in chunks:
        name = _field_of(protocol, event)
        text = _event_text(protocol, event, name) if name else ""
        out += [_event_with(protocol, event, name, char) for char in text] if len(text) >= 2 else [event]
    return out


def _event_merged(protocol: str, chunks: Chunks) -> Chunks:
    out: Chunks = []
    for event in chunks:
        name = _field_of(protocol, event)
        previous = out[-1] if out else None
        same_place = name is not None and name == _field_of(protocol, previous) and (
            all(event.get(k) == previous.get(k) for k in RESPONSES_DELTA_KEYS) if protocol == "openai-responses"
            else event.get("index") == previous.get("index") and event["delta"]["type"] == previous["delta"]["type"])
        if same_place:
            joined = _event_text(protocol, previous, name) + _event_text(protocol, event, name)
            out[-1] = _event_with(protocol, previous, name, joined)
        else:
            out.append(event)
    return out


def restreamings(fixture: Fixture) -> dict[str, Chunks]:
    """Deterministic other streams of the fixture (its message may differ: only the outcome is compared)."""
    chunks = list(fixture.chunks)
    if fixture.protocol == "openai-chat":
        characters = _chat_characters(chunks)
        return {"characters": characters, "merged": _chat_merged(chunks),
                "characters-with-identity": _chat_identity_repeated(characters)}
    return {"characters": _event_characters(fixture.protocol, chunks), "merged": _event_merged(fixture.protocol, chunks)}


def record_of(fixture: Fixture) -> dict[str, Any]:
    return {"protocol": fixture.protocol, **outcome_of(fixture.protocol, list(fixture.chunks)),
            "restreamings": {name: digest(outcome_of(fixture.protocol, chunks))
                             for name, chunks in restreamings(fixture).items()}}


def main() -> None:
    corpus = load_corpus(check_reference=False)
    records = {fixture.id: record_of(fixture) for fixture in sorted(corpus.fixtures, key=lambda f: f.id)}
    RECORDED.parent.mkdir(parents=True, exist_ok=True)
    RECORDED.write_text(json.dumps({"corpus_version": corpus.version, "fixtures": records}, indent=1,
                                   ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    variants = sum(len(r["restreamings"]) for r in records.values())
    print(f"recorded {len(records)} fixtures and {variants} restreamings into {RECORDED}")


if __name__ == "__main__":
    main()
