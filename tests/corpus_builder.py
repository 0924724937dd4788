"""Build small throwaway corpora for tests, from the real schemas and vocabulary."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

from deltacheck.corpus.loader import DEFAULT_CORPUS

TEXT_FIXTURE = {
    "id": "DC-T3ST",
    "title": "plain text in two deltas is joined",
    "protocol": "openai-chat",
    "tags": ["text"],
    "provenance": {"kind": "synthetic", "source": "tests"},
    "basis": {"kind": "documented", "source": "https://platform.openai.com/docs/api-reference/chat-streaming (a rule the tests stand for)"},
    "chunks": [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]},
    ],
    "expected": {
        "choices": [{"index": 0, "parts": [{"type": "text", "text": "Hello", "annotations": []}],
                     "finish_reason": "stop", "finish_detail": None}],
        "usage": None,
        "error": None,
    },
}

TOOL_FIXTURE = {
    "id": "DC-T00K",
    "title": "two calls at indices 0 and 1 are both kept",
    "protocol": "openai-chat",
    "tags": ["tool-call", "parallel-calls"],
    "provenance": {"kind": "synthetic", "source": "tests"},
    "basis": {"kind": "documented", "source": "https://platform.openai.com/docs/api-reference/chat-streaming (a rule the tests stand for)"},
    "chunks": [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{\"q\":"}}]}, "finish_reason": None}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 1, "id": "call_b", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\":1}"}}]}, "finish_reason": None}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": "\"x\"}"}}]}, "finish_reason": "tool_calls"}]},
    ],
    "expected": {
        "choices": [{"index": 0, "parts": [
            {"type": "tool_call", "kind": "function", "id": "call_a", "item_id": None, "name": "search", "arguments": "{\"q\":\"x\"}"},
            {"type": "tool_call", "kind": "function", "id": "call_b", "item_id": None, "name": "lookup", "arguments": "{\"id\":1}"},
        ], "finish_reason": "tool_calls", "finish_detail": None}],
        "usage": None,
        "error": None,
    },
}


def fixture(base: dict, **changes) -> dict:
    out = copy.deepcopy(base)
    out.update(changes)
    return out


def make_corpus(root: Path, files: dict[str, object]) -> Path:
    """A corpus at root/corpus with the real schema, tags and servers, and the given fixture files.

    Values are dicts (written as JSON) or str (written verbatim, for broken files).
    """
    corpus = root / "corpus"
    shutil.copytree(DEFAULT_CORPUS / "schema", corpus / "schema")
    shutil.copy(DEFAULT_CORPUS / "tags.json", corpus / "tags.json")
    shutil.copy(DEFAULT_CORPUS / "servers.json", corpus / "servers.json")
    (corpus / "VERSION").write_text("9.9.9\n")
    for name, content in files.items():
        path = corpus / "fixtures" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return corpus
