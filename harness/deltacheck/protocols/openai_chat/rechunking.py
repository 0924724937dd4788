"""Other valid Chat Completions streams of the same message: the re-chunking edits of this protocol.

- cut a text, refusal, reasoning or arguments fragment in two at any character (a reasoning text
  mirrored into both reasoning fields is cut at the same place in both);
- merge two adjacent fragments of the same field back into one;
- interleave: swap adjacent fragments that belong to different calls or choices;
- deliver a fragment's finish reason in a chunk of its own, or usage on the last content chunk;
- repeat a call's id and name on its continuation fragments (LM Studio and Kimi do this).

`deltacheck.adequacy.rechunk` draws from `EDITS` (see `Edit` there for what each entry is).
"""

from __future__ import annotations

import copy
from typing import Any

from deltacheck.adequacy.rechunk import Chunks, Edit, cut_point, is_json, swap_with_next

TEXT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")


def _single_choice(chunk: Any) -> dict[str, Any] | None:
    if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list) and len(chunk["choices"]) == 1:
        choice = chunk["choices"][0]
        if isinstance(choice, dict) and isinstance(choice.get("delta"), dict):
            return choice
    return None


def _split_sites(chunks: Chunks) -> list[tuple[int, str]]:
    sites = []
    for i, chunk in enumerate(chunks):
        choice = _single_choice(chunk)
        if choice is None:
            continue
        for name in TEXT_FIELDS:
            value = choice["delta"].get(name)
            if isinstance(value, str) and len(value) >= 2:
                sites.append((i, name))
        calls = choice["delta"].get("tool_calls")
        if isinstance(calls, list) and len(calls) == 1 and isinstance(calls[0], dict):
            arguments = (calls[0].get("function") or {}).get("arguments")
            if isinstance(arguments, str) and len(arguments) >= 2:
                sites.append((i, "arguments"))
    return sites


def _split(chunks: Chunks, site: tuple[int, str], cut_fraction: float) -> Chunks:
    i, name = site
    first = copy.deepcopy(chunks[i])
    choice = first["choices"][0]
    second = {k: v for k, v in first.items() if k not in ("choices", "usage")}
    rest_choice: dict[str, Any] = {"index": choice["index"], "delta": {}, "finish_reason": choice.get("finish_reason")}
    if name == "arguments":
        entry = choice["delta"]["tool_calls"][0]
        text = entry["function"]["arguments"]
        cut = cut_point(text, cut_fraction)
        if entry.get("index") is None and is_json(text[:cut]):
            return chunks  # an index-less call ends where its arguments complete (CONTRACT chat rule 5)
        entry["function"]["arguments"] = text[:cut]
        continuation: dict[str, Any] = {"function": {"arguments": text[cut:]}}
        if "index" in entry:
            continuation = {"index": entry["index"], **continuation}
        rest_choice["delta"]["tool_calls"] = [continuation]
    else:
        text = choice["delta"][name]
        cut = cut_point(text, cut_fraction)
        # A reasoning text mirrored into both reasoning fields (rule 2) is cut at the same place in both.
        names = (
            [n for n in ("reasoning_content", "reasoning") if choice["delta"].get(n) == text]
            if name in ("reasoning_content", "reasoning")
            else [name]
        )
        for field in names:
            choice["delta"][field] = text[:cut]
            rest_choice["delta"][field] = text[cut:]
    choice["finish_reason"] = None  # the finish reason (and usage) travel with the end of the fragment
    second["choices"] = [rest_choice]
    if "usage" in chunks[i]:
        second["usage"] = first["usage"]
        first["usage"] = None
    return chunks[:i] + [first, second] + chunks[i + 1 :]


def _pure_fragment(chunk: Any) -> tuple[int, str, Any] | None:
    """(choice index, field, tool index or None) for a chunk that carries exactly one mergeable fragment."""
    choice = _single_choice(chunk)
    if choice is None or choice.get("finish_reason") is not None or chunk.get("usage") is not None:
        return None
    delta = {k: v for k, v in choice["delta"].items() if v is not None}
    if len(delta) != 1:
        return None
    ((name, value),) = delta.items()
    if name in TEXT_FIELDS and isinstance(value, str):
        return choice["index"], name, None
    if name == "tool_calls" and isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        entry = value[0]
        if (
            set(entry) <= {"index", "function"}
            and set(entry.get("function") or {}) == {"arguments"}
            and isinstance(entry["function"]["arguments"], str)
            and isinstance(entry.get("index"), int)
        ):
            return choice["index"], "arguments", entry["index"]
    return None


def _merge_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        here, there = _pure_fragment(chunks[i]), _pure_fragment(chunks[i + 1])
        if here is not None and here == there:
            sites.append(i)
    return sites


def _merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    delta, later = merged["choices"][0]["delta"], chunks[i + 1]["choices"][0]["delta"]
    if "tool_calls" in delta:
        delta["tool_calls"][0]["function"]["arguments"] += later["tool_calls"][0]["function"]["arguments"]
    else:
        (name,) = [k for k, v in delta.items() if v is not None]
        delta[name] += later[name]
    return chunks[:i] + [merged] + chunks[i + 2 :]


def _tool_slots(chunk: Any) -> set[tuple[int, int]] | None:
    """The (choice, tool index) slots a pure tool-call chunk touches; None if it is anything else."""
    choice = _single_choice(chunk)
    if choice is None or choice.get("finish_reason") is not None or chunk.get("usage") is not None:
        return None
    delta = {k: v for k, v in choice["delta"].items() if v is not None}
    if set(delta) != {"tool_calls"} or not delta["tool_calls"]:
        return None
    slots = set()
    for entry in delta["tool_calls"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
            return None
        slots.add((choice["index"], entry["index"]))
    return slots


def _choice_only(chunk: Any) -> int | None:
    choice = _single_choice(chunk)
    return None if choice is None or chunk.get("usage") is not None else choice["index"]


def _swap_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        a, b = _tool_slots(chunks[i]), _tool_slots(chunks[i + 1])
        if a is not None and b is not None and not a & b and not {s[1] for s in a} & {s[1] for s in b}:
            sites.append(i)  # fragments of different calls: either order is the same message
            continue
        ca, cb = _choice_only(chunks[i]), _choice_only(chunks[i + 1])
        if ca is not None and cb is not None and ca != cb:
            sites.append(i)  # fragments of different choices
    return sites


def _finish_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i, chunk in enumerate(chunks):
        choice = _single_choice(chunk)
        if (
            choice is not None
            and choice.get("finish_reason") is not None
            and any(v is not None for v in choice["delta"].values())
        ):
            sites.append(i)
    return sites


def _finish_apart(chunks: Chunks, i: int) -> Chunks:
    first = copy.deepcopy(chunks[i])
    choice = first["choices"][0]
    second = {k: v for k, v in first.items() if k != "choices"}
    second["choices"] = [{"index": choice["index"], "delta": {}, "finish_reason": choice["finish_reason"]}]
    choice["finish_reason"] = None
    if "usage" in first:
        first["usage"] = None
    return chunks[:i] + [first, second] + chunks[i + 1 :]


def _usage_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(1, len(chunks)):
        chunk, before = chunks[i], chunks[i - 1]
        if (
            chunk.get("choices") == []
            and isinstance(chunk.get("usage"), dict)
            and set(chunk) - {"usage", "choices"} <= set(before)
            and isinstance(before.get("choices"), list)
            and before["choices"]
            and before.get("usage") is None
        ):
            sites.append(i)
    return sites


def _usage_on_last_content(chunks: Chunks, i: int) -> Chunks:
    before = copy.deepcopy(chunks[i - 1])
    before["usage"] = chunks[i]["usage"]
    return chunks[: i - 1] + [before] + chunks[i + 1 :]


def _repeat_identity_sites(chunks: Chunks) -> list[int]:
    """Continuation fragments of calls whose identity arrived once, before their arguments completed."""
    first: dict[tuple[int, int], dict[str, Any]] = {}
    identity_count: dict[tuple[int, int], int] = {}
    arguments: dict[tuple[int, int], str] = {}
    sites = []
    for i, chunk in enumerate(chunks):
        choice = _single_choice(chunk)
        calls = (choice or {}).get("delta", {}).get("tool_calls") if choice else None
        if choice is None or not isinstance(calls, list):
            continue
        for entry in calls:
            if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
                return []  # index-less calls: leave them alone
            slot = (choice["index"], entry["index"])
            function = entry.get("function") or {}
            if entry.get("id") or function.get("name"):
                identity_count[slot] = identity_count.get(slot, 0) + 1
                first.setdefault(slot, {"id": entry.get("id"), "name": function.get("name")})
            elif (
                slot in first
                and len(calls) == 1
                and isinstance(function.get("arguments"), str)
                and function["arguments"]
                and not is_json(arguments.get(slot, ""))
            ):
                sites.append(i)
            if isinstance(function.get("arguments"), str):
                arguments[slot] = arguments.get(slot, "") + function["arguments"]
    # a slot that received an identity twice may hold two calls (a reused index): not safe to repeat
    return [i for i in sites if identity_count.get(_slot_of(chunks[i]), 0) == 1]


def _slot_of(chunk: dict[str, Any]) -> tuple[int, int]:
    choice = chunk["choices"][0]
    return choice["index"], choice["delta"]["tool_calls"][0]["index"]


def _repeat_identity(chunks: Chunks, i: int) -> Chunks:
    slot = _slot_of(chunks[i])
    identity: dict[str, Any] = {}
    for chunk in chunks[:i]:
        choice = _single_choice(chunk)
        if choice is None:
            continue
        for entry in choice["delta"].get("tool_calls") or []:
            if (choice["index"], entry.get("index")) == slot:
                if entry.get("id") and "id" not in identity:
                    identity["id"] = entry["id"]
                name = (entry.get("function") or {}).get("name")
                if name and "name" not in identity:
                    identity["name"] = name
    repeated = copy.deepcopy(chunks[i])
    entry = repeated["choices"][0]["delta"]["tool_calls"][0]
    if "id" in identity:
        entry["id"] = identity["id"]
    if "name" in identity:
        entry["function"]["name"] = identity["name"]
    return chunks[:i] + [repeated] + chunks[i + 1 :]


# In this order: hypothesis draws an edit by its position (new edits go last).
EDITS: list[Edit] = [
    ("split", _split_sites, _split, True),
    ("merge", _merge_sites, _merge, False),
    ("interleave", _swap_sites, swap_with_next, False),
    ("finish-apart", _finish_sites, _finish_apart, False),
    ("usage-on-content", _usage_sites, _usage_on_last_content, False),
    ("repeat-identity", _repeat_identity_sites, _repeat_identity, False),
]
