"""REPORT.md's short forms of the fuzzing, mutation and seed sections: their totals, with a link to the
site's page that holds the whole section (reports/adequacy.py renders it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from deltacheck.history.store import AdapterHistory
from deltacheck.reports.adequacy import render_seeds
from deltacheck.reports.links import SiteLinks

JsonlRun = tuple[dict[str, Any], list[dict[str, Any]]]


def fuzz_summary(runs: list[JsonlRun], links: SiteLinks) -> list[str]:
    out = [
        "## Fuzzing\n",
        "Re-chunking invariance and robustness per adapter, all protocols and modes together; the counts per "
        f"protocol and mode and every shrunk counterexample: [{links.page('fuzzing.html')}]({links.page('fuzzing.html')}).\n",
        "| adapter | fixtures fuzzed | survived | failed | examples | not fuzzed |",
        "|---|---|---|---|---|---|",
    ]
    for header, records in sorted(
        runs, key=lambda r: (r[0]["adapter"]["name"] != "reference", r[0]["adapter"]["name"])
    ):
        status = Counter(record["status"] for record in records)
        examples = sum(record.get("examples", 0) for record in records)
        out.append(
            f"| {links.implementation(header['adapter']['name'])} | {status['survived'] + status['failed']} "
            f"| {status['survived']} | {status['failed']} | {examples} | {status['not fuzzed']} |"
        )
    out.append("")
    return out


def mutation_summary(header: dict[str, Any], records: list[dict[str, Any]], links: SiteLinks) -> list[str]:
    mutants = [m["name"] for m in header["mutants"]]
    killed = {record["mutant"] for record in records if record["killed"]}
    survivors = [name for name in mutants if name not in killed]
    out = [
        "## Mutation adequacy\n",
        "Deliberately broken accumulators, one per known bug class; a fixture kills a mutant when the mutant does "
        "not pass it. The kill matrix and each mutant's killers: "
        f"[{links.page('mutants.html')}]({links.page('mutants.html')}).\n",
        f"Kill rate: **{len(mutants) - len(survivors)} / {len(mutants)}** mutants killed.\n",
    ]
    out.append(
        f"Not killed: {', '.join(f'`{name}`' for name in survivors)}.\n" if survivors else "Every mutant is killed.\n"
    )
    return out


def seeds_summary(
    runs: list[tuple[dict[str, Any], list[dict[str, Any]]]],
    header: dict[str, Any],
    records: list[dict[str, Any]],
    links: SiteLinks,
    histories: Sequence[AdapterHistory] = (),
) -> list[str]:
    """Per seed report: the mutant, the fixtures that catch it, the real implementation, on how many of
    them the seed bug shows, and across releases: the section's own lines, without its tables."""
    section = render_seeds(runs, header, records, histories)
    if not section:
        return []
    kept = (
        "### ",
        "- mutant:",
        "- fixtures that catch it:",
        "- real implementation:",
        "The seed bug shows on",
        "- across releases",
    )
    out = [
        "## Seed reports and the real code\n",
        "Each seed bug report, the mutant modelled on it and what the real code does on the fixtures that catch "
        f"it, fixture by fixture: [{links.page('seeds.html')}]({links.page('seeds.html')}).\n",
    ]
    for line in section[2:]:
        if line.startswith("- fixtures that catch it:"):
            fixtures = line.split(": ", 1)[1]
            line = (
                f"- fixtures that catch it: {len(fixtures.split(', ')) if '**none**' not in fixtures else '**none**'}"
            )
        if line.startswith(("### ", "The seed bug shows on")):
            out += [
                *([""] if out[-1] and not out[-1].endswith("\n") else []),
                line.rstrip("\n"),
                "",
            ]  # its own paragraph
        elif line.startswith(kept):
            out.append(line)
    if out[-1]:
        out.append("")
    return out
