"""`deltacheck check-driver`: does a program speak the driver protocol? A smoke test, not a score.

It checks the handshake, one run per claimed protocol (a text and a tool-call fixture, the
shortest the driver can express) answered with a valid canonical result, that stdout carries
nothing but protocol lines, and that `stop` ends the driver with status 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from deltacheck.corpus.loader import Corpus, result_validator, schema_problems
from deltacheck.driver.subprocess_adapter import Hello, SubprocessAdapter
from deltacheck.errors import DriverFailed
from deltacheck.judge.verdict import BrokeProtocol, Crashed, Raised, Returned, Skipped, TimedOut
from deltacheck.model import Fixture
from deltacheck.protocols import PROTOCOLS
from deltacheck.protocols import protocol as protocol_spec

SMOKE_TAGS = ("text", "tool-call")
# Smoke runs use mainstream streams only: a driver is checked for speaking the protocol, not for
# handling deviations (a library that rightly raises on an index-less call must not fail here).
MAINSTREAM_TAGS = {
    "text",
    "tool-call",
    "parallel-calls",
    "usage",
    "empty-choices",
    "whole-arguments",
    "ping",
    "metadata-chunk",
    "finish-reason",
    "item-id",
}


def mainstream_tags(protocol_name: str) -> set[str]:
    """The tags of a protocol's mainstream streams: the shared ones and those it declares ordinary."""
    return MAINSTREAM_TAGS | protocol_spec(protocol_name).ordinary_tags


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str = ""


def smoke_fixtures(corpus: Corpus, hello: Hello) -> list[tuple[str, Fixture]]:
    """Per claimed protocol, the shortest fixture of each SMOKE_TAGS the driver can express, with the tag."""
    chosen: list[tuple[str, Fixture]] = []
    for protocol in PROTOCOLS:
        if protocol not in hello.protocols:
            continue
        runnable = [
            f
            for f in corpus.fixtures
            if f.protocol == protocol
            and corpus.required_capabilities(f) <= hello.capabilities
            and not f.implementation_defined
            and set(f.tags) <= mainstream_tags(protocol)
        ]
        for tag in SMOKE_TAGS:
            tagged = sorted((f for f in runnable if tag in f.tags), key=lambda f: (len(f.chunks), f.id))
            chosen += [(tag, f) for f in tagged[:1]]
    return chosen


def check_driver(adapter: SubprocessAdapter, corpus: Corpus, timeout: float) -> Iterator[Check]:
    """Yield each check as it completes; the driver is stopped at the end."""
    try:
        hello = adapter.start()
    except DriverFailed as exc:
        yield Check("answers `start` with a valid hello", False, exc.message)
        return
    yield Check(
        "answers `start` with a valid hello",
        True,
        f"{hello.name}: {hello.library} {hello.version} ({hello.language}); "
        f"protocols {', '.join(sorted(hello.protocols)) or 'none'}",
    )
    if not hello.protocols:
        yield Check("claims at least one protocol", False, "`protocols` is empty")
    validator = result_validator(corpus.root)
    broke: list[str] = []
    for tag, fixture in smoke_fixtures(corpus, hello):
        outcome = adapter.run_request(fixture.request(), timeout)
        name = f"answers an {fixture.protocol} run with a result ({tag}: {fixture.id})"
        if isinstance(outcome, Returned):
            problems = schema_problems(validator, outcome.result)
            yield Check(
                name, not problems, "; ".join(f"{p}: {m}" for p, m in problems[:3]) or "a valid canonical result"
            )
            continue
        if isinstance(outcome, BrokeProtocol):
            broke.append(f"{fixture.id}: {outcome.message}")
        yield Check(name, False, _not_a_result(outcome))
    stopped = adapter.stop()
    stray = [f"{line.rstrip()[:200]!r}" for line in stopped.stray_output]
    yield Check(
        "writes nothing but protocol lines to stdout",
        not broke and not stray,
        "; ".join(broke + [f"unrequested line {s}" for s in stray]) or "",
    )
    yield Check(
        "exits with status 0 on `stop`", stopped.was_running and stopped.status == 0, _stop_detail(adapter, stopped)
    )


def _stop_detail(adapter: SubprocessAdapter, stopped) -> str:
    if not stopped.was_running:
        return "not checked: the driver had crashed or been killed before `stop` was due"
    if stopped.status is None:
        return f"still running {adapter.stop_timeout:g} s after `stop` (killed)"
    return "" if stopped.status == 0 else f"exit status {stopped.status}"


def _not_a_result(outcome: Raised | Skipped | TimedOut | Crashed | BrokeProtocol) -> str:
    if isinstance(outcome, Raised):
        return f"errored: {outcome.message}"
    if isinstance(outcome, Skipped):
        return f"skipped: {outcome.reason}"
    if isinstance(outcome, TimedOut):
        return f"no reply within {outcome.seconds:g} s"
    return outcome.message  # Crashed, BrokeProtocol
