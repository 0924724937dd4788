"""What survives translation from one protocol to another (CONTRACT.md 6).

A gateway that reads one protocol upstream and streams another downstream is judged on what the
two protocols share. Both the expected result (in the upstream protocol's terms) and the observed
one (assembled from the downstream stream with the downstream protocol's reference) are reduced to
a *shared view*: the canonical result shape, keeping only the fields that have a counterpart in
both protocols, with finish reasons and usage mapped onto one vocabulary. The shared views are then
compared with the ordinary comparator, so pointers, axes and findings read as they do everywhere.
"""

from __future__ import annotations

from typing import Any

from deltacheck.adapter import CAPABILITIES

CHAT, RESPONSES, ANTHROPIC = "openai-chat", "openai-responses", "anthropic-messages"

# -- finish reasons (CONTRACT.md 6.3) -------------------------------------------------------------

# (protocol, finish_reason, finish_detail or None) -> the shared reason. `completed` is the shared
# reason when one side is Responses, whose status does not tell a stop from a tool call.
_FINISH = {
    CHAT: {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls", "length": "length",
           "content_filter": "content_filter"},
    ANTHROPIC: {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
                "model_context_window_exceeded": "length", "refusal": "content_filter"},
}
_RESPONSES_FINISH = {("completed", None): "completed", ("incomplete", "max_output_tokens"): "length",
                     ("incomplete", "content_filter"): "content_filter", ("failed", None): "failed"}


def shared_finish(protocol: str, reason: Any, detail: Any, pair: tuple[str, str]) -> Any:
    """The finish reason in the shared vocabulary; a value the table does not map stays itself, prefixed
    with its protocol, so it equals nothing the other protocol can say."""
    if reason is None:
        return None
    if protocol == RESPONSES:
        key = (reason, detail if reason == "incomplete" else None)
        return _RESPONSES_FINISH.get(key, f"{protocol}:{reason}" + (f"/{detail}" if detail else ""))
    mapped = _FINISH.get(protocol, {}).get(reason)
    if mapped is None:
        return f"{protocol}:{reason}"
    if RESPONSES in pair and mapped in ("stop", "tool_calls"):
        return "completed"
    return mapped


# -- usage (CONTRACT.md 6.4) ----------------------------------------------------------------------

def _count(usage: dict[str, Any], *path: str) -> Any:
    node: Any = usage
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _usage_counts(protocol: str, usage: dict[str, Any]) -> dict[str, Any]:
    """Every shared count this protocol's usage object can say, None where it did not say it."""
    if protocol == CHAT:
        return {"input_tokens": _count(usage, "prompt_tokens"), "output_tokens": _count(usage, "completion_tokens"),
                "total_tokens": _count(usage, "total_tokens"),
                "cached_input_tokens": _count(usage, "prompt_tokens_details", "cached_tokens"),
                "reasoning_tokens": _count(usage, "completion_tokens_details", "reasoning_tokens")}
    if protocol == RESPONSES:
        return {"input_tokens": _count(usage, "input_tokens"), "output_tokens": _count(usage, "output_tokens"),
                "total_tokens": _count(usage, "total_tokens"),
                "cached_input_tokens": _count(usage, "input_tokens_details", "cached_tokens"),
                "reasoning_tokens": _count(usage, "output_tokens_details", "reasoning_tokens")}
    # Anthropic's input_tokens leaves out the cached tokens; the other protocols count them in.
    parts = [_count(usage, key) for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")]
    numbers = [p for p in parts if isinstance(p, (int, float)) and not isinstance(p, bool)]
    return {"input_tokens": sum(numbers) if parts[0] is not None else None,
            "output_tokens": _count(usage, "output_tokens"),
            "cached_input_tokens": _count(usage, "cache_read_input_tokens")}


def _all_zero(usage: dict[str, Any]) -> bool:
    counts = [v for v in usage.values() if v is not None]
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0 for v in counts)


USAGE_KEYS = {CHAT: {"input_tokens", "output_tokens", "total_tokens", "cached_input_tokens", "reasoning_tokens"},
              RESPONSES: {"input_tokens", "output_tokens", "total_tokens", "cached_input_tokens", "reasoning_tokens"},
              ANTHROPIC: {"input_tokens", "output_tokens", "cached_input_tokens"}}
ZERO_WHEN_ABSENT = {"cached_input_tokens", "reasoning_tokens"}  # "none cached" is said by 0 or by silence


def shared_usage(protocol: str, usage: Any, pair: tuple[str, str]) -> Any:
    if not isinstance(usage, dict):
        return None
    if protocol == ANTHROPIC and protocol != pair[0] and _all_zero(usage):
        return None  # message_start must carry usage: all-zero counts are how a gateway says it has none
    keys = USAGE_KEYS[pair[0]] & USAGE_KEYS[pair[1]]
    counts = _usage_counts(protocol, usage)
    out = {}
    for key in sorted(keys):
        value = counts.get(key)
        if value is None and key in ZERO_WHEN_ABSENT:
            value = 0
        if value is not None:
            out[key] = value
    return out


# -- capabilities: which canonical fields have a counterpart (CONTRACT.md 6.1) --------------------

_ONLY_IN = {
    "item_id": {RESPONSES}, "custom_tools": {RESPONSES}, "annotations": {RESPONSES, ANTHROPIC},
    "server_tools": {ANTHROPIC}, "refusal": {CHAT, RESPONSES}, "multiple_choices": {CHAT},
    "reasoning_signature": set(), "finish_detail": set(), "events": set(),
}


def shared_capabilities(upstream: str, downstream: str) -> tuple[frozenset[str], dict[str, str]]:
    """The capabilities a translation can carry, and why each other one is n/a."""
    if upstream == downstream:
        return frozenset(CAPABILITIES) - {"events"}, {"events": "a gateway streams; it reports no completion events"}
    notes: dict[str, str] = {}
    for capability, protocols in _ONLY_IN.items():
        if capability == "events":
            notes[capability] = "a gateway streams; it reports no completion events"
        elif capability in ("reasoning_signature", "finish_detail"):
            notes[capability] = ("opaque to and different in every protocol: not comparable across a translation"
                                 if capability == "reasoning_signature" else
                                 "a protocol-specific detail (Responses incomplete reason, Anthropic stop_sequence)")
        elif not (upstream in protocols and downstream in protocols):
            lacking = downstream if downstream not in protocols else upstream
            notes[capability] = f"{lacking} has no counterpart"
    return frozenset(CAPABILITIES) - set(notes), notes


# -- the shared view (CONTRACT.md 6.2) ------------------------------------------------------------

def _reasoning_text(protocol: str, part: dict[str, Any]) -> str:
    text = part.get("text") or ""
    if protocol == RESPONSES and not text:  # a gateway may put raw reasoning into the summary
        return "".join(part.get("summary") or [])
    return text


def _call(part: dict[str, Any], pair: tuple[str, str]) -> dict[str, Any]:
    call = {"type": "tool_call", "kind": part.get("kind"), "id": part.get("id"), "name": part.get("name"),
            "arguments": part.get("arguments")}
    if pair == (RESPONSES, RESPONSES):
        call["item_id"] = part.get("item_id")
    if part.get("flagged"):
        call["flagged"] = True
    return call


def _keeps(part: dict[str, Any], capabilities: frozenset[str]) -> bool:
    kind = part.get("type")
    if kind == "refusal":
        return "refusal" in capabilities
    if kind == "redacted_reasoning":
        return "server_tools" in capabilities  # both sides Anthropic: only then has it a counterpart
    if kind == "server_tool_result":
        return "server_tools" in capabilities
    if kind == "tool_call":
        return {"server": "server_tools", "custom": "custom_tools"}.get(part.get("kind"), "") in capabilities | {""}
    return kind in ("text", "reasoning")


def shared_view(result: dict[str, Any], protocol: str, pair: tuple[str, str]) -> dict[str, Any]:
    """`result` (canonical, in `protocol`'s terms) reduced to what `pair` = (upstream, downstream) shares."""
    capabilities, _ = shared_capabilities(*pair)
    choices = [c for c in result.get("choices", []) if isinstance(c, dict) and c.get("index") == 0]
    out_choices = []
    for choice in choices:
        parts = [p for p in choice.get("parts", []) if isinstance(p, dict) and _keeps(p, capabilities)]
        if CHAT in pair:
            shared_parts = _chat_ordered(parts, protocol)
        else:
            shared_parts = [_part(p, protocol, pair) for p in parts]
        out_choices.append({"index": 0, "parts": shared_parts,
                            "finish_reason": shared_finish(protocol, choice.get("finish_reason"),
                                                           choice.get("finish_detail"), pair)})
    error = result.get("error")
    return {"choices": out_choices, "usage": shared_usage(protocol, result.get("usage"), pair),
            "error": {"message": error.get("message")} if isinstance(error, dict) else None}


def _chat_ordered(parts: list[dict[str, Any]], protocol: str) -> list[dict[str, Any]]:
    """Chat carries one text, one refusal and one reasoning per choice, and no order between them and
    the calls: the other side's parts of each kind are joined, in Chat's canonical order (CONTRACT 3.2)."""
    pair_chat = (CHAT, CHAT)
    out: list[dict[str, Any]] = []
    reasoning = "".join(_reasoning_text(protocol, p) for p in parts if p["type"] == "reasoning")
    if reasoning:
        out.append({"type": "reasoning", "text": reasoning})
    for kind in ("text", "refusal"):
        text = "".join(p.get("text") or "" for p in parts if p["type"] == kind)
        if text:
            out.append({"type": kind, "text": text})
    out += [_call(p, pair_chat) for p in parts if p["type"] == "tool_call"]
    return out


def _part(part: dict[str, Any], protocol: str, pair: tuple[str, str]) -> dict[str, Any]:
    kind = part["type"]
    if kind == "reasoning":
        return {"type": "reasoning", "text": _reasoning_text(protocol, part)}
    if kind in ("text", "refusal"):
        return {"type": kind, "text": part.get("text")}
    if kind == "tool_call":
        return _call(part, pair)
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
    if isinstance(want, dict) and isinstance(got, dict) and isinstance(want.get("message"), str) \
            and isinstance(got.get("message"), str) and want["message"] and want["message"] in got["message"]:
        got["message"] = want["message"]
