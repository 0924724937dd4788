"""The release history in REPORT.md: per implementation with history data, its trend (release ->
passed / failed / error, or why the release could not be scored) and, from its bisection, each
finding's "since X, fixed in Y". Kept to one table and one list per implementation: the site's
implementation page draws the same trend as a chart."""

from __future__ import annotations

from typing import Any

from deltacheck.history.store import AdapterHistory
from deltacheck.reports.links import SiteLinks, cell_text
from deltacheck.reports.markdown_text import escape_markdown

REASON_LIMIT = 90
MOVED_SHOWN = 8  # findings that appeared or were fixed, listed per implementation (all are on its page)


def same_reported_version(history: AdapterHistory) -> str | None:
    """The version every scored release's driver reported, when it is one for all (the driver reports
    another package's version, not the release's): said once, not on every row."""
    reported = {
        release.results.header["history"].get("reported_version") for release in history.releases if release.scored
    }
    return next(iter(reported)) if len(reported) == 1 and None not in reported and len(history.releases) > 1 else None


def trend_rows(history: AdapterHistory) -> list[tuple[str, str, str, str, str]]:
    """(release, passed, failed, error, note) per release, oldest first."""
    rows = []
    constant = same_reported_version(history)
    for release in history.releases:
        if release.scored:
            tally = release.tally()
            notes = []
            driver = release.results.header["history"].get("driver")
            if driver:  # below an API boundary: scored by an older driver
                notes.append(f"scored by the {driver} driver")
            reported = release.results.header["history"].get("reported_version")
            if reported and reported != constant:
                notes.append(f"the driver reported version {reported}")
            note = "; ".join(notes)
            rows.append((release.version, str(tally["passed"]), str(tally["failed"]), str(tally["error"]), note))
        else:
            reason = release.reason if len(release.reason) <= REASON_LIMIT else release.reason[: REASON_LIMIT - 1] + "…"
            rows.append((release.version, "–", "–", "–", f"{release.status}: {reason}"))
    return rows


def since_text(entry: dict[str, Any]) -> str:
    since = ("at or before " if entry.get("since_oldest") else "since ") + str(entry.get("since"))
    fixed = f"fixed in {entry['fixed_in']}" if entry.get("fixed_in") else "still present"
    skipped = entry.get("skipped") or []
    if skipped and entry.get("since_oldest"):  # every release before the first scored one is unscorable
        return f"{since} (the {len(skipped)} older release(s) unscorable), {fixed}"
    return f"{since}, {fixed}" + (f" (unscorable in between: {', '.join(skipped)})" if skipped else "")


def grouped_rows(rows: list[tuple[str, str, str, str, str]]) -> list[tuple[str, str, str, str, str]]:
    """Consecutive releases with the same counts and note as one row ("1.93.3 – 3.13.0 (11)")."""
    groups: list[list[tuple[str, str, str, str, str]]] = []
    for row in rows:
        if groups and groups[-1][-1][1:] == row[1:]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return [
        (group[0][0] if len(group) == 1 else f"{group[0][0]} – {group[-1][0]} ({len(group)})", *group[0][1:])
        for group in groups
    ]


def changed(entry: dict[str, Any]) -> bool:
    """A finding that appeared or was fixed inside the releases searched (the others were always there)."""
    return bool(entry.get("fixed_in")) or not entry.get("since_oldest")


def history_summary(histories: list[AdapterHistory], links: SiteLinks) -> list[str]:
    if not histories:
        return []
    out = [
        "## Release history\n",
        "Implementations scored over releases of their library (`deltacheck history`): consecutive releases "
        "that scored the same share a row; a release that could not be installed or driven says why. Each "
        "finding that appeared or was fixed inside the releases searched is listed with the first release "
        "showing it and the first without it (`deltacheck history --bisect`); every release, and every finding, "
        "is on the implementation's page.\n",
    ]
    for history in histories:
        out.append(f"### {links.implementation(history.adapter)} ({escape_markdown(history.package)})\n")
        out.append("| releases | passed | failed | error | note |")
        out.append("|---|---|---|---|---|")
        # A version and the counts are plain (a version is in its registry's syntax); the note is library text.
        out.extend(
            "| " + " | ".join([*(cell_text(cell) for cell in row[:4]), escape_markdown(row[4])]) + " |"
            for row in grouped_rows(trend_rows(history))
        )
        out.append("")
        if (constant := same_reported_version(history)) is not None:
            library = history.releases[-1].results.adapter.get("library") or "its library"
            out.append(
                f"Every release's driver reported {cell_text(str(library))} {cell_text(constant)}: the package it "
                "reports, which this history does not vary.\n"
            )
        findings = (history.bisect or {}).get("findings") or []
        moved = [entry for entry in findings if changed(entry)]
        for entry in moved[:MOVED_SHOWN]:
            fixtures = entry.get("fixtures") or []
            who = ", ".join(links.fixture(str(f)) for f in fixtures[:3]) + (
                f" (+{len(fixtures) - 3})" if len(fixtures) > 3 else ""
            )
            what = str(entry.get("what", ""))
            what = what if len(what) <= 120 else what[:119] + "…"
            axis = escape_markdown(str(entry.get("axis", "")))
            out.append(f"- {who or '–'} {axis}: {escape_markdown(what)}: {escape_markdown(since_text(entry))}")
        if len(moved) > MOVED_SHOWN:
            out.append(
                f"- {len(moved) - MOVED_SHOWN} more finding(s) that appeared or were fixed: on the page of "
                f"{links.implementation(history.adapter)}"
            )
        if findings:
            steady = len(findings) - len(moved)
            if steady:  # each: first shown at or before the oldest release scored, and not fixed
                oldest = next((str(e.get("since")) for e in findings if not changed(e)), "")
                newest = (history.bisect or {}).get("newest_scored") or history.releases[-1].version
                out.append(
                    f"- {steady} other finding(s) in every release scored: at or before {oldest}, "
                    f"still present in {newest}"
                )
            out.append("")
    return out
