"""Other valid Gemini streams of the same message: the re-chunking edits of this protocol.

- cut an unsigned text or thought part in two at any character, the second half opening a new chunk;
- separate a chunk's parts into two chunks at a part boundary;
- merge two adjacent chunks of one candidate into one (the later chunk's metadata stands);
- deliver a finish reason in a chunk of its own;
- insert an empty text part, which adds nothing (CONTRACT 3.3 gemini rule 2);
- cut a Vertex streamed string value in two at its path.

A signed part is never cut (its signature belongs to the whole part). `deltacheck.adequacy.rechunk` draws
from `EDITS` (see `Edit` there for what each entry is).
"""

from __future__ import annotations

import copy
from typing import Any

from deltacheck.adequacy.rechunk import Chunks, Edit, cut_point

FINISH_KEYS = ("finishReason", "finishMessage")


def _candidate(chunk: Any) -> dict[str, Any] | None:
    """The one candidate of a response chunk that carries exactly one (and is no error)."""
    if not isinstance(chunk, dict) or "error" in chunk:
        return None
    candidates = chunk.get("candidates")
    if isinstance(candidates, list) and len(candidates) == 1 and isinstance(candidates[0], dict):
        return candidates[0]
    return None


def _parts(chunk: Any) -> list[Any]:
    candidate = _candidate(chunk)
    content = candidate.get("content") if candidate else None
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def _with_parts(chunk: dict[str, Any], parts: list[Any], finished: bool) -> dict[str, Any]:
    """A copy of the chunk carrying these parts; its finish reason only when `finished`."""
    out = copy.deepcopy(chunk)
    candidate = out["candidates"][0]
    content = candidate.get("content") if isinstance(candidate.get("content"), dict) else {"role": "model"}
    candidate["content"] = {**content, "parts": copy.deepcopy(parts)}
    if not finished:
        for key in FINISH_KEYS:
            candidate.pop(key, None)
    return out


def _is_unsigned_text(part: Any) -> bool:
    return isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thoughtSignature")


def _cut_sites(chunks: Chunks) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, chunk in enumerate(chunks)
        for j, part in enumerate(_parts(chunk))
        if _is_unsigned_text(part) and len(part["text"]) >= 2
    ]


def _cut(chunks: Chunks, site: tuple[int, int], cut_fraction: float) -> Chunks:
    i, j = site
    parts = _parts(chunks[i])
    text = parts[j]["text"]
    cut = cut_point(text, cut_fraction)
    head, tail = dict(parts[j], text=text[:cut]), dict(parts[j], text=text[cut:])
    first = _with_parts(chunks[i], [*parts[:j], head], finished=False)
    second = _with_parts(chunks[i], [tail, *parts[j + 1 :]], finished=True)
    return chunks[:i] + [first, second] + chunks[i + 1 :]


def _separate_sites(chunks: Chunks) -> list[tuple[int, int]]:
    return [(i, j) for i, chunk in enumerate(chunks) for j in range(1, len(_parts(chunk)))]


def _separate(chunks: Chunks, site: tuple[int, int]) -> Chunks:
    i, j = site
    parts = _parts(chunks[i])
    first = _with_parts(chunks[i], parts[:j], finished=False)
    second = _with_parts(chunks[i], parts[j:], finished=True)
    return chunks[:i] + [first, second] + chunks[i + 1 :]


def _merge_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        a, b = _candidate(chunks[i]), _candidate(chunks[i + 1])
        if (
            a is not None
            and b is not None
            and a.get("index", 0) == b.get("index", 0)
            and not any(key in a for key in FINISH_KEYS)
            and "promptFeedback" not in chunks[i]
        ):
            sites.append(i)
    return sites


def _merge(chunks: Chunks, i: int) -> Chunks:
    merged = _with_parts(chunks[i + 1], _parts(chunks[i]) + _parts(chunks[i + 1]), finished=True)
    if "usageMetadata" not in merged and "usageMetadata" in chunks[i]:
        merged["usageMetadata"] = copy.deepcopy(chunks[i]["usageMetadata"])  # the last usage sent still stands
    return chunks[:i] + [merged] + chunks[i + 2 :]


def _finish_alone_sites(chunks: Chunks) -> list[int]:
    return [i for i, chunk in enumerate(chunks) if _parts(chunk) and (_candidate(chunk) or {}).get("finishReason")]


def _finish_alone(chunks: Chunks, i: int) -> Chunks:
    body = _with_parts(chunks[i], _parts(chunks[i]), finished=False)
    candidate = _candidate(chunks[i]) or {}
    finish = {key: candidate[key] for key in FINISH_KEYS if key in candidate}
    if "index" in candidate:
        finish["index"] = candidate["index"]
    tail = {key: copy.deepcopy(value) for key, value in chunks[i].items() if key != "candidates"}
    return chunks[:i] + [body, {"candidates": [finish], **tail}] + chunks[i + 1 :]


def _empty_part_sites(chunks: Chunks) -> list[tuple[int, int]]:
    return [(i, j) for i, chunk in enumerate(chunks) if _candidate(chunk) for j in range(len(_parts(chunk)) + 1)]


def _empty_part(chunks: Chunks, site: tuple[int, int]) -> Chunks:
    i, j = site
    parts = _parts(chunks[i])
    candidate = _candidate(chunks[i]) or {}
    edited = _with_parts(chunks[i], [*parts[:j], {"text": ""}, *parts[j:]], finished=True)
    if "content" not in candidate:
        edited["candidates"][0]["content"]["role"] = "model"
    return chunks[:i] + [edited] + chunks[i + 1 :]


def _string_value_sites(chunks: Chunks) -> list[tuple[int, int, int]]:
    sites = []
    for i, chunk in enumerate(chunks):
        for j, part in enumerate(_parts(chunk)):
            call = part.get("functionCall") if isinstance(part, dict) else None
            values = call.get("partialArgs") if isinstance(call, dict) else None
            for k, value in enumerate(values if isinstance(values, list) else []):
                if (
                    isinstance(value, dict)
                    and isinstance(value.get("stringValue"), str)
                    and len(value["stringValue"]) >= 2
                ):
                    sites.append((i, j, k))
    return sites


def _string_value(chunks: Chunks, site: tuple[int, int, int], cut_fraction: float) -> Chunks:
    i, j, k = site
    edited = copy.deepcopy(chunks[i])
    values = edited["candidates"][0]["content"]["parts"][j]["functionCall"]["partialArgs"]
    text = values[k]["stringValue"]
    cut = cut_point(text, cut_fraction)
    head = {**values[k], "stringValue": text[:cut], "willContinue": True}
    tail = {**values[k], "stringValue": text[cut:]}
    values[k : k + 1] = [head, tail]
    return chunks[:i] + [edited] + chunks[i + 1 :]


# In this order: hypothesis draws an edit by its position (new edits go last).
EDITS: list[Edit] = [
    ("cut", _cut_sites, _cut, True),
    ("separate", _separate_sites, _separate, False),
    ("merge", _merge_sites, _merge, False),
    ("finish-alone", _finish_alone_sites, _finish_alone, False),
    ("empty-part", _empty_part_sites, _empty_part, False),
    ("string-value", _string_value_sites, _string_value, True),
]
