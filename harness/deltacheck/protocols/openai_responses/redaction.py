"""What redaction (`deltacheck import`) knows of Responses events: which fields hold the stream's
structure, free text and ids, and where a function call's argument text arrives in fragments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Values that are the stream's structure, not content: never replaced. The `response` object echoes the
# request's settings (tool_choice, truncation, store, ...).
STRUCTURAL_KEYS = frozenset(
    {
        "type",
        "object",
        "role",
        "name",
        "status",
        "code",
        "reason",
        "service_tier",
        "tool_choice",
        "truncation",
        "phase",
        "effort",
        "verbosity",
        "event",
        "format",
        "encoding_format",
        "background",
        "parallel_tool_calls",
        "store",
        "execution",  # who runs a tool_search_call (client or server): what makes it a built-in call or not
    }
)
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset(
    {
        "content",
        "text",
        "delta",
        "refusal",
        "message",
        "instructions",
        "description",
        "title",
        "summary",
        "input",
        "arguments",
        "encrypted_content",
    }
)
# Identifiers, and the prefixes that say what they identify (kept; the rest of an id is replaced).
ID_KEYS = frozenset(
    {"id", "item_id", "call_id", "response_id", "previous_response_id", "file_id", "container_id", "conversation_id"}
)
ID_PREFIXES = (
    "resp_",
    "msg_",
    "call_",
    "fc_",
    "ctc_",
    "rs_",
    "ws_",
    "ig_",
    "mcp_",
    "ci_",
    "cfile_",
    "file-",
    "xs_call_",
)
# Opaque tokens: replaced by a token of the same length and kind.
TOKEN_KEYS = frozenset({"model", "encrypted_content"})
# Opaque blobs sent as base64 whose bytes a reference decodes: none.
BLOB_KEYS: frozenset[str] = frozenset()
# The events whose `delta` streams a text, and which of their fields say whose text it is.
STREAMED_TEXT_EVENTS = frozenset(
    {
        "response.output_text.delta",
        "response.refusal.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.custom_tool_call_input.delta",
    }
)
# A whole argument text (string, in a done event or an output item), and arguments sent already parsed.
ARGUMENT_TEXT_KEYS = frozenset({"arguments"})
TOOL_INPUT_KEYS = frozenset({"arguments"})


def argument_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(call key, holder dict, key) for each fragment of function-call argument text, in stream order."""
    for chunk in chunks:
        if chunk.get("type") == "response.function_call_arguments.delta" and isinstance(chunk.get("delta"), str):
            yield ("item", chunk.get("item_id"), chunk.get("output_index")), chunk, "delta"


def text_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """(text key, holder dict, key) for each fragment of a streamed text, in stream order."""
    for chunk in chunks:
        kind = chunk.get("type")
        if kind in STREAMED_TEXT_EVENTS and isinstance(chunk.get("delta"), str):
            where = tuple(chunk.get(k) for k in ("item_id", "output_index", "content_index", "summary_index"))
            yield ("text", kind, *where), chunk, "delta"


def blob_fragments(chunks: list[Any]) -> Iterator[tuple[tuple, Any, str]]:
    """None: no blob of this protocol arrives in base64 fragments."""
    return iter(())
