"""The action's script: inputs, the run, then the job summary and step outputs; the run's exit status."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from deltacheck.errors import InvalidResults
from deltacheck.github_action.inputs import InputProblem, read_inputs
from deltacheck.github_action.run import RunOutcome, run_deltacheck
from deltacheck.github_action.step_files import report_error, write_outputs, write_summary
from deltacheck.github_action.summary import (
    SummaryContext,
    render_summary,
    reproduce_option,
    verdict_counts,
    verdicts_by_fixture,
)
from deltacheck.judge.expectations import Comparison, ExpectationsError, compare_verdicts, load_expectations
from deltacheck.reports.markdown_text import escape_markdown
from deltacheck.running.results import Results, read_results

USAGE_ERROR = 2  # as click exits on a usage error: the inputs, not the implementation, are wrong
# Verdicts where the implementation gave no result: it raised, its process died, or it hung.
NO_RESULT = ("error", "crash", "timeout")


def main(environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    try:
        inputs = read_inputs(environ)
    except InputProblem as exc:
        return _could_not_run(str(exc), USAGE_ERROR, environ)
    outcome = run_deltacheck(inputs)
    results = _results_of(outcome)
    if results is None:
        return _could_not_run(outcome.error or f"no results in {outcome.results_path}", outcome.exit_code, environ)
    if outcome.error is not None:  # the run stopped on an error after it had started writing results
        report_error(outcome.error, environ)
    try:
        comparison = _compared(inputs.expectations, results)
    except ExpectationsError as exc:  # the run read the file already; this is the file changing under it
        return _could_not_run(str(exc), USAGE_ERROR, environ)
    context = SummaryContext(
        exit_code=outcome.exit_code,
        results_path=outcome.results_path,
        junit_path=outcome.junit_path,
        expectations_path=inputs.expectations,
        site_url=inputs.site_url,
        reproduce=reproduce_option(inputs.adapter, inputs.adapter_cmd),
    )
    write_summary(render_summary(results, comparison, context), environ)
    write_outputs(step_outputs(verdict_counts(results), comparison), environ)
    return outcome.exit_code or (1 if outcome.error else 0)


def step_outputs(counts: Counter[str], comparison: Comparison | None) -> dict[str, str]:
    """The action's outputs; regressions and unexpected passes are empty without an expectations file."""

    def differences(kind: str) -> str:
        return "" if comparison is None else str(sum(d.kind == kind for d in comparison.differences))

    return {
        "passed": str(counts.get("pass", 0)),
        "failed": str(counts.get("fail", 0)),
        "errors": str(sum(counts.get(verdict, 0) for verdict in NO_RESULT)),
        "regressions": differences("regression"),
        "unexpected-passes": differences("unexpected pass"),
    }


def _results_of(outcome: RunOutcome) -> Results | None:
    """The results this run wrote, if it got as far as writing any."""
    if not outcome.results_path.exists():
        return None
    try:
        return read_results(outcome.results_path)
    except (InvalidResults, OSError, UnicodeDecodeError):
        return None


def _compared(expectations_path: Path | None, results: Results) -> Comparison | None:
    """The run's verdicts against the expectations file: the comparison `deltacheck run --expectations` makes."""
    if expectations_path is None:
        return None
    from deltacheck.corpus.loader import load_corpus  # the corpus's ids, to read the file as the run read it

    corpus = load_corpus(check_reference=False)
    expectations = load_expectations(expectations_path, {f.id for f in corpus.fixtures}, corpus.retired)
    return compare_verdicts(expectations, verdicts_by_fixture(results))


def _could_not_run(message: str, exit_code: int, environ: Mapping[str, str]) -> int:
    report_error(message, environ)
    write_summary(f"## deltacheck\n\n❌ Could not run: {escape_markdown(message)}\n", environ)
    return exit_code or 1
