"""Canonical comparison: where an observed result departs from an expected one, and on which axis.

CONTRACT.md section 4. Pointers always point into the *expected* result, so a maintainer can look
the field up in the fixture.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from deltacheck.json_spec import NotJson, TooDeepToRead
from deltacheck.json_spec import parse as parse_json
from deltacheck.protocols import protocol as protocol_spec

AXES = ("content", "identity", "arguments", "ordering", "finish", "usage", "events")
IDENTITY_FIELDS = {"kind", "id", "item_id", "name"}
GAP_COST = 6  # above the field count of any part, so pairing a part beats dropping it


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()


@dataclass(frozen=True)
class Divergence:
    pointer: str
    axis: str
    expected: Any
    observed: Any
    note: str = ""

    def describe(self) -> str:
        if self.note:
            return f"{self.pointer}: {self.note}" if self.pointer else self.note
        if self.observed is MISSING:
            return f"{self.pointer}: expected {_short(self.expected)}, missing"
        if self.expected is MISSING:
            return f"{self.pointer}: unexpected {_short(self.observed)}"
        return f"{self.pointer}: expected {_short(self.expected)}, got {_short(self.observed)}"

    @property
    def kind(self) -> str:
        """What kind of divergence, for grouping failures into findings: missing, unexpected,
        invented (null expected), lost (null observed), differs, or the event rule it breaks."""
        if self.axis == "events":
            return _event_kind(self.note)
        if self.observed is MISSING:
            return "missing"
        if self.expected is MISSING:
            return "unexpected"
        if self.expected is None:
            return "invented"
        if self.observed is None:
            return "lost"
        return "differs"

    def place(self) -> str:
        """The pointer with indices generalised, and the part type where a whole part diverges."""
        place = "/".join("*" if token.isdigit() else token for token in self.pointer.split("/"))
        whole = self.expected if isinstance(self.expected, dict) else self.observed
        if isinstance(whole, dict) and isinstance(whole.get("type"), str):
            place += f" ({whole['type']})"
        return place

    def to_json(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "axis": self.axis,
            "kind": self.kind,
            "place": self.place(),
            "message": self.describe(),
        }


def _event_kind(note: str) -> str:
    for phrase, kind in (
        ("never completed", "never completed"),
        (" times", "completed more than once"),
        ("completed with arguments", "completed with other arguments"),
        ("before its last fragment", "completed before its last fragment"),
        ("does not exist", "completed a call that does not exist"),
        ("returned none", "no events"),
    ):
        if phrase in note:
            return kind
    return "differs"


def json_equal(a: Any, b: Any) -> bool:
    """JSON value equality: object key order is irrelevant, booleans are never numbers."""
    return a == b and _same_kinds(a, b)  # `==` runs in C; it only confuses True with 1


NUMBERS = (int, float, Decimal)  # Decimal: what json_spec.parse makes of numbers int and float cannot hold


def confusable_leaves(value: Any, here: tuple = ()) -> tuple[tuple[tuple, Any], ...]:
    """(path, leaf) for every boolean, and every number `==` would take for one (0 and 1), in `value`.

    Where two values are `==`, these are the only places a boolean can stand for a number: a
    judge that compares one expected result many times checks just these (`equal_to_known`).
    """
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return ((here, value),) if type(value) is bool or (type(value) in NUMBERS and value in (0, 1)) else ()
    return tuple(leaf for key, item in items for leaf in confusable_leaves(item, (*here, key)))


def equal_to_known(observed: Any, expected: Any, leaves: tuple[tuple[tuple, Any], ...]) -> bool:
    """`json_equal(observed, expected)`, given `confusable_leaves(expected)`."""
    if observed != expected:
        return False
    for path, leaf in leaves:
        value = observed
        for key in path:
            value = value[key]
        if (type(value) is bool) is not (type(leaf) is bool):
            return False
    return True


def _same_kinds(a: Any, b: Any) -> bool:
    """For two values already `==`: no boolean stands where the other side has a number.

    `==` already guarantees that text, null, objects and lists match in kind, so only numbers and
    booleans are looked at. (A judge comparing one expected result many times uses
    `equal_to_known`, which looks only where a boolean could stand.)
    """
    if type(a) is dict:
        return all(_same_kinds(value, b[key]) for key, value in a.items())
    if type(a) is list:
        return all(map(_same_kinds, a, b))
    return type(a) is type(b) or (type(a) in NUMBERS and type(b) in NUMBERS)


def arguments_equal(expected: Any, observed: Any) -> bool:
    """Parsed-JSON equality when the expected text is JSON (RFC 8259: json_spec); byte equality otherwise
    (CONTRACT 4). Numbers compare exactly, a 5000-digit integer or 1e400 included; NaN is no JSON."""
    if not isinstance(expected, str) or not isinstance(observed, str):
        return expected == observed
    try:
        want = parse_json(expected)
    except NotJson:
        return expected == observed
    except TooDeepToRead:  # JSON, but too deep to compare as values: the same text is the same value
        return expected == observed
    try:
        got = parse_json(observed)
    except NotJson:
        return False
    except TooDeepToRead:
        return expected == observed
    return json_equal(want, got)


NO_ARGUMENTS = "{}"


def normalised(result: dict[str, Any], protocol: str | None = None) -> dict[str, Any]:
    """A result with the CONTRACT 4 equivalences applied: one place, for every adapter and every fixture.

    `protocol`: the protocol the result is of; where its canonical form omits empty parts (CONTRACT
    3.2, Chat), an empty text, refusal or reasoning part is no part; where it joins plain text parts
    (Gemini), neighbouring text (or reasoning) parts that carry nothing but text are one part.
    """
    if protocol is not None and protocol_spec(protocol).empty_parts_omitted:
        result = _without_empty_parts(result)
    if protocol is not None and protocol_spec(protocol).plain_text_parts_join:
        result = _plain_text_parts_joined(result)
    error = result.get("error")
    if isinstance(error, dict) and isinstance(error.get("type"), int) and not isinstance(error.get("type"), bool):
        result = {**result, "error": {**error, "type": str(error["type"])}}
    if isinstance(result.get("usage"), dict):
        result = {**result, "usage": _without_null_keys(result["usage"])}
    choices = result.get("choices")
    if isinstance(choices, list) and any(
        _needs_spelling(p)
        for c in choices
        if isinstance(c, dict)
        for p in c.get("parts", [])
        if isinstance(c.get("parts"), list)
    ):
        result = {**result, "choices": [_with_arguments_spelled_once(c) for c in choices]}
    events = result.get("events")
    if isinstance(events, list) and any(isinstance(e, dict) and is_no_arguments(e.get("arguments")) for e in events):
        result = {
            **result,
            "events": [
                {**e, "arguments": NO_ARGUMENTS} if isinstance(e, dict) and is_no_arguments(e.get("arguments")) else e
                for e in events
            ],
        }
    return result


def is_empty_part(part: Any) -> bool:
    """A text, refusal or reasoning part that carries nothing: "" (and no annotations, summary, signature or
    extension object)."""
    if not isinstance(part, dict) or part.get("type") not in ("text", "refusal", "reasoning"):
        return False
    return (
        part.get("text") in ("", None)
        and not part.get("annotations")
        and not part.get("summary")
        and part.get("signature") in ("", None)
        and not part.get("extra_content")
    )


def _without_empty_parts(result: dict[str, Any]) -> dict[str, Any]:
    choices = result.get("choices")
    if not isinstance(choices, list) or not any(
        isinstance(c, dict) and isinstance(c.get("parts"), list) and any(map(is_empty_part, c["parts"]))
        for c in choices
    ):
        return result
    return {
        **result,
        "choices": [
            {**c, "parts": [p for p in c["parts"] if not is_empty_part(p)]}
            if isinstance(c, dict) and isinstance(c.get("parts"), list)
            else c
            for c in choices
        ],
    }


def _plain(part: Any) -> str | None:
    """The type of a text or reasoning part that carries nothing but its text (no signature, annotations,
    summary or extension object), which joins its neighbour of the same type; None for any other part."""
    if not isinstance(part, dict) or part.get("type") not in ("text", "reasoning"):
        return None
    if part.get("signature") not in ("", None) or part.get("annotations") or part.get("summary"):
        return None
    if part.get("extra_content") or not isinstance(part.get("text", ""), (str, type(None))):
        return None
    return str(part["type"])


def _plain_text_parts_joined(result: dict[str, Any]) -> dict[str, Any]:
    choices = result.get("choices")
    if not isinstance(choices, list):
        return result
    joined_choices = []
    for choice in choices:
        parts = choice.get("parts") if isinstance(choice, dict) else None
        if not isinstance(parts, list) or not any(
            _plain(a) is not None and _plain(a) == _plain(b) for a, b in zip(parts, parts[1:])
        ):
            joined_choices.append(choice)
            continue
        joined: list[Any] = []
        for part in parts:
            kind = _plain(part)
            if kind is not None and joined and _plain(joined[-1]) == kind:
                joined[-1] = {**joined[-1], "text": (joined[-1].get("text") or "") + (part.get("text") or "")}
            else:
                joined.append(part)
        joined_choices.append({**choice, "parts": joined})
    return {**result, "choices": joined_choices}


def is_no_arguments(value: Any) -> bool:
    """null and blank text say "no arguments", as `{}` does (CONTRACT 4); `{}` itself needs no rewrite."""
    return value is None or (isinstance(value, str) and not value.strip())


def _needs_spelling(part: Any) -> bool:
    return (
        _has_no_arguments(part)
        or (isinstance(part, dict) and part.get("flagged") is False)
        or _has_no_part_signature(part)
    )


def _spelled_once(part: Any) -> Any:
    """No arguments as `{}` (custom input: ""), an unflagged call without the flag (absent is false), and a
    text part or call without a signature without the key (absent, null and "" all say it carried none)."""
    if _has_no_arguments(part):
        part = {**part, "arguments": "" if part.get("kind") == "custom" else NO_ARGUMENTS}
    if isinstance(part, dict) and part.get("flagged") is False:
        part = {key: value for key, value in part.items() if key != "flagged"}
    if _has_no_part_signature(part):
        part = {key: value for key, value in part.items() if key != "signature"}
    return part


def _has_no_part_signature(part: Any) -> bool:
    """A text part or tool call whose optional `signature` is there but empty (a reasoning part's is required)."""
    return (
        isinstance(part, dict)
        and part.get("type") in ("text", "tool_call")
        and "signature" in part
        and part["signature"] in (None, "")
    )


def _has_no_arguments(part: Any) -> bool:
    if not (isinstance(part, dict) and part.get("type") == "tool_call"):
        return False
    if part.get("kind") == "custom":  # free text, not JSON: no input is the empty text, not an empty object
        return part.get("arguments") is None
    return is_no_arguments(part.get("arguments"))


def _with_arguments_spelled_once(choice: Any) -> Any:
    if not isinstance(choice, dict) or not isinstance(choice.get("parts"), list):
        return choice
    return {**choice, "parts": [_spelled_once(p) for p in choice["parts"]]}


def _without_null_keys(value: Any) -> Any:
    """A usage key whose value is null, or an object with nothing in it, says no more than an absent key
    (SDK models fill in nulls; an SDK generated from a service model drops a member the model lacks,
    such as the `serverToolUsage: {}` Bedrock sends, and an empty object counts nothing)."""
    if isinstance(value, dict):
        kept = {key: _without_null_keys(item) for key, item in value.items() if item is not None}
        return {key: item for key, item in kept.items() if item != {}}
    return value


def compare(expected: dict[str, Any], observed: dict[str, Any]) -> list[Divergence]:
    """Every divergence of `observed` from `expected`, in document order (events excluded)."""
    if json_equal(expected, observed):  # the common case, without alignment
        return []
    out: list[Divergence] = []
    expected_choices = {c["index"]: c for c in expected.get("choices", [])}
    observed_choices = {c.get("index"): c for c in observed.get("choices", []) if isinstance(c, dict)}
    for position, choice in enumerate(expected.get("choices", [])):
        pointer = f"/choices/{position}"
        other = observed_choices.get(choice["index"])
        if other is None:
            out.append(Divergence(pointer, _choice_axis(choice), choice, MISSING))
            continue
        out.extend(_compare_parts(pointer, choice["parts"], other.get("parts", [])))
        for key in ("finish_reason", "finish_detail"):
            if key in choice and not json_equal(choice[key], other.get(key, MISSING)):
                out.append(Divergence(f"{pointer}/{key}", "finish", choice.get(key), other.get(key, MISSING)))
    for index, choice in observed_choices.items():
        if index not in expected_choices:
            out.append(Divergence(f"/choices/{index}", _choice_axis(choice), MISSING, choice, "unexpected choice"))
    if "usage" in expected:
        out.extend(_compare_usage("/usage", expected["usage"], observed.get("usage", MISSING)))
    if "error" in expected and not json_equal(expected["error"], observed.get("error", MISSING)):
        out.append(Divergence("/error", "finish", expected["error"], observed.get("error", MISSING)))
    return out


def _compare_usage(pointer: str, expected: Any, observed: Any) -> list[Divergence]:
    """Usage key by key (CONTRACT 4): the provider's object as streamed, so a key the stream did not
    carry is a divergence of its own (`/usage/cost: unexpected`), whoever added it."""
    if json_equal(expected, observed):
        return []
    if not (isinstance(expected, dict) and isinstance(observed, dict)):
        return [Divergence(pointer, "usage", expected, observed)]
    out: list[Divergence] = []
    for key in list(expected) + [k for k in observed if k not in expected]:
        out.extend(
            _compare_usage(f"{pointer}/{pointer_escape(key)}", expected.get(key, MISSING), observed.get(key, MISSING))
        )
    return out


def arguments_bytes_equal(expected: dict[str, Any], observed: dict[str, Any]) -> bool:
    """True when every tool call's arguments text is byte-identical (reported, never judged)."""

    def texts(result: dict[str, Any]) -> list[Any]:
        return [
            p.get("arguments")
            for c in result.get("choices", [])
            for p in c.get("parts", [])
            if isinstance(p, dict) and p.get("type") == "tool_call"
        ]

    return texts(expected) == texts(observed)


def first_divergence(divergences: list[Divergence]) -> Divergence | None:
    return divergences[0] if divergences else None


def full_diff(expected: Any, observed: Any) -> str:
    want = pretty(expected).splitlines(keepends=True)
    got = pretty(observed).splitlines(keepends=True)
    return "".join(difflib.unified_diff(want, got, "expected", "observed", n=3))


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=repr) + "\n"


def pointer_escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The value at a JSON pointer, or MISSING."""
    if pointer == "":
        return document
    node = document
    for raw in pointer.lstrip("/").split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return MISSING
    return node


# -- parts ---------------------------------------------------------------------------------------


def _compare_parts(pointer: str, expected: list[dict[str, Any]], observed: list[Any]) -> list[Divergence]:
    if _same_multiset(expected, observed) and not _same_sequence(expected, observed):
        return [
            Divergence(
                f"{pointer}/parts",
                "ordering",
                [_label(p) for p in expected],
                [_label(p) for p in observed],
                f"same parts in a different order: expected {_labels(expected)}, got {_labels(observed)}",
            )
        ]
    out: list[Divergence] = []
    for e_pos, o_pos in _align(expected, observed):
        if o_pos is None:
            assert e_pos is not None  # _align never pairs a gap with a gap
            part = expected[e_pos]
            out.append(
                Divergence(
                    f"{pointer}/parts/{e_pos}", _part_axis(part), part, MISSING, f"expected {_label(part)}, missing"
                )
            )
        elif e_pos is None:
            part = observed[o_pos]
            out.append(
                Divergence(f"{pointer}/parts/{o_pos}", _part_axis(part), MISSING, part, f"unexpected {_label(part)}")
            )
        else:
            out.extend(_compare_fields(f"{pointer}/parts/{e_pos}", expected[e_pos], observed[o_pos]))
    return out


def _compare_fields(pointer: str, expected: dict[str, Any], observed: Any) -> list[Divergence]:
    out = []
    for key in list(expected) + [k for k in observed if k not in expected]:
        want, got = expected.get(key, MISSING), observed.get(key, MISSING)
        same = arguments_equal(want, got) if key == "arguments" else json_equal(want, got)
        if not same:
            out.append(Divergence(f"{pointer}/{pointer_escape(key)}", _field_axis(expected, key), want, got))
    return out


def _field_axis(part: dict[str, Any], key: str) -> str:
    if part.get("type") == "tool_call":
        return "arguments" if key in ("arguments", "flagged") else "identity"
    return "content"


def _part_axis(part: Any) -> str:
    return "identity" if isinstance(part, dict) and part.get("type") == "tool_call" else "content"


def _choice_axis(choice: dict[str, Any]) -> str:
    parts = choice.get("parts") or []
    return "identity" if any(_part_axis(p) == "identity" for p in parts) else "content"


def _mismatch_cost(expected: dict[str, Any], observed: Any) -> float:
    if not isinstance(observed, dict) or observed.get("type") != expected.get("type"):
        return float("inf")
    return float(len(_compare_fields("", expected, observed)))


def _align(expected: list[Any], observed: list[Any]) -> list[tuple[int | None, int | None]]:
    """Pair expected and observed parts with the fewest differing fields (Needleman-Wunsch)."""
    n, m = len(expected), len(observed)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = i * GAP_COST
    for j in range(1, m + 1):
        cost[0][j] = j * GAP_COST
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i][j] = min(
                cost[i - 1][j - 1] + _mismatch_cost(expected[i - 1], observed[j - 1]),
                cost[i - 1][j] + GAP_COST,
                cost[i][j - 1] + GAP_COST,
            )
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + _mismatch_cost(expected[i - 1], observed[j - 1]):
            pairs.append((i - 1, j - 1))
            i -= 1
            j -= 1
        elif i and cost[i][j] == cost[i - 1][j] + GAP_COST:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    return pairs[::-1]


def _normal(part: Any) -> str:
    if isinstance(part, dict) and part.get("type") == "tool_call" and isinstance(part.get("arguments"), str):
        try:
            part = {**part, "arguments": parse_json(part["arguments"])}
        except ValueError:  # not JSON, or too deep to read: the text stands for itself
            pass
    return json.dumps(part, sort_keys=True, default=repr)


def _same_multiset(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and sorted(map(_normal, a)) == sorted(map(_normal, b))


def _same_sequence(a: list[Any], b: list[Any]) -> bool:
    return list(map(_normal, a)) == list(map(_normal, b))


def _label(part: Any) -> str:
    if not isinstance(part, dict):
        return repr(part)
    if part.get("type") == "tool_call":
        return f"tool_call {part.get('id')!r} ({part.get('name')})"
    return str(part.get("type"))


def _labels(parts: list[Any]) -> str:
    return "[" + ", ".join(_label(p) for p in parts) + "]"


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    return text if len(text) <= limit else text[: limit - 1] + "…"
