"""Other valid Anthropic Messages streams of the same message: the re-chunking edits of this protocol.

- cut a text, thinking or input JSON delta in two at any character;
- merge two adjacent deltas of the same content block and type back into one;
- insert `ping` keep-alives anywhere after `message_start`.

`deltacheck.adequacy.rechunk` draws from `EDITS` (see `Edit` there for what each entry is).
"""

from __future__ import annotations

import copy

from deltacheck.adequacy.rechunk import Chunks, Edit, cut_point

# By a delta's `type`; looked up with whatever a chunk holds there.
DELTA_FIELDS: dict[object, str] = {
    "text_delta": "text",
    "input_json_delta": "partial_json",
    "thinking_delta": "thinking",
}


def _split_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i, event in enumerate(chunks):
        delta = event.get("delta") if event.get("type") == "content_block_delta" else None
        if not isinstance(delta, dict):
            continue
        field_name = DELTA_FIELDS.get(delta.get("type"))
        if field_name and isinstance(delta.get(field_name), str) and len(delta[field_name]) >= 2:
            sites.append(i)
    return sites


def _split(chunks: Chunks, i: int, cut_fraction: float) -> Chunks:
    first, second = copy.deepcopy(chunks[i]), copy.deepcopy(chunks[i])
    field_name = DELTA_FIELDS[first["delta"]["type"]]
    text = first["delta"][field_name]
    cut = cut_point(text, cut_fraction)
    first["delta"][field_name], second["delta"][field_name] = text[:cut], text[cut:]
    return chunks[:i] + [first, second] + chunks[i + 1 :]


def _merge_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        a, b = chunks[i], chunks[i + 1]
        if (
            a.get("type") == b.get("type") == "content_block_delta"
            and a.get("index") == b.get("index")
            and isinstance(a.get("delta"), dict)
            and isinstance(b.get("delta"), dict)
            and a["delta"].get("type") == b["delta"].get("type")
            and a["delta"].get("type") in DELTA_FIELDS
        ):
            sites.append(i)
    return sites


def _merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    field_name = DELTA_FIELDS[merged["delta"]["type"]]
    merged["delta"][field_name] += chunks[i + 1]["delta"][field_name]
    return chunks[:i] + [merged] + chunks[i + 2 :]


def _ping_sites(chunks: Chunks) -> list[int]:
    started = next((i for i, e in enumerate(chunks) if e.get("type") == "message_start"), None)
    if started is None:
        return []
    return list(range(started + 1, len(chunks) + 1))


def _ping(chunks: Chunks, i: int) -> Chunks:
    return chunks[:i] + [{"type": "ping"}] + chunks[i:]


# In this order: hypothesis draws an edit by its position (new edits go last).
EDITS: list[Edit] = [
    ("split", _split_sites, _split, True),
    ("merge", _merge_sites, _merge, False),
    ("ping", _ping_sites, _ping, False),
]
