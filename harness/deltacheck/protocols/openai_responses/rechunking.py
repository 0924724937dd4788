"""Other valid Responses streams of the same message: the re-chunking edits of this protocol.

- cut a text, refusal, reasoning or arguments delta in two at any character;
- merge two adjacent deltas of the same item and field back into one;
- interleave: swap adjacent deltas of different output items once both items have been added.

Every edit renumbers `sequence_number` so that it still counts up by one.
`deltacheck.adequacy.rechunk` draws from `EDITS` (see `Edit` there for what each entry is).
"""

from __future__ import annotations

import copy
from typing import Any

from deltacheck.adequacy.rechunk import Chunks, Edit, cut_point, swap_with_next

DELTA_TYPES = {
    "response.output_text.delta",
    "response.refusal.delta",
    "response.function_call_arguments.delta",
    "response.custom_tool_call_input.delta",
    "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta",
}


def _delta_key(event: dict[str, Any]) -> tuple:
    return (event.get("type"), event.get("output_index"), event.get("content_index"), event.get("summary_index"))


def _split_sites(chunks: Chunks) -> list[int]:
    return [
        i
        for i, e in enumerate(chunks)
        if e.get("type") in DELTA_TYPES and isinstance(e.get("delta"), str) and len(e["delta"]) >= 2
    ]


def _split(chunks: Chunks, i: int, cut_fraction: float) -> Chunks:
    first, second = copy.deepcopy(chunks[i]), copy.deepcopy(chunks[i])
    cut = cut_point(first["delta"], cut_fraction)
    first["delta"], second["delta"] = first["delta"][:cut], first["delta"][cut:]
    return _renumber(chunks[:i] + [first, second] + chunks[i + 1 :])


def _merge_sites(chunks: Chunks) -> list[int]:
    return [
        i
        for i in range(len(chunks) - 1)
        if chunks[i].get("type") in DELTA_TYPES
        and _delta_key(chunks[i]) == _delta_key(chunks[i + 1])
        and chunks[i].get("item_id") == chunks[i + 1].get("item_id")
        and isinstance(chunks[i].get("delta"), str)
        and isinstance(chunks[i + 1].get("delta"), str)
    ]


def _merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    merged["delta"] += chunks[i + 1]["delta"]
    return _renumber(chunks[:i] + [merged] + chunks[i + 2 :])


def _swap_sites(chunks: Chunks) -> list[int]:
    added: dict[object, int] = {}  # by output_index, whatever the event gave
    for position, event in enumerate(chunks):
        if event.get("type") == "response.output_item.added":
            added.setdefault(event.get("output_index"), position)
    return [
        i
        for i in range(len(chunks) - 1)
        if chunks[i].get("type") in DELTA_TYPES
        and chunks[i + 1].get("type") in DELTA_TYPES
        and chunks[i].get("output_index") != chunks[i + 1].get("output_index")
        and added.get(chunks[i + 1].get("output_index"), len(chunks)) < i
    ]


def _swap(chunks: Chunks, i: int) -> Chunks:
    return _renumber(swap_with_next(chunks, i))


def _renumber(chunks: Chunks) -> Chunks:
    start = chunks[0].get("sequence_number", 0) if chunks else 0
    out = []
    for offset, event in enumerate(chunks):
        if event.get("sequence_number") != start + offset:
            event = {**event, "sequence_number": start + offset}
        out.append(event)
    return out


# In this order: hypothesis draws an edit by its position (new edits go last).
EDITS: list[Edit] = [
    ("split", _split_sites, _split, True),
    ("merge", _merge_sites, _merge, False),
    ("interleave", _swap_sites, _swap, False),
]
