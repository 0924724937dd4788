"""The Cost section (REPORT.md's summary, the results site's whole table), and the check CI runs on it.

Timings are not reproducible, so the section sits between two markers: CI compares everything
outside them byte for byte and, inside them, only which implementations and scenarios are present.

    python -m deltacheck.reports.cost COMMITTED GENERATED [COMMITTED GENERATED ...]

exits 1, printing what differs, when a generated report differs from the committed one outside the
markers or lists other implementation x scenario rows.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path
from typing import Any

from deltacheck.cost.timing import AT_FRAGMENTS, SUPER_LINEAR
from deltacheck.protocols import PROTOCOLS

BEGIN = "<!-- deltacheck:cost:begin -->"
END = "<!-- deltacheck:cost:end -->"
CI_SENTENCE = (
    "Timings differ from run to run, so CI compares everything outside the two `deltacheck:cost` "
    "comments around this section byte for byte and checks inside them only that the same "
    "implementations and scenarios are listed."
)

CostRun = tuple[dict[str, Any], list[dict[str, Any]]]  # (header, records) of one cost-<adapter>.jsonl


# -- cells, shared with the command's table --------------------------------------------------------


# By a figure's basis; looked up with whatever a summary holds there.
_SHORT_BASIS: dict[object, str] = {
    "extrapolated": "extrap.",
    "interpolated": "interp.",
    "at most (measured)": "or less",
}


def seconds_cell(seconds: float | None, basis: str) -> str:
    if seconds is None:
        return "–"
    shown = f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
    return shown if basis == "measured" else f"{shown} ({_SHORT_BASIS.get(basis, basis)})"


def ratio_cell(summary: dict[str, Any]) -> str:
    at, reference = summary.get("seconds_at_10k"), summary.get("reference_seconds_at_10k")
    if at is None or not reference:
        return "–"
    return f"{at / reference:.1f}x"


def exponent_cell(summary: dict[str, Any]) -> str:
    exponent = summary.get("exponent")
    return "–" if exponent is None else f"{exponent:.2f}"


def over_cell(summary: dict[str, Any]) -> str:
    n, basis = summary.get("n_over_1s"), summary.get("n_over_1s_basis")
    if n is None:
        return "–"
    return f"{_count(n)} ({_SHORT_BASIS.get(basis, basis)})"


def memory_cell(summary: dict[str, Any]) -> str:
    peak = summary.get("peak_memory_bytes")
    if peak is None:
        return "–"
    method = "RSS" if "RSS" in (summary.get("memory_method") or "") else "traced"
    return f"{peak / 1e6:.1f} MB {method}"


def measured_cell(summary: dict[str, Any]) -> str:
    sizes = summary.get("sizes") or []
    return "–" if not sizes else f"{_count(sizes[0])}–{_count(sizes[-1])}" if len(sizes) > 1 else _count(sizes[0])


def _count(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e3:
        return f"{n / 1e3:.1f}k".replace(".0k", "k")
    return f"{n:.0f}"


# -- rows ------------------------------------------------------------------------------------------


def cost_rows(runs: list[CostRun]) -> list[tuple[str, dict[str, Any]]]:
    """(implementation, scenario summary), the reference first, then by name; scenarios by protocol and id."""
    order: dict[object, int] = {p: i for i, p in enumerate(PROTOCOLS)}  # looked up with whatever a record holds
    rows = []
    for header, records in runs:
        name = (header.get("adapter") or {}).get("name", "?")
        for record in records:
            if record.get("kind") == "scenario":
                rows.append((name, record))
    return sorted(
        rows,
        key=lambda row: (
            row[0] != "reference",
            row[0],
            order.get(row[1].get("protocol"), 99),
            row[1].get("scenario", ""),
        ),
    )


def _cells(summary: dict[str, Any]) -> list[str]:
    failure = summary.get("failure")
    if failure:
        return [f"{failure['verdict'].upper()} at N={failure['fragments']:,}"] + ["–"] * 6
    return [
        seconds_cell(summary.get("seconds_at_10k"), summary.get("seconds_at_10k_basis", "")),
        seconds_cell(summary.get("reference_seconds_at_10k"), "measured"),
        ratio_cell(summary),
        exponent_cell(summary),
        over_cell(summary),
        memory_cell(summary),
        measured_cell(summary),
    ]


COLUMNS = (
    "implementation",
    "scenario",
    f"time at {AT_FRAGMENTS // 1000}k",
    f"reference at {AT_FRAGMENTS // 1000}k",
    "ratio",
    "exponent",
    "over 1 s from N",
    "peak memory",
    "N measured",
    "finding",
)

EXPLANATION = (
    "Long generated streams (corpus/scenarios: a spec per scenario, the stream and its expected result generated) are "
    "timed at growing N through each implementation, delivered as a server sends them (one SSE event per network "
    "read), and every result is judged like a fixture: a wrong result is listed as a failure, not as a time. A time "
    "is the best of up to three runs of one stream after a warm-up run; the reference is timed on the same streams "
    "in the same run, delivered the same way (in process, or through the Python driver for an implementation behind "
    "a driver, whose time includes the request's trip through the driver protocol), and the ratio is to it. The "
    "exponent is the slope of log(time) against log(N) over the sizes within 10x of the largest measured; N stops "
    "growing once one stream exceeds the time budget{budget} (or is predicted to take twice that; five times the "
    "budget for a stream that grew super-linearly between its last two sizes, so that the growth shows), and a "
    "figure beyond the "
    "sizes measured is extrapolated along that slope and marked so. Peak memory is what tracemalloc traced for an "
    "in-process implementation, the driver process's peak RSS (reset before each stream) for a driver. An exponent "
    f"above {SUPER_LINEAR} is a finding if it holds after the sizes it was fitted over are timed a second time."
)


def explanation(runs: list[CostRun]) -> str:
    """The section's explanation, naming the time budget when every run had the same one."""
    budgets = {header.get("budget_seconds") for header, _ in runs}
    budget = next(iter(budgets)) if len(budgets) == 1 else None
    return EXPLANATION.format(budget=f" ({budget:g} s)" if isinstance(budget, (int, float)) else "")


def render_cost(runs: list[CostRun]) -> list[str]:
    """The Markdown section, markers included."""
    out = [BEGIN, "## Cost\n", explanation(runs) + "\n", CI_SENTENCE + "\n"]
    rows = cost_rows(runs)
    if not rows:
        out += ["No cost results.", "", END, ""]
        return out
    out.append("| " + " | ".join(COLUMNS) + " |")
    out.append("|" + "---|" * len(COLUMNS))
    for name, summary in rows:
        finding = "super-linear" if summary.get("super_linear") else "–"
        out.append(f"| {name} | {summary.get('scenario')} | " + " | ".join(_cells(summary)) + f" | {finding} |")
    out.append("")
    flagged = [(n, s) for n, s in rows if s.get("super_linear")]
    out.append("### Super-linear growth\n")
    if flagged:
        for name, summary in flagged:
            cause = summary.get("cause")
            out.append(
                f"- **{name}** on {summary.get('scenario')}: exponent {exponent_cell(summary)}; "
                + (f"known cause: {_plain(cause)}" if cause else "cause not yet known")
            )
    else:
        out.append("None.")
    out.append("")
    failed = [(n, s) for n, s in rows if s.get("failure")]
    if failed:
        out.append("### Wrong results on long streams\n")
        for name, summary in failed:
            failure = summary["failure"]
            out.append(
                f"- **{name}** on {summary.get('scenario')} at N={failure['fragments']:,}: "
                f"{failure['verdict']}: {code_span(failure.get('message', ''))}"
            )
        out.append("")
    out += [END, ""]
    return out


def render_cost_summary(runs: list[CostRun], page: str) -> list[str]:
    """REPORT.md's Cost section, markers included: one row per implementation (the scenarios it was timed on,
    its largest ratio to the reference and exponent, its findings); `page` is the site's whole section."""
    out = [BEGIN, "## Cost\n", explanation(runs) + "\n", CI_SENTENCE + "\n"]
    out.append(f"Every implementation x scenario row, with its times and memory: [{page}]({page}).\n")
    rows = cost_rows(runs)
    if not rows:
        out += ["No cost results.", "", END, ""]
        return out
    by_name: dict[str, list[dict[str, Any]]] = {}
    for name, summary in rows:
        by_name.setdefault(name, []).append(summary)
    out.append("| implementation | scenarios timed | largest ratio | largest exponent | super-linear | wrong results |")
    out.append("|---|---|---|---|---|---|")
    for name, summaries in by_name.items():
        ratios = [s["seconds_at_10k"] / s["reference_seconds_at_10k"] for s in summaries if _has_ratio(s)]
        exponents = [s["exponent"] for s in summaries if s.get("exponent") is not None]
        flagged = sorted(str(s.get("scenario")) for s in summaries if s.get("super_linear"))
        failed = sorted(str(s.get("scenario")) for s in summaries if s.get("failure"))
        out.append(
            f"| {name} | {len(summaries)} | {f'{max(ratios):.1f}x' if ratios else '–'} "
            f"| {f'{max(exponents):.2f}' if exponents else '–'} | {_plain(', '.join(flagged)) or '–'} "
            f"| {_plain(', '.join(failed)) or '–'} |"
        )
    out += ["", END, ""]
    return out


def _has_ratio(summary: dict[str, Any]) -> bool:
    return summary.get("seconds_at_10k") is not None and bool(summary.get("reference_seconds_at_10k"))


def code_span(text: str, limit: int = 300) -> str:
    """A library's message as one Markdown code span: never read as emphasis, links or HTML."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"


def _plain(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# -- the CI check ----------------------------------------------------------------------------------

_MD_ROW = re.compile(r"^\| ([^|]+?) \| ([^|]+?) \|", re.MULTILINE)


def split_cost(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The report with the cost section's inside removed, and the (implementation, scenario) rows inside it."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return text, []
    inside = text[start + len(BEGIN) : end]
    rows = [
        (a.strip(), b.strip())
        for a, b in _MD_ROW.findall(inside)
        if a.strip() not in ("implementation", "---") and not a.startswith("-")
    ]
    return text[: start + len(BEGIN)] + text[end:], rows


def differences(committed: str, generated: str, label: str) -> list[str]:
    """What differs between two reports, ignoring the timings inside the cost markers."""
    old_outside, old_rows = split_cost(committed)
    new_outside, new_rows = split_cost(generated)
    out = []
    if old_outside != new_outside:
        diff = difflib.unified_diff(
            old_outside.splitlines(),
            new_outside.splitlines(),
            f"{label} (committed)",
            f"{label} (generated)",
            lineterm="",
            n=1,
        )
        out.append(f"{label} differs outside the cost section:\n" + "\n".join(list(diff)[:80]))
    if sorted(old_rows) != sorted(new_rows):
        missing, extra = sorted(set(old_rows) - set(new_rows)), sorted(set(new_rows) - set(old_rows))
        out.append(
            f"{label}: the cost section lists other implementation x scenario rows "
            f"(only committed: {missing or 'none'}; only generated: {extra or 'none'})"
        )
    return out


def main(argv: list[str]) -> int:
    if not argv or len(argv) % 2:
        print("usage: python -m deltacheck.reports.cost COMMITTED GENERATED [COMMITTED GENERATED ...]", file=sys.stderr)
        return 2
    problems = []
    for committed, generated in zip(argv[::2], argv[1::2]):
        problems += differences(
            Path(committed).read_text(encoding="utf-8"),
            Path(generated).read_text(encoding="utf-8"),
            Path(generated).name,
        )
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
