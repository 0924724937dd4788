"""Judge what a gateway streamed downstream for one fixture (CONTRACT.md 6).

The downstream bytes are read as a stream of the downstream protocol (its validity is an axis of
its own), assembled with that protocol's reference, and compared with the fixture's expected
result: as is when the gateway passes the protocol through, through the shared view
(deltacheck/gateways/translation.py) when it translates.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from deltacheck.corpus.loader import Corpus, fast_result_check, result_validator
from deltacheck.errors import AssemblyError
from deltacheck.gateways.text import plain_line
from deltacheck.gateways.translation import map_error_message, map_gateway_ids, shared_capabilities, shared_view
from deltacheck.gateways.validity import NotAStream, read_stream
from deltacheck.judge.compare import arguments_bytes_equal, compare, full_diff, normalised
from deltacheck.judge.verdict import Crashed, Raised, Returned, TimedOut, Verdict, exercised_axes, judge, scored_axes
from deltacheck.model import Fixture
from deltacheck.protocols import protocol
from deltacheck.reference import assemble

EXCERPT = 300
KEPT_STREAM = 32 * 1024  # the downstream text kept in the results record, for reading a failure


@dataclass
class Capture:
    """What came back for one client request."""

    status: int | None = None
    content_type: str = ""
    body: bytes = b""
    flooded: bool = False
    timed_out: bool = False
    failure: str | None = None  # the connection failed
    crashed: str | None = None  # ... because the gateway process died
    upstream_paths: list[str] = field(default_factory=list)


def judge_gateway(
    fixture: Fixture, upstream: str, downstream: str, capture: Capture, corpus: Corpus, timeout: float
) -> Verdict:
    capabilities, _ = shared_capabilities(upstream, downstream)
    validator = result_validator(corpus.root)
    lacking = frozenset(corpus.required_capabilities(fixture) - capabilities)
    if capture.timed_out:
        return judge(fixture, TimedOut(timeout), capabilities, validator)
    if capture.crashed:
        return judge(fixture, Crashed(capture.crashed), capabilities, validator)
    if capture.failure:
        return _error(fixture, capabilities, f"the gateway did not answer: {capture.failure}")
    note = _upstream_note(upstream, capture.upstream_paths)
    if capture.status != 200:
        verdict = judge(fixture, Raised(f"HTTP {capture.status}: {_excerpt(capture.body)}"), capabilities, validator)
        verdict.message = verdict.message.replace("raised: HTTP", "answered HTTP", 1) + note
        return verdict
    if "text/event-stream" not in capture.content_type.lower():
        return _error(
            fixture,
            capabilities,
            f"answered with a non-stream body (content-type "
            f"{capture.content_type or 'none'!r}): {_excerpt(capture.body)}{note}",
        )
    if capture.flooded:
        return _error(fixture, capabilities, f"streamed more than {len(capture.body)} bytes and was cut off")
    try:
        stream = read_stream(downstream, capture.body)
    except NotAStream as exc:
        return _error(
            fixture, capabilities, f"the downstream body is not an {downstream} stream: {exc}{note}", validity=False
        )
    kept = capture.body[:KEPT_STREAM].decode("utf-8", errors="replace")
    try:
        observed = assemble(downstream, stream.chunks).result
    except AssemblyError as exc:
        if upstream == downstream and fixture.rejection is not None:
            verdict = _relayed_rejected_stream(fixture, capabilities, str(exc))
        else:
            verdict = _error(
                fixture,
                capabilities,
                f"the downstream {downstream} stream does not assemble: {exc}{note}",
                validity=False,
            )
        verdict.downstream_stream = kept
        return verdict
    observed.pop("events", None)
    if upstream == downstream:
        verdict = judge(
            fixture, Returned(observed), capabilities, validator, None, fast_result_check(corpus.root), lacking
        )
    else:
        verdict = judge_translation(fixture, upstream, downstream, observed, capabilities, lacking)
    _apply_validity(verdict, _own_problems(fixture, upstream, downstream, stream.problems))
    if verdict.verdict != "pass" and note:
        verdict.message += note
    verdict.downstream_stream = kept
    return verdict


def judge_translation(
    fixture: Fixture,
    upstream: str,
    downstream: str,
    observed: dict[str, Any],
    capabilities: frozenset[str],
    lacking: frozenset[str] = frozenset(),
) -> Verdict:
    """Compare the shared views of the expected (or an acceptable) result and the observed one."""
    pair = (upstream, downstream)
    verdict = Verdict(fixture.id, fixture.protocol, "fail")
    verdict.observed = observed
    _, notes = shared_capabilities(upstream, downstream)
    verdict.na = sorted(notes)
    seen = shared_view(normalised(observed, downstream), downstream, pair)
    candidates = ([("expected", fixture.expected)] if fixture.expected is not None else []) + [
        (f"acceptable/{i}: {a['description']}", a["result"]) for i, a in enumerate(fixture.acceptable)
    ]
    axes_of = scored_axes(fixture, capabilities)
    if not candidates:  # a stream whose only right outcome is a rejection
        assert fixture.rejection is not None  # a fixture without `expected` has `rejected` (the fixture schema's oneOf)
        if isinstance(observed.get("error"), dict):
            verdict.verdict, verdict.matched = "pass", "rejected"
            verdict.axes = {axis: True for axis in axes_of}
            verdict.message = f"rejected the stream with an error downstream ({fixture.rejection['reason']})"
        else:
            verdict.axes = {axis: axis != "finish" for axis in axes_of}
            verdict.message = f"streamed a result where a rejection is recommended ({fixture.rejection['reason']})"
        return verdict
    best = None
    for label, candidate in candidates:
        want = shared_view(normalised(candidate, upstream), upstream, pair)
        got = copy.deepcopy(seen)
        mapping = map_gateway_ids(want, got)
        map_error_message(want, got)
        divergences = compare(want, got)
        if best is None or len(divergences) < len(best[3]):
            best = (label, want, got, divergences, mapping)
        if not divergences:
            break
    assert best is not None  # the loop ran: candidates is not empty
    label, want, got, divergences, mapping = best
    axes = exercised_axes(want, capabilities)
    verdict.axes = {axis: not any(d.axis == axis for d in divergences) for axis in axes}
    verdict.arguments_bytes_equal = arguments_bytes_equal(want, got)
    if mapping:
        verdict.gateway_ids = mapping
    if not divergences:
        verdict.verdict, verdict.matched = "pass", label
        if lacking:
            verdict.verdict = "n/a"
            verdict.message = (
                f"{downstream} cannot carry {', '.join(sorted(lacking))}, which this fixture is "
                "about; what it can carry matches"
            )
            verdict.axes = {}
        return verdict
    verdict.divergences = [d.to_json() for d in divergences]
    verdict.first_divergence = divergences[0].describe()
    verdict.message = verdict.first_divergence
    verdict.diff = full_diff(want, got)
    return verdict


def _apply_validity(verdict: Verdict, problems: list[str]) -> None:
    """The validity axis: scored for every fixture the gateway answered with a stream."""
    if verdict.verdict in ("skip", "n/a") and not problems:
        return
    verdict.axes = {**verdict.axes, "validity": not problems}
    if not problems:
        return
    verdict.divergences = list(verdict.divergences) + [
        {"pointer": "", "axis": "validity", "kind": "invalid stream", "place": _rule(p), "message": p} for p in problems
    ]
    if verdict.verdict in ("pass", "n/a"):
        verdict.verdict = "fail"
        verdict.matched = None
        verdict.message = f"invalid downstream stream: {problems[0]}"
        verdict.first_divergence = verdict.message
    else:
        verdict.message += f" (and an invalid downstream stream: {problems[0]})"


def _own_problems(fixture: Fixture, upstream: str, downstream: str, problems: list[str]) -> list[str]:
    """A gateway that passes its protocol through is not blamed for what the upstream stream already did."""
    if not problems or upstream != downstream:
        return problems
    try:
        inherited = {_rule(p) for p in read_stream(upstream, fixture.request().sse).problems}
    except NotAStream:
        return problems
    return [p for p in problems if _rule(p) not in inherited]


def _rule(problem: str) -> str:
    """A problem with its numbers taken out, so one rule broken in many fixtures is one finding."""
    import re

    return re.sub(r"'[^']*'|\d+", "*", problem)


def _relayed_rejected_stream(fixture: Fixture, capabilities: frozenset[str], message: str) -> Verdict:
    assert fixture.rejection is not None  # only a rejected stream is relayed (judge_gateway checks)
    verdict = Verdict(fixture.id, fixture.protocol, "pass", matched="relayed")
    verdict.axes = {axis: True for axis in scored_axes(fixture, capabilities)}
    verdict.message = (
        f"passed on the stream its protocol's client rejects ({fixture.rejection['reason']}): "
        f"the downstream reference rejects it too ({message})"
    )
    return verdict


def _error(fixture: Fixture, capabilities: frozenset[str], message: str, validity: bool | None = None) -> Verdict:
    verdict = Verdict(fixture.id, fixture.protocol, "error", message)
    verdict.axes = {axis: False for axis in scored_axes(fixture, capabilities)}
    if validity is not None:
        verdict.axes["validity"] = validity
    return verdict


def _upstream_note(upstream: str, paths: list[str]) -> str:
    """Why a gateway may have gone wrong before it streamed anything: it asked upstream for another thing."""
    if not paths:
        return " (the gateway never called the upstream)"
    endpoint = protocol(upstream).endpoint
    wrong = [p for p in paths if not p.split("?", 1)[0].endswith(endpoint)]
    if wrong:
        return f" (the gateway called upstream {wrong[0]}, not the {upstream} endpoint {endpoint})"
    return ""


def _excerpt(body: bytes) -> str:
    text = plain_line(body.decode("utf-8", errors="replace"))
    return (text[:EXCERPT] + "…") if len(text) > EXCERPT else (text or "(empty body)")
