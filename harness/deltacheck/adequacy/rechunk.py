"""Other valid streams of the same message: re-chunking strategies for each protocol.

`restreamings(fixture)` draws a short sequence of edits, each of which keeps the logical message
unchanged under the provider's documented semantics (and CONTRACT.md's policies):

- cut a text, refusal, reasoning or arguments fragment in two at any character (inside JSON
  escapes included: arguments are JSON text, and a cut may fall between a backslash and what it
  escapes, or inside a surrogate-pair escape);
- merge two adjacent fragments of the same field back into one;
- interleave: swap adjacent fragments that belong to different calls, items or choices;
- deliver a fragment's finish reason in a chunk of its own, or usage on the last content chunk;
- repeat a call's id and name on its continuation fragments (LM Studio and Kimi do this);
- insert `ping` keep-alives (Anthropic).

Every variant must assemble to the fixture's expected result. Examples from this strategy shrink
towards the fixture's own stream (no edits). Only fixtures whose fragments are pieces of one value
can be re-chunked this way (`is_rechunkable`).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

from hypothesis import strategies as st

from deltacheck.model import Fixture

Chunks = list[dict[str, Any]]
# Fragments that re-send the whole value so far, or a whole call again, are not pieces of one value:
# cutting or merging them changes what they say.
NOT_PIECEWISE_TAGS = frozenset({"cumulative-arguments", "duplicate-emission"})
CHAT_TEXT_FIELDS = ("content", "refusal", "reasoning_content", "reasoning")
RESPONSES_DELTAS = {
    "response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta",
    "response.custom_tool_call_input.delta", "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
}
ANTHROPIC_DELTA_FIELDS = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}


# -- edit sites ----------------------------------------------------------------------------------
# Each site finder returns the places an edit can apply; an edit is (finder, applier).


def _single_choice(chunk: Any) -> dict[str, Any] | None:
    if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list) and len(chunk["choices"]) == 1:
        choice = chunk["choices"][0]
        if isinstance(choice, dict) and isinstance(choice.get("delta"), dict):
            return choice
    return None


def _chat_split_sites(chunks: Chunks) -> list[tuple[int, str]]:
    sites = []
    for i, chunk in enumerate(chunks):
        choice = _single_choice(chunk)
        if choice is None:
            continue
        for name in CHAT_TEXT_FIELDS:
            value = choice["delta"].get(name)
            if isinstance(value, str) and len(value) >= 2:
                sites.append((i, name))
        calls = choice["delta"].get("tool_calls")
        if isinstance(calls, list) and len(calls) == 1 and isinstance(calls[0], dict):
            arguments = (calls[0].get("function") or {}).get("arguments")
            if isinstance(arguments, str) and len(arguments) >= 2:
                sites.append((i, "arguments"))
    return sites


def _chat_split(chunks: Chunks, site: tuple[int, str], cut_fraction: float) -> Chunks:
    i, name = site
    first = copy.deepcopy(chunks[i])
    choice = first["choices"][0]
    second = {k: v for k, v in first.items() if k not in ("choices", "usage")}
    rest_choice: dict[str, Any] = {"index": choice["index"], "delta": {}, "finish_reason": choice.get("finish_reason")}
    if name == "arguments":
        entry = choice["delta"]["tool_calls"][0]
        text = entry["function"]["arguments"]
        cut = _cut(text, cut_fraction)
        if entry.get("index") is None and _is_json(text[:cut]):
            return chunks  # an index-less call ends where its arguments complete (CONTRACT chat rule 5)
        entry["function"]["arguments"] = text[:cut]
        continuation: dict[str, Any] = {"function": {"arguments": text[cut:]}}
        if "index" in entry:
            continuation = {"index": entry["index"], **continuation}
        rest_choice["delta"]["tool_calls"] = [continuation]
    else:
        text = choice["delta"][name]
        cut = _cut(text, cut_fraction)
        # A reasoning text mirrored into both reasoning fields (rule 2) is cut at the same place in both.
        names = [n for n in ("reasoning_content", "reasoning") if choice["delta"].get(n) == text] \
            if name in ("reasoning_content", "reasoning") else [name]
        for field in names:
            choice["delta"][field] = text[:cut]
            rest_choice["delta"][field] = text[cut:]
    choice["finish_reason"] = None  # the finish reason (and usage) travel with the end of the fragment
    second["choices"] = [rest_choice]
    if "usage" in chunks[i]:
        second["usage"] = first["usage"]
        first["usage"] = None
    return chunks[:i] + [first, second] + chunks[i + 1:]


def _chat_pure_fragment(chunk: Any) -> tuple[int, str, Any] | None:
    """(choice index, field, tool index or None) for a chunk that carries exactly one mergeable fragment."""
    choice = _single_choice(chunk)
    if choice is None or choice.get("finish_reason") is not None or chunk.get("usage") is not None:
        return None
    delta = {k: v for k, v in choice["delta"].items() if v is not None}
    if len(delta) != 1:
        return None
    (name, value), = delta.items()
    if name in CHAT_TEXT_FIELDS and isinstance(value, str):
        return choice["index"], name, None
    if name == "tool_calls" and isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        entry = value[0]
        if set(entry) <= {"index", "function"} and set(entry.get("function") or {}) == {"arguments"} \
                and isinstance(entry["function"]["arguments"], str) and isinstance(entry.get("index"), int):
            return choice["index"], "arguments", entry["index"]
    return None


def _chat_merge_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        here, there = _chat_pure_fragment(chunks[i]), _chat_pure_fragment(chunks[i + 1])
        if here is not None and here == there:
            sites.append(i)
    return sites


def _chat_merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    delta, later = merged["choices"][0]["delta"], chunks[i + 1]["choices"][0]["delta"]
    if "tool_calls" in delta:
        delta["tool_calls"][0]["function"]["arguments"] += later["tool_calls"][0]["function"]["arguments"]
    else:
        (name,) = [k for k, v in delta.items() if v is not None]
        delta[name] += later[name]
    return chunks[:i] + [merged] + chunks[i + 2:]


def _chat_tool_slots(chunk: Any) -> set[tuple[int, int]] | None:
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


def _chat_choice_only(chunk: Any) -> int | None:
    choice = _single_choice(chunk)
    return None if choice is None or chunk.get("usage") is not None else choice["index"]


def _chat_swap_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        a, b = _chat_tool_slots(chunks[i]), _chat_tool_slots(chunks[i + 1])
        if a is not None and b is not None and not a & b and not {s[1] for s in a} & {s[1] for s in b}:
            sites.append(i)  # fragments of different calls: either order is the same message
            continue
        ca, cb = _chat_choice_only(chunks[i]), _chat_choice_only(chunks[i + 1])
        if ca is not None and cb is not None and ca != cb:
            sites.append(i)  # fragments of different choices
    return sites


def _swap(chunks: Chunks, i: int) -> Chunks:
    return chunks[:i] + [chunks[i + 1], chunks[i]] + chunks[i + 2:]


def _chat_finish_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i, chunk in enumerate(chunks):
        choice = _single_choice(chunk)
        if choice is not None and choice.get("finish_reason") is not None and any(
                v is not None for v in choice["delta"].values()):
            sites.append(i)
    return sites


def _chat_finish_apart(chunks: Chunks, i: int) -> Chunks:
    first = copy.deepcopy(chunks[i])
    choice = first["choices"][0]
    second = {k: v for k, v in first.items() if k != "choices"}
    second["choices"] = [{"index": choice["index"], "delta": {}, "finish_reason": choice["finish_reason"]}]
    choice["finish_reason"] = None
    if "usage" in first:
        first["usage"] = None
    return chunks[:i] + [first, second] + chunks[i + 1:]


def _chat_usage_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(1, len(chunks)):
        chunk, before = chunks[i], chunks[i - 1]
        if chunk.get("choices") == [] and isinstance(chunk.get("usage"), dict) and set(chunk) - {"usage", "choices"} <= set(before) \
                and isinstance(before.get("choices"), list) and before["choices"] and before.get("usage") is None:
            sites.append(i)
    return sites


def _chat_usage_on_last_content(chunks: Chunks, i: int) -> Chunks:
    before = copy.deepcopy(chunks[i - 1])
    before["usage"] = chunks[i]["usage"]
    return chunks[:i - 1] + [before] + chunks[i + 1:]


def _chat_repeat_identity_sites(chunks: Chunks) -> list[int]:
    """Continuation fragments of calls whose identity arrived once, before their arguments completed."""
    first: dict[tuple[int, int], dict[str, Any]] = {}
    identity_count: dict[tuple[int, int], int] = {}
    arguments: dict[tuple[int, int], str] = {}
    sites = []
    for i, chunk in enumerate(chunks):
        choice = _single_choice(chunk)
        calls = (choice or {}).get("delta", {}).get("tool_calls") if choice else None
        if not isinstance(calls, list):
            continue
        for entry in calls:
            if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
                return []  # index-less calls: leave them alone
            slot = (choice["index"], entry["index"])
            function = entry.get("function") or {}
            if entry.get("id") or function.get("name"):
                identity_count[slot] = identity_count.get(slot, 0) + 1
                first.setdefault(slot, {"id": entry.get("id"), "name": function.get("name")})
            elif slot in first and len(calls) == 1 and isinstance(function.get("arguments"), str) \
                    and function["arguments"] and not _is_json(arguments.get(slot, "")):
                sites.append(i)
            if isinstance(function.get("arguments"), str):
                arguments[slot] = arguments.get(slot, "") + function["arguments"]
    # a slot that received an identity twice may hold two calls (a reused index): not safe to repeat
    return [i for i in sites if identity_count.get(_slot_of(chunks[i]), 0) == 1]


def _slot_of(chunk: dict[str, Any]) -> tuple[int, int]:
    choice = chunk["choices"][0]
    return choice["index"], choice["delta"]["tool_calls"][0]["index"]


def _chat_repeat_identity(chunks: Chunks, i: int) -> Chunks:
    slot = _slot_of(chunks[i])
    identity: dict[str, Any] = {}
    for chunk in chunks[:i]:
        choice = _single_choice(chunk)
        for entry in ((choice or {}).get("delta", {}).get("tool_calls") or []) if choice else []:
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
    return chunks[:i] + [repeated] + chunks[i + 1:]


# -- Responses -----------------------------------------------------------------------------------


def _responses_key(event: dict[str, Any]) -> tuple:
    return (event.get("type"), event.get("output_index"), event.get("content_index"), event.get("summary_index"))


def _responses_split_sites(chunks: Chunks) -> list[int]:
    return [i for i, e in enumerate(chunks)
            if e.get("type") in RESPONSES_DELTAS and isinstance(e.get("delta"), str) and len(e["delta"]) >= 2]


def _responses_split(chunks: Chunks, i: int, cut_fraction: float) -> Chunks:
    first, second = copy.deepcopy(chunks[i]), copy.deepcopy(chunks[i])
    cut = _cut(first["delta"], cut_fraction)
    first["delta"], second["delta"] = first["delta"][:cut], first["delta"][cut:]
    return _renumber(chunks[:i] + [first, second] + chunks[i + 1:])


def _responses_merge_sites(chunks: Chunks) -> list[int]:
    return [i for i in range(len(chunks) - 1)
            if chunks[i].get("type") in RESPONSES_DELTAS and _responses_key(chunks[i]) == _responses_key(chunks[i + 1])
            and chunks[i].get("item_id") == chunks[i + 1].get("item_id")
            and isinstance(chunks[i].get("delta"), str) and isinstance(chunks[i + 1].get("delta"), str)]


def _responses_merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    merged["delta"] += chunks[i + 1]["delta"]
    return _renumber(chunks[:i] + [merged] + chunks[i + 2:])


def _responses_swap_sites(chunks: Chunks) -> list[int]:
    added: dict[int, int] = {}
    for position, event in enumerate(chunks):
        if event.get("type") == "response.output_item.added":
            added.setdefault(event.get("output_index"), position)
    return [i for i in range(len(chunks) - 1)
            if chunks[i].get("type") in RESPONSES_DELTAS and chunks[i + 1].get("type") in RESPONSES_DELTAS
            and chunks[i].get("output_index") != chunks[i + 1].get("output_index")
            and added.get(chunks[i + 1].get("output_index"), len(chunks)) < i]


def _responses_swap(chunks: Chunks, i: int) -> Chunks:
    return _renumber(_swap(chunks, i))


def _renumber(chunks: Chunks) -> Chunks:
    start = chunks[0].get("sequence_number", 0) if chunks else 0
    out = []
    for offset, event in enumerate(chunks):
        if event.get("sequence_number") != start + offset:
            event = {**event, "sequence_number": start + offset}
        out.append(event)
    return out


# -- Anthropic -----------------------------------------------------------------------------------


def _anthropic_split_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i, event in enumerate(chunks):
        delta = event.get("delta") if event.get("type") == "content_block_delta" else None
        field_name = ANTHROPIC_DELTA_FIELDS.get((delta or {}).get("type")) if isinstance(delta, dict) else None
        if field_name and isinstance(delta.get(field_name), str) and len(delta[field_name]) >= 2:
            sites.append(i)
    return sites


def _anthropic_split(chunks: Chunks, i: int, cut_fraction: float) -> Chunks:
    first, second = copy.deepcopy(chunks[i]), copy.deepcopy(chunks[i])
    field_name = ANTHROPIC_DELTA_FIELDS[first["delta"]["type"]]
    text = first["delta"][field_name]
    cut = _cut(text, cut_fraction)
    first["delta"][field_name], second["delta"][field_name] = text[:cut], text[cut:]
    return chunks[:i] + [first, second] + chunks[i + 1:]


def _anthropic_merge_sites(chunks: Chunks) -> list[int]:
    sites = []
    for i in range(len(chunks) - 1):
        a, b = chunks[i], chunks[i + 1]
        if a.get("type") == b.get("type") == "content_block_delta" and a.get("index") == b.get("index") \
                and isinstance(a.get("delta"), dict) and isinstance(b.get("delta"), dict) \
                and a["delta"].get("type") == b["delta"].get("type") and a["delta"].get("type") in ANTHROPIC_DELTA_FIELDS:
            sites.append(i)
    return sites


def _anthropic_merge(chunks: Chunks, i: int) -> Chunks:
    merged = copy.deepcopy(chunks[i])
    field_name = ANTHROPIC_DELTA_FIELDS[merged["delta"]["type"]]
    merged["delta"][field_name] += chunks[i + 1]["delta"][field_name]
    return chunks[:i] + [merged] + chunks[i + 2:]


def _anthropic_ping_sites(chunks: Chunks) -> list[int]:
    started = next((i for i, e in enumerate(chunks) if e.get("type") == "message_start"), None)
    if started is None:
        return []
    return list(range(started + 1, len(chunks) + 1))


def _anthropic_ping(chunks: Chunks, i: int) -> Chunks:
    return chunks[:i] + [{"type": "ping"}] + chunks[i:]


# -- the strategy --------------------------------------------------------------------------------

Edit = tuple[str, Callable[[Chunks], list], Callable[..., Chunks], bool]  # name, sites, apply, takes a cut

EDITS: dict[str, list[Edit]] = {
    "openai-chat": [
        ("split", lambda c: _chat_split_sites(c), _chat_split, True),
        ("merge", _chat_merge_sites, _chat_merge, False),
        ("interleave", _chat_swap_sites, _swap, False),
        ("finish-apart", _chat_finish_sites, _chat_finish_apart, False),
        ("usage-on-content", _chat_usage_sites, _chat_usage_on_last_content, False),
        ("repeat-identity", _chat_repeat_identity_sites, _chat_repeat_identity, False),
    ],
    "openai-responses": [
        ("split", _responses_split_sites, _responses_split, True),
        ("merge", _responses_merge_sites, _responses_merge, False),
        ("interleave", _responses_swap_sites, _responses_swap, False),
    ],
    "anthropic-messages": [
        ("split", _anthropic_split_sites, _anthropic_split, True),
        ("merge", _anthropic_merge_sites, _anthropic_merge, False),
        ("ping", _anthropic_ping_sites, _anthropic_ping, False),
    ],
}


def is_rechunkable(fixture: Fixture) -> bool:
    """A fixture with a result whose fragments are pieces of one value (not a rejected stream)."""
    return fixture.expected is not None and not NOT_PIECEWISE_TAGS & set(fixture.tags)


@st.composite
def restreamings(draw, fixture: Fixture, max_edits: int = 12) -> tuple[list[dict[str, Any]], list[str]]:
    """(chunks, the edits applied) for another valid stream of the fixture's message.

    Examples from this strategy shrink towards the fixture's own stream, with no edits.
    """
    chunks: Chunks = [copy.deepcopy(c) for c in fixture.chunks]
    applied: list[str] = []
    edits = EDITS[fixture.protocol]
    for _ in range(max_edits):
        if not draw(st.booleans()):  # "one more edit?": deleting a choice deletes an edit when shrinking
            break
        name, find_sites, apply, takes_cut = draw(st.sampled_from(edits))
        sites = find_sites(chunks)
        if not sites:
            continue
        site = draw(st.sampled_from(sites))
        if takes_cut:
            chunks = apply(chunks, site, draw(st.floats(0, 1, exclude_max=True)))
        else:
            chunks = apply(chunks, site)
        applied.append(f"{name}@{site}")
    return chunks, applied


def _cut(text: str, fraction: float) -> int:
    """A cut strictly inside the text: both halves are non-empty."""
    return 1 + int(fraction * (len(text) - 1))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return bool(text)
