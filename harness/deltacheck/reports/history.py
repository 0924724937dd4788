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


def trend_rows(history: AdapterHistory) -> list[tuple[str, str, str, str, str]]:
    """(release, passed, failed, error, note) per release, oldest first."""
    rows = []
    for release in history.releases:
        if release.scored:
            tally = release.tally()
            note = ""
            reported = release.results.header["history"].get("reported_version")
            if reported:
                note = f"the driver reported version {reported}"
            rows.append((release.version, str(tally["passed"]), str(tally["failed"]), str(tally["error"]), note))
        else:
            reason = release.reason if len(release.reason) <= REASON_LIMIT else release.reason[: REASON_LIMIT - 1] + "…"
            rows.append((release.version, "–", "–", "–", f"{release.status}: {reason}"))
    return rows


def since_text(entry: dict[str, Any]) -> str:
    since = ("at or before " if entry.get("since_oldest") else "since ") + str(entry.get("since"))
    fixed = f"fixed in {entry['fixed_in']}" if entry.get("fixed_in") else "still present"
    skipped = entry.get("skipped") or []
    return f"{since}, {fixed}" + (f" (unscorable in between: {', '.join(skipped)})" if skipped else "")


def history_summary(histories: list[AdapterHistory], links: SiteLinks) -> list[str]:
    if not histories:
        return []
    out = [
        "## Release history\n",
        "Each implementation below was scored over releases of its library (`deltacheck history`); a release "
        "that could not be installed or driven is listed with the reason. Findings are bisected with "
        "`deltacheck history --bisect`.\n",
    ]
    for history in histories:
        out.append(f"### {links.implementation(history.adapter)} ({escape_markdown(history.package)})\n")
        out.append("| release | passed | failed | error | note |")
        out.append("|---|---|---|---|---|")
        # A version and the counts are plain (a version is in its registry's syntax); the note is library text.
        out.extend(
            "| " + " | ".join([*(cell_text(cell) for cell in row[:4]), escape_markdown(row[4])]) + " |"
            for row in trend_rows(history)
        )
        out.append("")
        findings = (history.bisect or {}).get("findings") or []
        if findings:
            out.append("Findings, bisected:\n")
            for entry in findings:
                fixtures = entry.get("fixtures") or []
                who = ", ".join(links.fixture(str(f)) for f in fixtures[:3]) + (
                    f" (+{len(fixtures) - 3})" if len(fixtures) > 3 else ""
                )
                what = str(entry.get("what", ""))
                what = what if len(what) <= 120 else what[:119] + "…"
                axis = escape_markdown(str(entry.get("axis", "")))
                out.append(f"- {who or '–'} {axis}: {escape_markdown(what)}: {escape_markdown(since_text(entry))}")
            out.append("")
    return out
