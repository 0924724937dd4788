"""What survives translation from one protocol to another (CONTRACT.md 6).

A gateway that reads one protocol upstream and streams another downstream is judged on what the
two protocols share. Both the expected result (in the upstream protocol's terms) and the observed
one (assembled from the downstream stream with the downstream protocol's reference) are reduced to
a *shared view*: the canonical result shape, keeping only the fields that have a counterpart in
both protocols, with finish reasons and usage mapped onto one vocabulary. The shared views are then
compared with the ordinary comparator, so pointers, axes and findings read as they do everywhere.

Each protocol declares its own side, from its words to the shared ones, and a pair is composed
from its two sides. The fields a protocol has no counterpart for are those its `capability_notes`
name (`deltacheck/protocols/<package>/__init__.py`); the rest is its package's `translation.py`:

    shared_finish(reason, detail) -> str
                             its finish reason (and detail) in the shared vocabulary, or, when it has
                             no shared word for it, itself prefixed with the protocol's name
    MERGED_FINISH_REASONS    {shared reason: the reason it says for it}: the shared reasons it cannot
                             tell apart, compared as one when it is either side of a pair
    FINISH_DETAIL            what its canonical finish_detail holds, for people; None when it has none
    USAGE_COUNTS             {shared count: where its usage object says it}: a dotted key path, or a
                             tuple of paths whose numbers add up to it (counted when the first is there)
    ALL_ZERO_USAGE_SAYS_NONE whether usage with every count 0, streamed by a gateway, means "no usage"
    OMITS_ZERO_COUNTS        (optional, default False) whether its usage object leaves out a count that
                             is 0, so a count it does not say is 0
    PART_ORDER               None when its parts keep their order; else the kinds a choice carries one
                             joined part of each, in their canonical order, the calls after them
    reasoning_text(part) -> str
                             the reasoning text of one of its canonical reasoning parts
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from deltacheck.adapter import CAPABILITIES
from deltacheck.judge.compare import normalised
from deltacheck.judge.verdict import KIND_CAPABILITY
from deltacheck.protocols import all_protocols, protocol


def _side(name: str) -> ModuleType:
    """One protocol's side of a translation: its package's `translation` module."""
    return protocol(name).part("translation")


def _lacking(name: str) -> dict[str, str]:
    """The canonical fields the protocol has none of (its capability notes): nothing carries them across."""
    return protocol(name).capability_notes


# -- finish reasons (CONTRACT.md 6.3) -------------------------------------------------------------


def shared_finish(protocol: str, reason: Any, detail: Any, pair: tuple[str, str]) -> Any:
    """The finish reason in the shared vocabulary; a value the table does not map stays itself, prefixed
    with its protocol, so it equals nothing the other protocol can say."""
    if reason is None:
        return None
    shared = _side(protocol).shared_finish(reason, detail)
    for member in pair:
        shared = _side(member).MERGED_FINISH_REASONS.get(shared, shared)
    return shared


# -- usage (CONTRACT.md 6.4) ----------------------------------------------------------------------


def _count(usage: dict[str, Any], path: str) -> Any:
    node: Any = usage
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _usage_counts(protocol: str, usage: dict[str, Any]) -> dict[str, Any]:
    """Every shared count this protocol's usage object can say, None where it did not say it."""
    counts = {}
    for key, where in _side(protocol).USAGE_COUNTS.items():
        if isinstance(where, str):
            counts[key] = _count(usage, where)
            continue
        parts = [_count(usage, path) for path in where]
        numbers = [p for p in parts if isinstance(p, (int, float)) and not isinstance(p, bool)]
        counts[key] = sum(numbers) if parts[0] is not None or (numbers and _omits_zero_counts(protocol)) else None
    return counts


def _omits_zero_counts(protocol: str) -> bool:
    return bool(getattr(_side(protocol), "OMITS_ZERO_COUNTS", False))


def _all_zero(usage: dict[str, Any]) -> bool:
    counts = [v for v in usage.values() if v is not None]
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0 for v in counts)


ZERO_WHEN_ABSENT = {"cached_input_tokens", "reasoning_tokens"}  # "none cached" is said by 0 or by silence


def shared_usage(protocol: str, usage: Any, pair: tuple[str, str]) -> Any:
    if not isinstance(usage, dict):
        return None
    if protocol != pair[0] and _side(protocol).ALL_ZERO_USAGE_SAYS_NONE and _all_zero(usage):
        return None  # the downstream protocol's way of saying it has none
    keys = set(_side(pair[0]).USAGE_COUNTS) & set(_side(pair[1]).USAGE_COUNTS)
    counts = _usage_counts(protocol, usage)
    unsaid_is_zero = _omits_zero_counts(protocol)
    if unsaid_is_zero and all(value is None for value in counts.values()):
        return None  # an object that says no count at all (Vertex's interim usageMetadata) says nothing
    out = {}
    for key in sorted(keys):
        value = counts.get(key)
        if value is None and (key in ZERO_WHEN_ABSENT or unsaid_is_zero):
            value = 0
        if value is not None:
            out[key] = value
    return out


# -- capabilities: which canonical fields have a counterpart (CONTRACT.md 6.1) --------------------

GATEWAY_EVENTS = "a gateway streams; it reports no completion events"
ONE_CHOICE = "the shared view of a translation is one choice, index 0 (CONTRACT.md 6.2)"
# The fields some protocol has no counterpart for, in the order the n/a notes have always listed them
# (results files keep it); a field only a new protocol lacks is listed after them.
NOTES_ORDER = ("item_id", "custom_tools", "annotations", "server_tools", "refusal", "multiple_choices", "builtin_tools")


def _carried_by_no_translation() -> dict[str, str]:
    """The fields no pair carries, whichever protocols it joins, and why."""
    details = [detail for detail in (_side(p.name).FINISH_DETAIL for p in all_protocols()) if detail]
    return {
        "reasoning_signature": "opaque to and different in every protocol: not comparable across a translation",
        "finish_detail": f"a protocol-specific detail ({', '.join(details)})",
        "events": GATEWAY_EVENTS,
    }


def _listing_order(capability: str) -> tuple[int, int]:
    if capability in NOTES_ORDER:
        return NOTES_ORDER.index(capability), 0
    return len(NOTES_ORDER), list(CAPABILITIES).index(capability)


def shared_capabilities(upstream: str, downstream: str) -> tuple[frozenset[str], dict[str, str]]:
    """The capabilities a translation can carry, and why each other one is n/a."""
    if upstream == downstream:
        return frozenset(CAPABILITIES) - {"events"}, {"events": GATEWAY_EVENTS}
    never = _carried_by_no_translation()
    downstream_lacks, upstream_lacks = _lacking(downstream), _lacking(upstream)
    notes: dict[str, str] = {}
    for capability in sorted({*downstream_lacks, *upstream_lacks} - set(never), key=_listing_order):
        notes[capability] = f"{downstream if capability in downstream_lacks else upstream} has no counterpart"
    notes.setdefault("multiple_choices", ONE_CHOICE)  # both sides may have several: the shared view still has one
    notes.update(never)
    return frozenset(CAPABILITIES) - set(notes), notes


# -- the shared view (CONTRACT.md 6.2) ------------------------------------------------------------


def _text(part: dict[str, Any], protocol: str) -> str:
    return _side(protocol).reasoning_text(part) if part["type"] == "reasoning" else part.get("text") or ""


def _call(part: dict[str, Any], keeps_item_id: bool) -> dict[str, Any]:
    call = {
        "type": "tool_call",
        "kind": part.get("kind"),
        "id": part.get("id"),
        "name": part.get("name"),
        "arguments": part.get("arguments"),
    }
    if keeps_item_id:
        call["item_id"] = part.get("item_id")
    if part.get("flagged"):
        call["flagged"] = True
    return call


def _keeps(part: dict[str, Any], capabilities: frozenset[str]) -> bool:
    kind = part.get("type")
    if kind == "refusal":
        return "refusal" in capabilities
    if kind == "redacted_reasoning":
        return "server_tools" in capabilities  # it has a counterpart only where server tools have one
    if kind == "server_tool_result":
        return "server_tools" in capabilities
    if kind == "tool_call":
        return KIND_CAPABILITY.get(part.get("kind"), "") in capabilities | {""}
    return kind in ("text", "reasoning")


def shared_view(result: dict[str, Any], protocol: str, pair: tuple[str, str]) -> dict[str, Any]:
    """`result` (canonical, in `protocol`'s terms) reduced to what `pair` = (upstream, downstream) shares."""
    capabilities, _ = shared_capabilities(*pair)
    keeps_item_id = not any("item_id" in _lacking(member) for member in pair)  # compared only where both have them
    # A side whose choice carries one part of each kind imposes its canonical order on the pair (the
    # upstream's, should both sides have one).
    order = next((o for o in (_side(member).PART_ORDER for member in pair) if o is not None), None)
    choices = [c for c in result.get("choices", []) if isinstance(c, dict) and c.get("index") == 0]
    out_choices = []
    for choice in choices:
        parts = [p for p in choice.get("parts", []) if isinstance(p, dict) and _keeps(p, capabilities)]
        if order is not None:
            shared_parts = _joined_in_order(parts, protocol, order, keeps_item_id)
        else:
            shared_parts = [_part(p, protocol, keeps_item_id) for p in parts]
        out_choices.append(
            {
                "index": 0,
                "parts": shared_parts,
                "finish_reason": shared_finish(
                    protocol, choice.get("finish_reason"), choice.get("finish_detail"), pair
                ),
            }
        )
    error = result.get("error")
    view = {
        "choices": out_choices,
        "usage": shared_usage(protocol, result.get("usage"), pair),
        "error": {"message": error.get("message")} if isinstance(error, dict) else None,
    }
    # The shared view has no signatures: parts a signature alone kept apart, or carried, are now plain, and
    # either protocol's equivalences for plain parts (CONTRACT.md 4: empty parts, joined neighbours) apply.
    for member in pair:
        view = normalised(view, member)
    return view


def _joined_in_order(
    parts: list[dict[str, Any]], protocol: str, order: tuple[str, ...], keeps_item_id: bool
) -> list[dict[str, Any]]:
    """The parts of each kind in `order` joined into one, in that order, then the calls in theirs: one side
    of the pair has one part of each kind and no order between them and the calls (CONTRACT.md 6.2)."""
    out: list[dict[str, Any]] = []
    for kind in order:
        text = "".join(_text(p, protocol) for p in parts if p["type"] == kind)
        if text:
            out.append({"type": kind, "text": text})
    out += [_call(p, keeps_item_id) for p in parts if p["type"] == "tool_call"]
    return out


def _part(part: dict[str, Any], protocol: str, keeps_item_id: bool) -> dict[str, Any]:
    kind = part["type"]
    if kind == "reasoning":
        return {"type": "reasoning", "text": _text(part, protocol)}
    if kind in ("text", "refusal"):
        return {"type": kind, "text": part.get("text")}
    if kind == "tool_call":
        return _call(part, keeps_item_id)
    return part


# -- identity as the gateway maps it (CONTRACT.md 6.2) --------------------------------------------


def map_gateway_ids(expected: dict[str, Any], observed: dict[str, Any]) -> dict[str, str | None]:
    """Give the observed calls whose ids the gateway made up the upstream id they stand for.

    A call keeps its upstream id, or gets one of the gateway's own: non-empty, used by no other call
    of the message. Such an id stands for the upstream call at the same position among the calls,
    unless an observed call already carries that call's id; one that stands for no upstream call is
    shown as a placeholder, not its (often random) value. Rewrites `observed` in place; returns
    {gateway id: upstream id} for the record.
    """
    want = [p for c in expected.get("choices", []) for p in c.get("parts", []) if p.get("type") == "tool_call"]
    got = [p for c in observed.get("choices", []) for p in c.get("parts", []) if p.get("type") == "tool_call"]
    upstream_ids = {p.get("id") for p in want}
    seen = [p.get("id") for p in got]
    mapping: dict[str, str | None] = {}
    for position, call in enumerate(got):
        own = call.get("id")
        if own in upstream_ids or not isinstance(own, str) or not own or seen.count(own) > 1:
            continue
        if position < len(want) and want[position].get("id") not in seen:
            mapping[own] = want[position].get("id")
            call["id"] = want[position].get("id")
        else:  # stands for no upstream call; its value, often random, would make the report differ run to run
            call["id"] = f"(an id of the gateway's own, call {position})"
    return mapping


def map_error_message(expected: dict[str, Any], observed: dict[str, Any]) -> None:
    """A gateway may wrap the upstream error's message in words of its own: one that contains the
    upstream message carries it (CONTRACT.md 6.2)."""
    want, got = expected.get("error"), observed.get("error")
    if (
        isinstance(want, dict)
        and isinstance(got, dict)
        and isinstance(want.get("message"), str)
        and isinstance(got.get("message"), str)
        and want["message"]
        and want["message"] in got["message"]
    ):
        got["message"] = want["message"]
