"""Turn what an implementation did with one fixture into a verdict (CONTRACT.md sections 4 and 5)."""

from __future__ import annotations

import copy
import marshal
import re
from dataclasses import dataclass, field
from traceback import format_exception
from typing import Any

from deltacheck.corpus.loader import forbidden_matches, schema_problems
from deltacheck.errors import shortened
from deltacheck.judge.compare import (
    Divergence,
    arguments_bytes_equal,
    arguments_equal,
    compare,
    confusable_leaves,
    equal_to_known,
    full_diff,
    is_empty_part,
    json_equal,
    normalised,
)
from deltacheck.judge.plain_json import NotPlainJson, already_plain, kind_of, plain_json
from deltacheck.locations import portable
from deltacheck.model import Fixture
from deltacheck.reference import ReferenceOutcome

TRACEBACK_FRAMES = 8  # the innermost frames of an in-process traceback: where the implementation broke
MAX_TRACEBACK_CHARS = 20_000  # what one traceback can record: eight frames fit, an exception's 10 MB message does not
VERDICTS = ("pass", "fail", "error", "crash", "timeout", "n/a", "skip")
PASSING = {"pass"}
UNSCORED = {"n/a", "skip"}
# The capability a tool call of a special kind needs to be expressed (a plain function call needs none); looked
# up with whatever a part holds as its `kind`.
KIND_CAPABILITY: dict[object, str] = {"custom": "custom_tools", "server": "server_tools", "builtin": "builtin_tools"}

STRIPPABLE = frozenset(
    {
        "usage",
        "error",
        "finish_reason",
        "finish_detail",
        "refusal",
        "reasoning",
        "server_tools",
        "custom_tools",
        "builtin_tools",
        "reasoning_signature",
        "annotations",
        "item_id",
        "multiple_choices",
        "flags",
        "extra_content",
        "message_extra_content",
    }
)


# -- what happened when the implementation ran ---------------------------------------------------


@dataclass(frozen=True)
class Returned:
    result: Any


class Raised:
    """The implementation raised. An in-process exception's traceback is formatted only when read:
    formatting reads source lines, and most raises are judged on their message alone."""

    __slots__ = ("message", "_traceback", "_exception")

    def __init__(self, message: str, traceback: str = "", exception: BaseException | None = None) -> None:
        self.message, self._traceback, self._exception = message, traceback, exception

    @property
    def traceback(self) -> str:
        if self._exception is not None:
            self._traceback = "".join(format_exception(self._exception, limit=-TRACEBACK_FRAMES))
            self._exception = None  # the frames are no longer needed
        self._traceback = portable(self._traceback)  # before the cut, so the cut falls where it falls anywhere
        if len(self._traceback) > MAX_TRACEBACK_CHARS:  # the frames come first: a 10 MB message is cut, not them
            self._traceback = shortened(self._traceback, MAX_TRACEBACK_CHARS)
        return self._traceback

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raised) and (self.message, self.traceback) == (other.message, other.traceback)

    def __hash__(self) -> int:
        return hash(self.message)

    def __repr__(self) -> str:
        return f"Raised(message={self.message!r})"


@dataclass(frozen=True)
class TimedOut:
    seconds: float


@dataclass(frozen=True)
class Crashed:
    message: str


@dataclass(frozen=True)
class BrokeProtocol:
    """A subprocess driver answered with something that is not a valid reply (never `raise_acceptable`)."""

    message: str


@dataclass(frozen=True)
class Skipped:
    """A subprocess driver declined the request, with its reason."""

    reason: str


Outcome = Returned | Raised | TimedOut | Crashed | BrokeProtocol | Skipped


@dataclass
class Verdict:
    fixture: str
    protocol: str
    verdict: str
    message: str = ""
    first_divergence: str | None = None
    divergences: list[dict[str, Any]] = field(default_factory=list)
    diff: str = ""
    axes: dict[str, bool] = field(default_factory=dict)
    matched: str | None = None
    forbidden: list[str] = field(default_factory=list)
    na: list[str] = field(default_factory=list)
    arguments_bytes_equal: bool | None = None
    observed: Any = None
    # Set by the gateway judge (deltacheck/gateways/judge.py) only; to_json leaves them out when unset.
    gateway_ids: dict[str, str | None] | None = None  # the gateway's invented call ids -> the upstream's
    downstream_stream: str = ""  # the start of what the gateway streamed, for reading a failure

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if v not in (None, "", [], {})}
        out["verdict"] = self.verdict
        if self.verdict == "pass" and self.matched == "expected":
            out.pop("observed", None)  # the fixture's expected result, as compared: the line need not repeat it
        return out


# -- capabilities --------------------------------------------------------------------------------


def strip_unsupported(result: dict[str, Any], capabilities: frozenset[str]) -> tuple[dict[str, Any], list[str]]:
    """Remove what an adapter cannot express, from a copy; say what was removed (the n/a fields)."""
    if capabilities >= STRIPPABLE:  # nothing to remove: skip the deep copy on the hot path
        return {key: value for key, value in result.items() if key != "events"}, []
    result = copy.deepcopy(result)
    removed: list[str] = []

    def drop_parts(label: str, predicate) -> None:
        for choice in result.get("choices", []):
            kept = [p for p in choice.get("parts", []) if not predicate(p)]
            if len(kept) != len(choice.get("parts", [])):
                choice["parts"] = kept
                removed.append(label)

    def drop_field(label: str, part_type: str, key: str) -> None:
        for choice in result.get("choices", []):
            for part in choice.get("parts", []):
                if isinstance(part, dict) and part.get("type") == part_type and key in part:
                    del part[key]
                    removed.append(label)

    if "usage" not in capabilities and "usage" in result:
        del result["usage"]
        removed.append("usage")
    if "error" not in capabilities and "error" in result:
        del result["error"]
        removed.append("error")
    for key in ("finish_reason", "finish_detail"):
        if key not in capabilities:
            for choice in result.get("choices", []):
                choice.pop(key, None)
            removed.append(key)
    if "refusal" not in capabilities:
        drop_parts("refusal", lambda p: isinstance(p, dict) and p.get("type") == "refusal")
    if "reasoning" not in capabilities:
        drop_parts("reasoning", lambda p: isinstance(p, dict) and p.get("type") in ("reasoning", "redacted_reasoning"))
    if "server_tools" not in capabilities:
        drop_parts(
            "server_tools",
            lambda p: (
                isinstance(p, dict)
                and (
                    p.get("type") == "server_tool_result"
                    or (p.get("type") == "tool_call" and p.get("kind") == "server")
                )
            ),
        )
    if "custom_tools" not in capabilities:
        drop_parts(
            "custom_tools", lambda p: isinstance(p, dict) and p.get("type") == "tool_call" and p.get("kind") == "custom"
        )
    if "builtin_tools" not in capabilities:
        drop_parts(
            "builtin_tools",
            lambda p: isinstance(p, dict) and p.get("type") == "tool_call" and p.get("kind") == "builtin",
        )
    if "reasoning_signature" not in capabilities:  # a thought signature, wherever the part it came with is
        _drop_text_signatures(result, removed)
        for part_type in ("reasoning", "tool_call"):
            drop_field("reasoning_signature", part_type, "signature")
    if "annotations" not in capabilities:
        drop_field("annotations", "text", "annotations")
    if "item_id" not in capabilities:
        drop_field("item_id", "tool_call", "item_id")
    if "flags" not in capabilities:
        drop_field("flags", "tool_call", "flagged")
    if "extra_content" not in capabilities:
        drop_field("extra_content", "tool_call", "extra_content")
    if "message_extra_content" not in capabilities:
        _drop_message_extra_content(result, removed)
    if "multiple_choices" not in capabilities:
        result["choices"] = [c for c in result.get("choices", []) if c.get("index") == 0]
    result.pop("events", None)
    return result, sorted(set(removed))


def _drop_text_signatures(result: dict[str, Any], removed: list[str]) -> None:
    """A text part's `signature` (Gemini's thoughtSignature, CONTRACT 3.3) removed; a part that was there only
    to carry it, with the text "", is then no part, as an empty unsigned text part is none."""
    for choice in result.get("choices", []):
        parts = choice.get("parts", [])
        if not any(isinstance(p, dict) and p.get("type") == "text" and "signature" in p for p in parts):
            continue
        kept = []
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "text" and "signature" in part:
                part = {key: value for key, value in part.items() if key != "signature"}
                if is_empty_part(part):
                    continue
            kept.append(part)
        choice["parts"] = kept
        removed.append("reasoning_signature")


def _drop_message_extra_content(result: dict[str, Any], removed: list[str]) -> None:
    """A text part's `extra_content` (a Chat Completions message's extension object, CONTRACT 3.3) removed;
    a part that was there only to carry it, with the text "", is then no part (Chat omits empty parts, 3.2)."""
    for choice in result.get("choices", []):
        parts = choice.get("parts", [])
        if not any(isinstance(p, dict) and p.get("type") == "text" and "extra_content" in p for p in parts):
            continue
        kept = []
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "text" and "extra_content" in part:
                part = {key: value for key, value in part.items() if key != "extra_content"}
                if is_empty_part(part):
                    continue
            kept.append(part)
        choice["parts"] = kept
        removed.append("message_extra_content")


def exercised_axes(expected: dict[str, Any], capabilities: frozenset[str]) -> list[str]:
    parts = [p for c in expected.get("choices", []) for p in c.get("parts", [])]
    axes = []
    if any(p["type"] != "tool_call" for p in parts) or not parts:
        axes.append("content")
    if any(p["type"] == "tool_call" for p in parts):
        axes += ["identity", "arguments"]
    if any(len(c.get("parts", [])) > 1 for c in expected.get("choices", [])) or len(expected.get("choices", [])) > 1:
        axes.append("ordering")
    if capabilities & {"finish_reason", "finish_detail", "error"}:
        axes.append("finish")
    if "usage" in capabilities:  # an axis of its own: one usage policy must not read as finish failures
        axes.append("usage")
    if "events" in capabilities and any(p["type"] == "tool_call" for p in parts):
        axes.append("events")
    return axes


# Errors that say the implementation's own code broke, not that it rejected the stream (Python and JS).
PROGRAMMING_ERRORS = frozenset(
    {
        "TypeError",
        "AttributeError",
        "KeyError",
        "IndexError",
        "NameError",
        "UnboundLocalError",
        "ZeroDivisionError",
        "RecursionError",
        "ReferenceError",
        "RangeError",
        "NotImplementedError",
    }
)


def is_accepted_rejection(pattern: str | None, message: str) -> bool:
    """A raise passes under raise_acceptable only as the strict rejection the fixture names (CONTRACT.md 5)."""
    kind, _, text = message.partition(": ")
    if kind.rsplit(".", 1)[-1] in PROGRAMMING_ERRORS or (kind.endswith("AssertionError") and not text.strip()):
        return False
    return bool(pattern and re.search(pattern, message, re.IGNORECASE))


# -- judging -------------------------------------------------------------------------------------


def judge(
    fixture: Fixture,
    outcome: Outcome,
    capabilities: frozenset[str],
    result_validator,
    reference: ReferenceOutcome | None = None,
    fast_check=None,
    lacking: frozenset[str] = frozenset(),
) -> Verdict:
    """`lacking`: capabilities the fixture is about (its tags' `requires`) that the adapter does not have.

    The adapter still runs: what it can express is compared, so a bug there still fails. Only a
    result that would pass is n/a instead, since the subject itself could not be judged.
    """
    verdict = _judge(fixture, outcome, capabilities, result_validator, reference, fast_check)
    if lacking and verdict.verdict == "pass":
        verdict.verdict = "n/a"
        verdict.message = (
            f"cannot express {', '.join(sorted(lacking))}, which this fixture is about; what it can express matches"
        )
        verdict.axes = {}
    return verdict


def _judge(
    fixture: Fixture,
    outcome: Outcome,
    capabilities: frozenset[str],
    result_validator,
    reference: ReferenceOutcome | None,
    fast_check,
) -> Verdict:
    if isinstance(outcome, Skipped):  # unscored, so no axes
        return Verdict(fixture.id, fixture.protocol, "skip", outcome.reason)
    axes = _axes_for(fixture, capabilities)
    if type(outcome) is Returned and not _plain_as_is(fixture, outcome.result, reference):
        try:
            outcome = Returned(plain_json(outcome.result))
        except NotPlainJson as exc:
            return _unreadable(fixture, axes, f"returned something that is not plain JSON: {exc}")
        except Exception as exc:  # changed while read (an abandoned thread), or out of memory: still one fixture
            return _unreadable(fixture, axes, f"returned something that could not be read ({kind_of(exc)})")
    if (
        type(outcome) is Returned
        and fixture.expected is not None
        and _is_expected_as_is(fixture, outcome.result, capabilities, fast_check, reference)
    ):
        return Verdict(
            fixture.id,
            fixture.protocol,
            "pass",
            axes=dict.fromkeys(axes, True),
            matched="expected",
            arguments_bytes_equal=True,
            observed=outcome.result,
        )
    verdict = Verdict(fixture.id, fixture.protocol, "error")
    # An implementation that produced nothing judgeable fails every axis it would have been scored on.
    verdict.axes = {axis: False for axis in axes}
    if isinstance(outcome, TimedOut):
        verdict.verdict, verdict.message = "timeout", f"no result within {outcome.seconds:g} s"
        return verdict
    if isinstance(outcome, Crashed):
        verdict.verdict, verdict.message = "crash", outcome.message
        return verdict
    if isinstance(outcome, BrokeProtocol):
        verdict.message = f"the driver broke the protocol: {outcome.message}"
        return verdict
    if isinstance(outcome, Raised):
        if fixture.rejection and is_accepted_rejection(fixture.rejection["matches"], outcome.message):
            verdict.verdict = "pass"
            verdict.axes = {axis: True for axis in verdict.axes}
            verdict.matched = "rejected"
            verdict.message = f"rejected the stream, as recommended ({fixture.rejection['reason']}): {outcome.message}"
        elif fixture.raise_acceptable and is_accepted_rejection(fixture.raise_matches, outcome.message):
            verdict.verdict = "pass"
            verdict.axes = {axis: True for axis in verdict.axes}
            verdict.matched = "raise_acceptable"
            verdict.message = f"raised, which this fixture accepts ({fixture.raise_acceptable}): {outcome.message}"
        else:
            verdict.message = f"raised: {outcome.message}"
            if fixture.rejection:
                verdict.message += f" (not the rejection this fixture recommends, /{fixture.rejection['matches']}/)"
            elif fixture.raise_acceptable:
                verdict.message += f" (not the rejection this fixture accepts, /{fixture.raise_matches}/)"
            verdict.diff = outcome.traceback
        return verdict

    observed = outcome.result
    verdict.observed = observed
    if fast_check is not None and fast_check(observed):
        problems = []  # the compiled check said valid; the full validator is only needed for messages
    else:
        problems = schema_problems(result_validator, observed)
    if problems:
        verdict.message = "returned something that is not a canonical result: " + "; ".join(
            f"{pointer}: {message}" for pointer, message in problems[:5]
        )
        return verdict

    observed_normal = normalised(observed, fixture.protocol)
    seen, verdict.na = strip_unsupported(observed_normal, capabilities)
    # Once more: parts kept apart only by what the adapter cannot express (a signature) are then neighbours.
    seen = normalised(seen, fixture.protocol)
    candidates = ([("expected", fixture.expected)] if fixture.expected is not None else []) + [
        (f"acceptable/{i}: {a['description']}", a["result"]) for i, a in enumerate(fixture.acceptable)
    ]
    if not candidates:  # a rejected stream with no acceptable result: any result is a failure
        return _not_rejected(verdict, fixture, observed_normal, axes)
    best: tuple[str, dict[str, Any], list[Divergence]] | None = None
    for label, candidate in candidates:
        candidate = normalised(candidate, fixture.protocol)
        want, _ = strip_unsupported(candidate, capabilities)
        want = normalised(want, fixture.protocol)
        # events are judged against the same outcome as the result (an acceptable outcome completes as it says)
        divergences = compare(want, seen) + _judge_events(fixture, observed_normal, capabilities, reference, candidate)
        if best is None or len(divergences) < len(best[2]):
            best = (label, want, divergences)
        if not divergences:
            break
    assert best is not None  # the loop ran: candidates is not empty
    label, want, divergences = best
    verdict.axes = {axis: not any(d.axis == axis for d in divergences) for axis in axes}
    verdict.arguments_bytes_equal = arguments_bytes_equal(want, seen)
    if not divergences:
        verdict.verdict, verdict.matched = "pass", label
        return verdict
    verdict.verdict = "fail"
    verdict.divergences = [d.to_json() for d in divergences]
    verdict.first_divergence = divergences[0].describe()
    verdict.forbidden = [rule["description"] for rule in fixture.forbidden if forbidden_matches(rule, observed_normal)]
    verdict.message = verdict.first_divergence
    if fixture.rejection:
        verdict.message = f"returned a result where a rejection is recommended; closest acceptable: {verdict.message}"
    if verdict.forbidden:
        verdict.message += f" (forbidden: {'; '.join(verdict.forbidden)})"
    verdict.diff = full_diff(want, seen)
    return verdict


def _unreadable(fixture: Fixture, axes: tuple[str, ...], message: str) -> Verdict:
    """An `error` for a result the judge cannot look at: it fails every axis it would have been scored on."""
    return Verdict(fixture.id, fixture.protocol, "error", message, axes=dict.fromkeys(axes, False))


def _not_rejected(verdict: Verdict, fixture: Fixture, observed: dict[str, Any], axes: tuple[str, ...]) -> Verdict:
    """A result for a stream whose only right outcome is a rejection."""
    assert fixture.rejection is not None  # a fixture without `expected` has `rejected` (the fixture schema's oneOf)
    divergence = Divergence("", "finish", "a rejection", observed, "returned a result; this stream is to be rejected")
    verdict.verdict = "fail"
    verdict.axes = {axis: axis != "finish" for axis in axes}
    verdict.divergences = [divergence.to_json()]
    verdict.first_divergence = divergence.describe()
    verdict.forbidden = [rule["description"] for rule in fixture.forbidden if forbidden_matches(rule, observed)]
    verdict.message = f"returned a result where a rejection is recommended ({fixture.rejection['reason']})"
    if verdict.forbidden:
        verdict.message += f" (forbidden: {'; '.join(verdict.forbidden)})"
    return verdict


def scored_axes(fixture: Fixture, capabilities: frozenset[str]) -> list[str]:
    """The axes a fixture scores: those its expected result exercises; for a rejected stream, `finish`
    (the outcome is an error) and those of the results it accepts."""
    if fixture.expected is not None:
        return exercised_axes(fixture.expected, capabilities)
    axes = ["finish"]
    for alternative in fixture.acceptable:
        axes += [axis for axis in exercised_axes(alternative["result"], capabilities) if axis not in axes]
    return axes


def _plain_as_is(fixture: Fixture, observed: Any, reference: ReferenceOutcome | None) -> bool:
    """Whether a result can be judged without a plain copy: byte for byte the expected result (or the
    reference's own, events included) once marshalled, the common case (marshal writes only exact
    built-in types, and refuses a value that contains itself), or plain JSON of exact types."""
    if type(observed) is dict:
        expected, own = fixture.expected, reference.result if reference is not None else None
        if type(expected) is dict or type(own) is dict:
            try:
                marshalled = marshal.dumps(observed, 2)
            except (ValueError, RecursionError):
                return False  # a subclass, an object, or too deep for marshal: plain_json says which
            if type(expected) is dict and marshalled == _facts(expected).marshalled:
                return True
            if type(own) is dict and marshalled == _facts(own).marshalled:
                return True
    return already_plain(observed)


@dataclass
class _ExpectedFacts:
    """What the judge derives from one expected result, worked out once: the axes per capability set,
    and where a boolean could pass for a number under `==` (compare.confusable_leaves)."""

    expected: dict[str, Any]
    leaves: tuple
    marshalled: bytes = b""  # format 2: no back-references, so equal bytes mean equal values of equal types
    axes: dict[frozenset[str], tuple[str, ...]] = field(default_factory=dict)


# Kept by the identity of the fixture's expected result (fuzz variants share it); the object is kept
# in its entry, so a recycled id is never mistaken for it.
_FACTS: dict[int, _ExpectedFacts] = {}
_FACTS_ENTRIES = 4096


def _facts(expected: dict[str, Any]) -> _ExpectedFacts:
    facts = _FACTS.get(id(expected))
    if facts is None or facts.expected is not expected:
        if len(_FACTS) >= _FACTS_ENTRIES:
            _FACTS.clear()
        facts = _FACTS[id(expected)] = _ExpectedFacts(expected, confusable_leaves(expected), marshal.dumps(expected, 2))
    return facts


def _axes_for(fixture: Fixture, capabilities: frozenset[str]) -> tuple[str, ...]:
    if fixture.expected is None:
        return tuple(scored_axes(fixture, capabilities))
    by_capabilities = _facts(fixture.expected).axes
    if capabilities not in by_capabilities:
        by_capabilities[capabilities] = tuple(scored_axes(fixture, capabilities))
    return by_capabilities[capabilities]


def _is_expected_as_is(
    fixture: Fixture, observed: Any, capabilities: frozenset[str], fast_check, reference: ReferenceOutcome | None
) -> bool:
    """The common case, cheaply: an adapter that expresses everything returned exactly `expected`,
    with events (if it reports them) that pass the event rules.

    Equal to a schema-valid document means valid, so only the events need the schema check; a result
    equal to the reference's own (expected plus the reference's events) is checked and judged once
    per reference outcome.
    """
    assert fixture.expected is not None  # the caller checked: judged as is only against an expected result
    if fast_check is None or type(observed) is not dict or not capabilities >= STRIPPABLE:
        return False
    judging_events = "events" in capabilities and reference is not None
    if "events" not in observed:
        return equal_to_known(observed, fixture.expected, _facts(fixture.expected).leaves) and not (
            judging_events and _judge_events(fixture, observed, capabilities, reference)
        )
    if judging_events:
        assert reference is not None  # judging_events says so
        own = _reference_own(fixture, capabilities, fast_check, reference)
        if own is not None and equal_to_known(observed, own[0], own[1]):
            return own[2]
    return (
        json_equal({k: v for k, v in observed.items() if k != "events"}, fixture.expected)
        and _events_valid(fast_check, observed["events"])
        and not (judging_events and _judge_events(fixture, observed, capabilities, reference))
    )


def _reference_own(
    fixture: Fixture, capabilities: frozenset[str], fast_check, reference: ReferenceOutcome
) -> tuple[dict[str, Any], tuple, bool] | None:
    """(expected with the reference's own events, its confusable leaves, whether those events are
    valid and pass the event rules), memoised on the reference outcome with the expected result it
    was made for."""
    own_events = reference.result.get("events")
    if own_events is None:
        return None
    memo = reference.judged_own_events
    if memo is None or memo[0] is not fixture.expected:
        assert fixture.expected is not None  # only _is_expected_as_is asks, for a fixture with an expected result
        whole = {**fixture.expected, "events": own_events}
        passes = _events_valid(fast_check, own_events) and not _judge_events(fixture, whole, capabilities, reference)
        memo = reference.judged_own_events = (fixture.expected, whole, confusable_leaves(whole), passes)
    return memo[1], memo[2], memo[3]


def _events_valid(fast_check, events: Any) -> bool:
    return fast_check({"choices": [], "usage": None, "error": None, "events": events})


def _judge_events(
    fixture: Fixture,
    observed: dict[str, Any],
    capabilities: frozenset[str],
    reference: ReferenceOutcome | None,
    outcome: dict[str, Any] | None = None,
) -> list[Divergence]:
    """CONTRACT.md 3.4: each call completes once, fully, with its own identity, after its last fragment."""
    if "events" not in capabilities or reference is None:
        return []
    # No-arguments spelling (CONTRACT 4) on both sides; normalised() returns its input when nothing needs it.
    judged_against = outcome or fixture.expected
    assert judged_against is not None  # no candidate outcome is given only for a fixture with an expected result
    observed, outcome = normalised(observed, fixture.protocol), normalised(judged_against, fixture.protocol)
    calls: list[tuple[int, int, dict[str, Any]]] = []
    not_applicable: list[tuple[int, int, dict[str, Any]]] = []
    for c in outcome["choices"]:
        for position, p in enumerate(c["parts"]):
            if p["type"] == "tool_call":
                expressible = _expressible_call(c["index"], p, capabilities)
                (calls if expressible else not_applicable).append((c["index"], position, p))
    events = observed.get("events")
    if events is None:
        return (
            [Divergence("/events", "events", "events", None, "the adapter declares `events` but returned none")]
            if calls
            else []
        )
    out: list[Divergence] = []
    unclaimed = list(range(len(events)))
    for choice, position, call in calls:
        label = f"tool call {call['id']!r} ({call['name']})"
        mine = [i for i in unclaimed if _names_call(events[i], choice, call)]
        pointer = f"/choices/{choice}/parts/{position}"
        if not mine:
            out.append(Divergence(pointer, "events", call, None, f"{label} never completed"))
            continue
        first = mine[0]
        unclaimed.remove(first)
        extra = [
            i
            for i in mine[1:]
            if not any(
                c is not call and events[i]["id"] == c["id"] and events[i]["name"] == c["name"] for _, _, c in calls
            )
        ]
        for i in extra:
            unclaimed.remove(i)
        if extra:
            out.append(Divergence(pointer, "events", 1, 1 + len(extra), f"{label} completed {1 + len(extra)} times"))
        event = events[first]
        if not arguments_equal(call["arguments"], event["arguments"]):
            out.append(
                Divergence(
                    pointer,
                    "events",
                    call["arguments"],
                    event["arguments"],
                    f"{label} completed with arguments {event['arguments']!r}, expected {call['arguments']!r}",
                )
            )
        last = reference.last_fragment.get((choice, position))
        if event["after_chunk"] is not None and last is not None and event["after_chunk"] < last:
            out.append(
                Divergence(
                    pointer,
                    "events",
                    last,
                    event["after_chunk"],
                    f"{label} completed after chunk {event['after_chunk']}, before its last fragment in chunk {last}",
                )
            )
    for i in unclaimed:
        event = events[i]
        if any(_names_call(event, choice, call) for choice, _, call in not_applicable):
            continue  # a completion of a call the adapter cannot express: n/a, as the call itself is
        out.append(
            Divergence(
                f"/events/{i}",
                "events",
                None,
                event,
                f"completion event for a call that does not exist: id {event['id']!r}, name {event['name']!r}",
            )
        )
    return out


def _names_call(event: dict[str, Any], choice: int, call: dict[str, Any]) -> bool:
    """An event names a call by its choice, id and name. A call the stream gave no id is named by its choice
    and name, whatever id the event carries: the id an implementation invents for it is one finding, on the
    identity axis (and a general policy, CONTRACT 4.4), not also a call never completed and an unknown one."""
    if event["choice"] != choice or event["name"] != call["name"]:
        return False
    return call["id"] is None or event["id"] == call["id"]


def _expressible_call(choice: int, call: dict[str, Any], capabilities: frozenset[str]) -> bool:
    """Whether strip_unsupported keeps this call: the events rules judge only the calls that are
    compared, so a call set aside as n/a neither fails as never completed nor makes its completion
    event one for a call that does not exist."""
    if choice != 0 and "multiple_choices" not in capabilities:
        return False
    needed = KIND_CAPABILITY.get(call.get("kind"))
    return needed is None or needed in capabilities
