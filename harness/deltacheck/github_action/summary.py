"""The job summary: what one `deltacheck run` found, in Markdown for the workflow run's page.

Everything in it is read from the run's results file and, when one is given, the comparison of its
verdicts with the expectations file (`deltacheck.judge.expectations.compare_verdicts`, the same
comparison that decides `deltacheck run`'s exit status). Text that libraries, adapters and
fixtures wrote is escaped: it shows as itself and never ends a table row or becomes markup.
"""

from __future__ import annotations

import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltacheck.judge.expectations import FIXTURE_ID, Comparison, Difference
from deltacheck.judge.verdict import PASSING, UNSCORED, VERDICTS
from deltacheck.reports.markdown_text import code_span, escape_markdown, table_cell
from deltacheck.running.results import Results

MAX_ROWS = 50  # per table: a job summary holds at most 1 MiB, and the results artifact has every row
DIFFERENCE_CHARS = 300  # of a first difference in a table cell
# Each kind of difference from the expectations file (deltacheck.judge.expectations.classify), as headed here.
DIFFERENCE_KINDS = {
    "regression": "Regressions (expected to pass, did not)",
    "unexpected pass": "Unexpected passes (update the expectations file)",
    "changed": "Changed failures",
}


@dataclass(frozen=True)
class SummaryContext:
    """What the summary says about the run besides its results."""

    exit_code: int
    results_path: Path
    junit_path: Path
    expectations_path: Path | None = None
    site_url: str | None = None  # the results site: fixture ids link to {site_url}/fixtures/<ID>.html
    reproduce: str | None = None  # the adapter option of `deltacheck explain`, e.g. "--adapter mine:Mine"


def verdict_counts(results: Results) -> Counter[str]:
    return Counter(record["verdict"] for record in results.records)


def verdicts_by_fixture(results: Results) -> dict[str, str]:
    """Each fixture's verdict, as `deltacheck run` hands them to the expectations check."""
    return {record["fixture"]: record["verdict"] for record in results.records if record.get("fixture")}


def failing_records(results: Results) -> list[dict[str, Any]]:
    return [record for record in results.records if record["verdict"] not in PASSING | UNSCORED]


def render_summary(results: Results, comparison: Comparison | None, context: SummaryContext) -> str:
    corpus_version = str(results.header.get("corpus_version", "?"))
    counts = verdict_counts(results)
    records = {record.get("fixture"): record for record in results.records}
    out = [f"## deltacheck: {_adapter_heading(results.adapter)}", "", _headline(counts, comparison, context)]
    if results.ending is not None:  # a partial run is reported as what it is
        out += ["", f"⚠️ Incomplete run: {escape_markdown(results.ending)}"]
    out += [
        "",
        f"corpus {escape_markdown(corpus_version)} · contract {escape_markdown(str(results.header.get('contract_version', '?')))}"
        f" · {len(results.records)} fixture(s) · results {code_span(str(context.results_path))},"
        f" JUnit {code_span(str(context.junit_path))} (in the run's artifact)",
        "",
        "| verdict | fixtures |",
        "|---|---:|",
        *(f"| {verdict} | {counts.get(verdict, 0)} |" for verdict in VERDICTS),
    ]
    if comparison is not None:
        out += _comparison_sections(comparison, records, corpus_version, context)
    out += _failures_section(failing_records(results), comparison, corpus_version, context)
    return "\n".join(out) + "\n"


def _adapter_heading(adapter: dict[str, Any]) -> str:
    name = table_cell(str(adapter.get("name", "?")), limit=80)
    library = " ".join(str(adapter.get(key, "")) for key in ("library", "version")).strip()
    return f"{name} ({table_cell(library, limit=80)})" if library else name


def _headline(counts: Counter[str], comparison: Comparison | None, context: SummaryContext) -> str:
    failing = sum(n for verdict, n in counts.items() if verdict not in PASSING | UNSCORED)
    where = code_span(str(context.expectations_path)) if context.expectations_path else ""
    if comparison is None:
        if context.exit_code == 0:
            return f"✅ No fixture failed ({counts.get('pass', 0)} passed)."
        return f"❌ {failing} fixture(s) failed (exit status {context.exit_code})."
    if context.exit_code == 0:
        return f"✅ Every verdict is as {where} expects ({failing} known failure(s))."
    kinds = Counter(difference.kind for difference in comparison.differences)
    listed = ", ".join(f"{kinds[kind]} {kind}" for kind in DIFFERENCE_KINDS if kinds[kind])
    listed = listed or f"exit status {context.exit_code}"
    return f"❌ Not as {where} expects: {listed}."


def _comparison_sections(
    comparison: Comparison, records: dict[Any, dict[str, Any]], version: str, context: SummaryContext
) -> list[str]:
    out: list[str] = []
    for kind, heading in DIFFERENCE_KINDS.items():
        differences = [d for d in comparison.differences if d.kind == kind]
        out += ["", f"### {heading}: {len(differences)}"]
        if not differences:
            continue
        out += ["", "| fixture | title | expected | got | first difference |", "|---|---|---|---|---|"]
        out += [_difference_row(d, records.get(d.fixture_id, {}), version, context) for d in differences[:MAX_ROWS]]
        out += _more(len(differences))
    if comparison.new:
        new = [_fixture_cell(fixture_id, version, context) for fixture_id in list(comparison.new)[:MAX_ROWS]]
        out += [
            "",
            f"### New to the expectations file: {len(comparison.new)} (not judged)",
            "",
            ", ".join(new) + (" …" if len(comparison.new) > MAX_ROWS else ""),
        ]
    return out


def _difference_row(difference: Difference, record: dict[str, Any], version: str, context: SummaryContext) -> str:
    expected = difference.expected
    bug = f" ({_bug_link(expected.bug)})" if expected.bug else ""
    reason = f": {table_cell(expected.reason, limit=120)}" if expected.reason else ""
    return (
        f"| {_fixture_cell(difference.fixture_id, version, context)} | {table_cell(record.get('title', ''), limit=120)}"
        f" | {table_cell(expected.verdict)}{reason}{bug} | {table_cell(difference.observed)}"
        f" | {_first_difference(record)} |"
    )


def _failures_section(
    failing: list[dict[str, Any]], comparison: Comparison | None, version: str, context: SummaryContext
) -> list[str]:
    out = ["", f"### Failing fixtures: {len(failing)}"]
    if not failing:
        return out
    kinds = {d.fixture_id: d.kind for d in comparison.differences} if comparison is not None else {}
    with_expectations = comparison is not None
    header = "| fixture | verdict | title | first difference |" + (" expectations |" if with_expectations else "")
    out += ["", header, "|---" * (5 if with_expectations else 4) + "|"]
    for record in failing[:MAX_ROWS]:
        fixture_id = str(record["fixture"])
        row = (
            f"| {_fixture_cell(fixture_id, version, context)} | {table_cell(record['verdict'])}"
            f" | {table_cell(record.get('title', ''), limit=120)} | {_first_difference(record)} |"
        )
        if comparison is not None:
            as_expected = "new" if fixture_id in comparison.new else "as expected"
            row += f" {table_cell(kinds.get(fixture_id, as_expected))} |"
        out.append(row)
    out += _more(len(failing))
    if context.reproduce:
        command = f"deltacheck explain ID {context.reproduce} --format markdown"
        out += ["", f"A bug report for one of them, ready to paste: {code_span(command)}"]
    return out


def _more(total: int) -> list[str]:
    return ["", f"… and {total - MAX_ROWS} more: see the results file."] if total > MAX_ROWS else []


def _first_difference(record: dict[str, Any]) -> str:
    return table_cell(record.get("first_divergence") or record.get("message") or "", limit=DIFFERENCE_CHARS)


def _fixture_cell(fixture_id: str, version: str, context: SummaryContext) -> str:
    """`ID@VERSION`, linked to the fixture's page on the results site when there is one."""
    citation = table_cell(f"{fixture_id}@{version}")
    if context.site_url and FIXTURE_ID.match(fixture_id):
        return f"[{citation}]({context.site_url}/fixtures/{fixture_id}.html)"
    return citation


def _bug_link(url: str) -> str:
    """The expectations file's bug link: a link when it is a plain http(s) address, else shown as text."""
    if url.startswith(("https://", "http://")) and not any(c in url for c in " ()<>[]`|\"'\n\r"):
        return f"[bug]({url})"
    return table_cell(url, limit=120)


def reproduce_option(adapter: str | None, adapter_cmd: str | None) -> str | None:
    """The adapter option of a `deltacheck explain` command line, on one line."""
    if adapter is not None:
        return f"--adapter {shlex.quote(' '.join(adapter.split()))}"
    if adapter_cmd is not None:
        return f"--adapter-cmd {shlex.quote(' '.join(adapter_cmd.split()))}"
    return None
