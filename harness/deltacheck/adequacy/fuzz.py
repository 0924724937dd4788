"""Fuzz an adapter with other valid streams of each fixture, and with broken ones.

Invariance: for each fixture the adapter passes as written, hypothesis searches `restreamings()`
for a variant it fails, and shrinks the first one it finds to a minimal stream. Robustness: it
searches `perturbations()` for a stream on which the implementation crashes, hangs or returns
something that is not a canonical result (raising an error is fine there).

Runs are derandomized, so the same corpus, adapter and example count give the same findings,
whichever modules the process has imported (see `_reproducible`).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import Flaky, NoSuchExample

from deltacheck.adequacy.rechunk import is_rechunkable, restreamings
from deltacheck.adequacy.robustness import perturbations
from deltacheck.corpus.loader import Corpus, fast_result_check, result_validator, schema_problems
from deltacheck.errors import AssemblyError
from deltacheck.judge.verdict import Crashed, Outcome, Returned, TimedOut, Verdict, judge
from deltacheck.model import Fixture
from deltacheck.reference import assemble
from deltacheck.running.runner import TIMEOUT_CONFIRM_FACTOR, call_adapter, transport_of

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


@dataclass
class FixtureFuzz:
    """What fuzzing one fixture found."""

    fixture: str
    protocol: str
    mode: str  # "invariance" | "robustness"
    status: str  # "survived" | "failed" | "not fuzzed"
    examples: int = 0
    message: str = ""
    edits: list[str] = field(default_factory=list)
    chunks: list[Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"kind": "fuzz", **{k: v for k, v in dataclasses.asdict(self).items() if v not in (None, "", [])}}
        out["examples"] = self.examples
        return out


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )


@contextmanager
def _reproducible() -> Iterator[None]:
    """Hypothesis without the literals of "local" modules.

    Hypothesis mixes the constants written in every local module in `sys.modules` into what it
    draws, so the streams tried would depend on which modules happen to be imported: a checkout
    (where deltacheck's own modules are local) against an installed wheel, or a `score -j` worker
    that ran other jobs before. REPORT.md must come out the same everywhere, so the pool is empty
    while the corpus is fuzzed; hypothesis's own fixed constants still apply.
    """
    from hypothesis.internal.conjecture import providers

    local_constants = getattr(providers, "_get_local_constants", None)
    if local_constants is None:  # a hypothesis without the pool draws nothing from local modules
        yield
        return
    empty = providers.Constants()
    providers.CONSTANTS_CACHE.cache.clear()  # entries made with another pool
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = local_constants
        providers.CONSTANTS_CACHE.cache.clear()


def _runner(adapter) -> Callable:
    return partial(_confirming_timeouts, getattr(adapter, "run_request", None) or partial(call_adapter, adapter))


def _confirming_timeouts(run: Callable[[Any, float], Outcome], request: Any, timeout: float) -> Outcome:
    """Run one variant; a timeout stands only if a second run, allowed TIMEOUT_CONFIRM_FACTOR times longer,
    times out too. Fuzzing runs each adapter thousands of times, and one run slowed by a busy machine
    would otherwise turn into a finding, or into a variant "answered differently when run again", that
    the next run of the same corpus and pins does not give. A stream the implementation hangs on still
    times out, twice."""
    outcome = run(request, timeout)
    if isinstance(outcome, TimedOut):
        outcome = run(request, timeout * TIMEOUT_CONFIRM_FACTOR)
    return outcome


def _verdict(adapter, corpus: Corpus, fixture: Fixture, chunks: list[Any], timeout: float) -> Verdict:
    variant = dataclasses.replace(
        fixture, chunks=tuple(chunks), sse=None, frames=None
    )  # a variant is rendered from its chunks
    outcome = _runner(adapter)(variant.request(transport_of(adapter)), timeout)
    try:
        reference = assemble(fixture.protocol, chunks) if "events" in adapter.capabilities else None
    except AssemblyError:
        reference = None
    lacking = frozenset(corpus.required_capabilities(fixture) - set(adapter.capabilities))
    return judge(
        variant,
        outcome,
        frozenset(adapter.capabilities),
        result_validator(corpus.root),
        reference,
        fast_result_check(corpus.root),
        lacking,
    )


def fuzz_invariance(adapter, corpus: Corpus, fixture: Fixture, examples: int, timeout: float) -> FixtureFuzz:
    found = FixtureFuzz(fixture.id, fixture.protocol, "invariance", "not fuzzed")
    if not is_rechunkable(fixture):
        found.message = "a rejected stream, or fragments that re-send whole values: not re-chunked"
        return found
    if fixture.implementation_defined:
        # Its outcome rests on a policy, not on the provider's documentation; re-chunking can move a
        # stream across that policy (an index-less call cut in two), so it proves nothing about invariance.
        found.message = "implementation-defined: not re-chunked"
        return found
    baseline = _verdict(adapter, corpus, fixture, list(fixture.chunks), timeout)
    if baseline.verdict != "pass":
        found.message = f"fails the fixture as written ({baseline.verdict}); nothing to vary"
        return found
    calls = 0

    def fails(variant: tuple[list[Any], list[str]]) -> bool:
        nonlocal calls
        calls += 1
        return _verdict(adapter, corpus, fixture, variant[0], timeout).verdict != "pass"

    try:
        with _reproducible():
            chunks, edits = find(restreamings(fixture), fails, settings=_settings(examples))
    except NoSuchExample:
        found.status, found.examples = "survived", calls
        return found
    except Flaky:
        return _unreproducible(found, calls)
    verdict = _verdict(adapter, corpus, fixture, chunks, timeout)
    found.status, found.examples, found.edits, found.chunks = "failed", calls, edits, chunks
    found.message = f"{verdict.verdict}: {verdict.message}"
    return found


def fuzz_robustness(adapter, corpus: Corpus, fixture: Fixture, examples: int, timeout: float) -> FixtureFuzz:
    found = FixtureFuzz(fixture.id, fixture.protocol, "robustness", "not fuzzed")
    run = partial(_on_its_wire, _runner(adapter), transport_of(adapter))
    validator = result_validator(corpus.root)
    calls = 0

    def breaks(variant: tuple[list[Any], str]) -> bool:
        nonlocal calls
        calls += 1
        return _robustness_problem(run, validator, fixture, variant[0], timeout) is not None

    try:
        with _reproducible():
            chunks, damage = find(perturbations(fixture), breaks, settings=_settings(examples))
    except NoSuchExample:
        found.status, found.examples = "survived", calls
        return found
    except Flaky:
        return _unreproducible(found, calls)
    found.status, found.examples, found.edits, found.chunks = "failed", calls, [damage], chunks
    found.message = _robustness_problem(run, validator, fixture, chunks, timeout) or "no longer reproduces"
    return found


def _unreproducible(found: FixtureFuzz, calls: int) -> FixtureFuzz:
    """A variant the implementation failed once and passed when it was run again: its answer to one stream
    depends on more than the stream (timing, state left by an earlier one). That costs this fixture's
    fuzzing, said in one line, never the run (hypothesis raises Flaky for it)."""
    found.examples = calls
    found.message = (
        "not fuzzed: the implementation answered one variant differently when it was run again "
        "(its outcome depends on more than the stream, such as timing), so no counterexample stands"
    )
    return found


def _on_its_wire(run: Callable, transport: str | None, fixture: Fixture, timeout: float) -> Outcome:
    """Run a damaged variant rendered on the wire the adapter reads."""
    return run(fixture.request(transport), timeout)


def _robustness_problem(run, validator, fixture: Fixture, chunks: list[Any], timeout: float) -> str | None:
    outcome = run(dataclasses.replace(fixture, chunks=tuple(chunks), sse=None, frames=None), timeout)
    if isinstance(outcome, (Crashed, TimedOut)):
        return f"{type(outcome).__name__}: {getattr(outcome, 'message', '') or getattr(outcome, 'seconds', '')}"
    if isinstance(outcome, Returned):
        problems = schema_problems(validator, outcome.result)
        if problems:
            return "returned something that is not a canonical result: " + "; ".join(
                f"{p}: {m}" for p, m in problems[:3]
            )
    return None


def fuzz_adapter(
    adapter,
    corpus: Corpus,
    fixtures: list[Fixture],
    examples: int,
    timeout: float,
    robustness: bool = True,
    progress: Callable[[FixtureFuzz], None] | None = None,
) -> list[FixtureFuzz]:
    results = []
    for fixture in fixtures:
        if fixture.protocol not in adapter.protocols:
            continue
        modes = [fuzz_invariance] + ([fuzz_robustness] if robustness else [])
        for mode in modes:
            finding = mode(adapter, corpus, fixture, examples, timeout)
            results.append(finding)
            if progress:
                progress(finding)
    return results


# -- counterexamples become fixtures -------------------------------------------------------------


def new_fixture_id(corpus: Corpus) -> str:
    taken = {f.id for f in corpus.fixtures} | {p.fixture_id for p in corpus.problems}
    retired = corpus.root / "RETIRED_IDS"
    if retired.exists():
        taken |= {line.split("#")[0].strip() for line in retired.read_text().splitlines()}
    while True:
        candidate = "DC-" + "".join(secrets.choice(CROCKFORD) for _ in range(4))
        if candidate not in taken:
            return candidate


def counterexample_fixture(corpus: Corpus, seed: Fixture, finding: FixtureFuzz, adapter_label: str) -> dict[str, Any]:
    """The shrunk stream as a fixture of its own: same message, so the seed's expected result."""
    data = {
        "id": new_fixture_id(corpus),
        "title": _title(seed.title),
        "protocol": seed.protocol,
        "tags": list(seed.tags),
        "comment": f"The stream of {seed.id} re-chunked ({', '.join(finding.edits)}); the message is unchanged. "
        f"Found by `deltacheck fuzz` when {adapter_label} failed it: {finding.message}",
        "provenance": {
            "kind": "derived",
            "source": f"deltacheck fuzz, shrunk counterexample from {seed.id}",
            "derived_from": seed.id,
            **({"reports": seed.reports} if seed.reports else {}),
        },
        **({"basis": seed.basis} if seed.basis else {}),  # the same message and result rest on the same ground
        "chunks": finding.chunks,
        "expected": seed.expected,
    }
    if seed.stream_end != "terminator":
        data["stream_end"] = seed.stream_end
    if seed.implementation_defined:
        data["implementation_defined"] = seed.implementation_defined
    return data


def write_fixture(corpus: Corpus, data: dict[str, Any]) -> Path:
    path = (
        corpus.root
        / "fixtures"
        / data["protocol"]
        / f"rechunked-{data['provenance']['derived_from'].lower()}-{data['id'].lower()}.json"
    )
    path.write_text(format_fixture(data), encoding="utf-8")
    return path


def format_fixture(data: dict[str, Any]) -> str:
    """The corpus's file style: two-space indent, one chunk per line."""
    lines = ["{"]
    items = list(data.items())
    for position, (key, value) in enumerate(items):
        comma = "," if position < len(items) - 1 else ""
        if key == "chunks":
            body = ",\n".join("    " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")) for chunk in value)
            lines.append(f'  "chunks": [\n{body}\n  ]{comma}')
        elif key == "tags":
            lines.append(f'  "tags": {json.dumps(value, ensure_ascii=False)}{comma}')
        else:
            text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
            lines.append(f"  {json.dumps(key)}: {text}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _title(seed_title: str) -> str:
    title = f"re-chunked: {seed_title}"
    return title if len(title) <= 90 else title[:89].rstrip() + "…"
