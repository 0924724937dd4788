"""`deltacheck check-gateway`: is a gateway wired up for proxy mode? A smoke test, not a score.

It checks that the gateway starts and listens on 127.0.0.1, answers a plain text and a tool-call
fixture of its upstream protocol with a valid stream of its downstream protocol that carries the
message (its text and calls; a finish reason or usage that differs is named, and left to `run`),
calls the upstream endpoint of the upstream protocol, and stops on SIGTERM.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

from deltacheck.corpus.loader import Corpus
from deltacheck.driver.check import SMOKE_TAGS, Check, mainstream_tags
from deltacheck.gateways.judge import judge_gateway
from deltacheck.gateways.proxy import STOP_GRACE, GatewayFailed, GatewayProcess, GatewaySpec, client_request, exchange
from deltacheck.gateways.translation import shared_capabilities
from deltacheck.gateways.upstream import Upstream
from deltacheck.model import Fixture
from deltacheck.protocols import protocol

MESSAGE_AXES = {"content", "identity", "arguments", "ordering", "validity"}


def smoke_fixtures(corpus: Corpus, spec: GatewaySpec) -> list[tuple[str, Fixture]]:
    """The shortest mainstream text and tool-call fixtures of the upstream protocol the route can carry."""
    capabilities, _ = shared_capabilities(spec.upstream, spec.downstream)
    runnable = [
        f
        for f in corpus.fixtures
        if f.protocol == spec.upstream
        and not f.implementation_defined
        and corpus.required_capabilities(f) <= capabilities
        and set(f.tags) <= mainstream_tags(spec.upstream)
        and f.expected is not None
    ]
    chosen = []
    for tag in SMOKE_TAGS:
        tagged = sorted((f for f in runnable if tag in f.tags), key=lambda f: (len(f.chunks), f.id))
        chosen += [(tag, f) for f in tagged[:1]]
    return chosen


def check_gateway(spec: GatewaySpec, corpus: Corpus, timeout: float, startup_timeout: float) -> Iterator[Check]:
    """Yield each check as it completes; the gateway is always stopped."""
    with Upstream(corpus.fixtures) as upstream:
        process = GatewayProcess(spec, upstream, startup_timeout)
        try:
            try:
                process.start()
            except GatewayFailed as exc:
                yield Check("starts and listens on 127.0.0.1", False, str(exc))
                return
            yield Check("starts and listens on 127.0.0.1", True, f"port {process.port}")
            called: list[str] = []
            for tag, fixture in smoke_fixtures(corpus, spec):
                upstream.serve(fixture)
                capture = exchange(spec, process.port, client_request(spec, fixture), timeout)
                capture.upstream_paths = [r.path for r in upstream.requests]
                called += capture.upstream_paths
                verdict = judge_gateway(fixture, spec.upstream, spec.downstream, capture, corpus, timeout)
                name = (
                    f"streams a valid {spec.downstream} answer carrying the {spec.upstream} message "
                    f"({tag}: {fixture.id})"
                )
                yield _carries(name, verdict)
            endpoint = protocol(spec.upstream).endpoint
            wrong = [p for p in called if not p.split("?", 1)[0].endswith(endpoint)]
            yield Check(
                f"calls the upstream's {spec.upstream} endpoint ({endpoint}) under {{upstream}}",
                bool(called) and not wrong,
                "it never called the upstream" if not called else (f"it called {wrong[0]}" if wrong else ""),
            )
            yield _stops(process)
        finally:
            process.stop()


def _carries(name: str, verdict) -> Check:
    """Wired up: a valid stream whose text and calls arrive. Finish and usage are the score's business."""
    if verdict.verdict == "pass":
        return Check(name, True)
    if verdict.verdict != "fail":
        return Check(name, False, f"{verdict.verdict}: {verdict.message}")
    wrong = sorted(axis for axis, ok in verdict.axes.items() if not ok)
    carried = not set(wrong) & MESSAGE_AXES
    detail = (
        f"the message arrives; `deltacheck run` will fail it on {', '.join(wrong)}: {verdict.message}"
        if carried
        else f"fail: {verdict.message}"
    )
    return Check(name, carried, detail)


def _stops(process: GatewayProcess) -> Check:
    name = f"stops within {STOP_GRACE:g} s of SIGTERM"
    if not process.alive():
        return Check(name, False, f"not checked: {process.exit_note()}")
    assert process.process is not None  # alive() says it is running
    process.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    while time.monotonic() < deadline and process.alive():
        time.sleep(0.05)
    return Check(name, not process.alive(), "" if not process.alive() else "still running (it will be killed)")
