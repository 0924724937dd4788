"""What redaction (`deltacheck import`) knows of Chat Completions chunks: which fields hold the stream's
structure, free text and ids, and where a tool call's argument text arrives in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from deltacheck.errors import AssemblyError
from deltacheck.protocols.openai_chat.reference import ChatAssembler

# Values that are the stream's structure, not content: never replaced.
STRUCTURAL_KEYS = frozenset({"type", "object", "role", "name", "finish_reason", "stop_reason", "code", "service_tier"})
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset({"content", "refusal", "reasoning_content", "reasoning", "arguments", "message"})
# Identifiers, and the prefixes that say what they identify (kept; the rest of an id is replaced).
ID_KEYS = frozenset({"id", "system_fingerprint"})
ID_PREFIXES = ("chatcmpl-", "call_", "fp_", "file_", "xs_call_")
# Opaque tokens: replaced by a token of the same length and kind.
TOKEN_KEYS = frozenset({"model"})
# Opaque blobs sent as base64 whose bytes a reference decodes: none.
BLOB_KEYS: frozenset[str] = frozenset()
# Texts a choice streams in fragments: each is redacted as the whole text it builds.
STREAMED_TEXT_KEYS = ("content", "refusal", "reasoning_content", "reasoning")
# A whole argument text (string), and arguments a gateway sends already parsed (their keys are the tool's).
ARGUMENT_TEXT_KEYS = frozenset({"arguments"})
TOOL_INPUT_KEYS = frozenset({"arguments"})


def argument_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(call key, holder dict, key) for each fragment of tool-call argument text, in stream order.

    A fragment belongs to the call the reference appends it to (an index-less continuation of a call sent
    with an index is that call's, CONTRACT 3.3 openai-chat rule 5); past what the reference can assemble,
    to the call its choice and tool index name.
    """
    owners = _call_of_each_fragment(chunks)
    for chunk in chunks:
        for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            for call in delta.get("tool_calls") or [] if isinstance(delta.get("tool_calls"), list) else []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                    owner = owners.get(id(fn))
                    key = ("call", owner) if owner is not None else ("call", choice.get("index"), call.get("index"))
                    yield key, fn, "arguments"
            fc = delta.get("function_call")
            if isinstance(fc, dict) and isinstance(fc.get("arguments"), str):
                yield ("function_call", choice.get("index")), fc, "arguments"


def text_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(text key, holder dict, key) for each fragment of a choice's streamed text, in stream order."""
    for chunk in chunks:
        for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict):
                for key in STREAMED_TEXT_KEYS:
                    if isinstance(delta.get(key), str):
                        yield ("text", choice.get("index"), key), delta, key


def _call_of_each_fragment(chunks: list[Any]) -> dict[int, int]:
    """id of each tool-call `function` object -> the number of the call the reference gave its arguments to."""
    owners: dict[int, int] = {}
    numbers: dict[int, int] = {}

    class Tracing(ChatAssembler):
        entry: Any = None

        def _feed_tool_call(self, n: int, choice: Any, entry: Any) -> None:
            self.entry = entry
            try:
                super()._feed_tool_call(n, choice, entry)
            finally:
                self.entry = None

        def _record(self, call: Any) -> None:
            function = self.entry.get("function") if isinstance(self.entry, dict) else None
            if isinstance(function, dict):
                owners[id(function)] = numbers.setdefault(id(call), len(numbers))

        def _add_arguments(self, n: int, call: Any, value: Any) -> None:
            self._record(call)
            super()._add_arguments(n, call, value)

        def _take_call_emitted_again(self, n: int, call: Any, arguments: Any) -> None:  # type: ignore[override]
            self._record(call)
            super()._take_call_emitted_again(n, call, arguments)

    assembler = Tracing()
    try:
        for n, chunk in enumerate(chunks):
            assembler.feed(n, chunk)
    except AssemblyError:
        pass  # a stream the reference rejects: what it assembled so far is known, the rest keeps its index
    return owners


def blob_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """None: no blob of this protocol arrives in base64 fragments."""
    return iter(())
