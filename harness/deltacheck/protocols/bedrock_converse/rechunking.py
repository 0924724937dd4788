"""Other valid Bedrock ConverseStreams of the same message: the re-chunking edits of this protocol.

- cut a text, toolUse input or reasoning text delta in two at any character;
- merge two adjacent deltas of the same block and member back into one;
- send `metadata` just before `messageStop` instead of just after it, or the other way round (CONTRACT.md
  3.3 bedrock-converse rule 6);
- open a block that had no start event with a `contentBlockStart` whose `start` is `{}` (rule 2);
- give an event a padding field `p` of another length (rule 1).

`deltacheck.adequacy.rechunk` draws from `EDITS` (see `Edit` there for what each entry is).
"""

from __future__ import annotations

import copy
from typing import Any

from deltacheck.adequacy.rechunk import Chunks, Edit, cut_point, swap_with_next

PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _piece(chunk: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """(the dict that holds a delta's text, its key) for a text, toolUse input or reasoning text delta."""
    event = chunk.get("contentBlockDelta")
    delta = event.get("delta") if isinstance(event, dict) else None
    if not isinstance(delta, dict):
        return None
    if isinstance(delta.get("text"), str):
        return delta, "text"
    for member, key in (("toolUse", "input"), ("reasoningContent", "text")):
        holder = delta.get(member)
        if isinstance(holder, dict) and set(holder) == {key} and isinstance(holder[key], str):
            return holder, key
    return None


def _split_sites(chunks: Chunks) -> list[int]:
    return [i for i, chunk in enumerate(chunks) if (found := _piece(chunk)) and len(found[0][found[1]]) >= 2]


def _split(chunks: Chunks, i: int, cut_fraction: float) -> Chunks:
    first, second = copy.deepcopy(chunks[i]), copy.deepcopy(chunks[i])
    (a, key), (b, _) = _piece(first), _piece(second)  # type: ignore[misc]
    text = a[key]
    cut = cut_point(text, cut_fraction)
    a[key], b[key] = text[:cut], text[cut:]
    return chunks[:i] + [first, second] + chunks[i + 1 :]


def _shape(chunk: dict[str, Any]) -> tuple[Any, ...] | None:
    """(block index, delta member, key) of a delta that carries a piece, None otherwise."""
    found = _piece(chunk)
    if found is None:
        return None
    delta = chunk["contentBlockDelta"]["delta"]
    return chunk["contentBlockDelta"].get("contentBlockIndex"), next(iter(k for k in delta if k != "p")), found[1]


def _merge_sites(chunks: Chunks) -> list[int]:
    return [i for i in range(len(chunks) - 1) if (s := _shape(chunks[i])) is not None and s == _shape(chunks[i + 1])]


def _merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    holder, key = _piece(merged)  # type: ignore[misc]
    after, _ = _piece(chunks[i + 1])  # type: ignore[misc]
    holder[key] += after[key]
    return chunks[:i] + [merged] + chunks[i + 2 :]


def _order_sites(chunks: Chunks) -> list[int]:
    names = [next(iter(c), None) for c in chunks]
    return [i for i in range(len(chunks) - 1) if {names[i], names[i + 1]} == {"messageStop", "metadata"}]


def _empty_start_sites(chunks: Chunks) -> list[int]:
    """The first delta of each text or reasoning block that has no start event."""
    started: set[Any] = set()
    sites = []
    for i, chunk in enumerate(chunks):
        event = chunk.get("contentBlockStart") or chunk.get("contentBlockDelta")
        if not isinstance(event, dict):
            continue
        index = event.get("contentBlockIndex")
        if "contentBlockDelta" in chunk and index not in started:
            delta = event.get("delta")
            if isinstance(delta, dict) and ("text" in delta or "reasoningContent" in delta):
                sites.append(i)
        started.add(index)
    return sites


def _empty_start(chunks: Chunks, i: int) -> Chunks:
    index = chunks[i]["contentBlockDelta"]["contentBlockIndex"]
    return chunks[:i] + [{"contentBlockStart": {"contentBlockIndex": index, "start": {}}}] + chunks[i:]


def _pad_sites(chunks: Chunks) -> list[int]:
    return [
        i
        for i, chunk in enumerate(chunks)
        if len(chunk) == 1 and "Error" not in chunk and isinstance(next(iter(chunk.values())), dict)
    ]


def _pad(chunks: Chunks, i: int, cut_fraction: float) -> Chunks:
    padded = copy.deepcopy(chunks[i])
    next(iter(padded.values()))["p"] = PADDING[: cut_point(PADDING, cut_fraction)]
    return chunks[:i] + [padded] + chunks[i + 1 :]


# In this order: hypothesis draws an edit by its position (new edits go last).
EDITS: list[Edit] = [
    ("split", _split_sites, _split, True),
    ("merge", _merge_sites, _merge, False),
    ("metadata-order", _order_sites, swap_with_next, False),
    ("empty-start", _empty_start_sites, _empty_start, False),
    ("padding", _pad_sites, _pad, True),
]
