"""What the harness costs per fixture on the bundled corpus, beside the reference's own assembly.

    python bench/harness_overhead.py [--rounds N]

- "bare reference loop": `deltacheck.reference.assemble` over every fixture's chunks and nothing
  else (a rejected stream's error is its outcome);
- "run + judge": `run_fixtures` with the reference adapter: request, timer, the call under its
  deadline, the verdict. Its overhead over the bare loop is issue 13's "at most 50%";
- "judge + write": for outcomes already in hand, the verdict and its results line written (and
  flushed) to a file, as `run` does: issue 13's "at most 30 µs per fixture";
- "run + judge + write": the whole of `run` per fixture, for reference.

Numbers are medians of N rounds on one core. Per-fixture facts the harness keeps between adapters
(the reference's outcome, the axes a capability set scores) are warm after the first round, as they
are for every adapter after the first in `score`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from deltacheck.adapter import get_adapter
from deltacheck.corpus.loader import fast_result_check, load_corpus, result_validator
from deltacheck.errors import AssemblyError
from deltacheck.reference import assemble
from deltacheck.running.results import ResultsWriter
from deltacheck.running.runner import RunRecord, call_adapter, run_fixtures
from deltacheck.judge.verdict import judge

JUDGE_AND_WRITE_TARGET_US = 30.0
OVERHEAD_TARGET_PERCENT = 50.0


def bare(fixtures) -> None:
    for fixture in fixtures:
        try:
            assemble(fixture.protocol, fixture.chunks)
        except AssemblyError:
            pass


def judge_and_write(adapter, corpus, outcomes, writer: ResultsWriter) -> None:
    validator, fast_check = result_validator(corpus.root), fast_result_check(corpus.root)
    capabilities = frozenset(adapter.capabilities)
    for fixture, outcome in outcomes:
        reference = corpus.reference_outcome(fixture)
        verdict = judge(fixture, outcome, capabilities, validator, reference, fast_check)
        writer.record(RunRecord(adapter.name, verdict, 0.0, fixture.title, fixture.path).to_json())


def run_and_judge(adapter, corpus, fixtures) -> None:
    for record in run_fixtures(adapter, corpus, fixtures):
        assert record.verdict.verdict == "pass", f"{record.verdict.fixture}: {record.verdict.message}"


def harness(adapter, corpus, fixtures, writer: ResultsWriter) -> None:
    for record in run_fixtures(adapter, corpus, fixtures, announce=writer.running):  # as `run`: a running line each
        writer.record(record.to_json())


def median_seconds(fn, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    corpus = load_corpus()
    fixtures = corpus.fixtures
    adapter = get_adapter("reference")
    outcomes = [(fixture, call_adapter(adapter, fixture.request(), 10.0)) for fixture in fixtures]
    with tempfile.TemporaryDirectory() as scratch, open(Path(scratch) / "results.jsonl", "w", encoding="utf-8") as sink:
        writer = ResultsWriter(sink)
        run_and_judge(adapter, corpus, fixtures)  # every fixture passes; warms imports and per-fixture facts
        bare_s = median_seconds(lambda: bare(fixtures), args.rounds)
        run_s = median_seconds(lambda: run_and_judge(adapter, corpus, fixtures), args.rounds)
        judge_s = median_seconds(lambda: judge_and_write(adapter, corpus, outcomes, writer), args.rounds)
        harness_s = median_seconds(lambda: harness(adapter, corpus, fixtures, writer), args.rounds)
    count = len(fixtures)

    def per_fixture(seconds: float) -> str:
        return f"{seconds * 1000:6.2f} ms per corpus  {seconds / count * 1e6:6.1f} µs per fixture"

    print(f"corpus: {count} fixtures, {sum(len(f.chunks) for f in fixtures)} chunks; median of {args.rounds} rounds")
    print(f"bare reference loop:    {per_fixture(bare_s)}")
    print(f"run + judge:            {per_fixture(run_s)}   overhead over the bare loop "
          f"{(run_s / bare_s - 1) * 100:.0f}% (target: at most {OVERHEAD_TARGET_PERCENT:g}%)")
    print(f"judge + write:          {per_fixture(judge_s)}   (target: at most {JUDGE_AND_WRITE_TARGET_US:g} µs per fixture)")
    print(f"run + judge + write:    {per_fixture(harness_s)}   ({(harness_s / bare_s - 1) * 100:.0f}% over the bare loop)")

if __name__ == "__main__":
    main()
