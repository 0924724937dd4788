"""A seed bug across releases: on how many of the fixtures that catch its mutant each recorded release
of a library shows the bug (`deltacheck history`), consecutive releases alike in one group, and the
releases where that count first rises and where it falls: when the bug came and when it went."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from deltacheck.history.store import AdapterHistory

# (records of one release by fixture, its adapter description) -> how many of the fixtures show the bug
Shows = Callable[[dict[str, dict[str, Any]], dict[str, Any]], int]
REASON_LIMIT = 100


def seed_trend_line(history: AdapterHistory, fixtures: Sequence[str], shows: Shows) -> str | None:
    """One line for the seed section, or None when no release of the history ran one of the fixtures."""
    steps: list[tuple[str, str]] = []  # (release, what it shows)
    counts: list[tuple[str, int]] = []
    for release in history.releases:
        if not release.scored:
            reason = release.reason if len(release.reason) <= REASON_LIMIT else release.reason[: REASON_LIMIT - 1] + "…"
            steps.append((release.version, f"{release.status} ({reason})"))
            continue
        records = {r["fixture"]: r for r in release.results.records if r.get("fixture") in fixtures}
        if not records:
            continue
        count = shows(records, release.results.adapter)
        counts.append((release.version, count))
        steps.append((release.version, f"{count} of {len(fixtures)}"))
    if not counts:
        return None
    groups: list[list[tuple[str, str]]] = []
    for step in steps:
        if groups and groups[-1][-1][1] == step[1]:
            groups[-1].append(step)
        else:
            groups.append([step])
    shown = "; ".join(
        (group[0][0] if len(group) == 1 else f"{group[0][0]} – {group[-1][0]} ({len(group)})") + f": {group[0][1]}"
        for group in groups
    )
    return f"- across releases of `{history.adapter}` (`deltacheck history`): {shown}.{_turns(counts)}"


def _turns(counts: list[tuple[str, int]]) -> str:
    """Where the count rises (the bug came) and falls (fixed, on some fixtures or all), between scored releases."""
    turns = []
    for (before, was), (version, now) in zip(counts, counts[1:]):
        if now > was:
            turns.append(f"first shows on {now - was} more in {version} (after {before})")
        elif now < was:
            turns.append(f"{'gone' if now == 0 else f'shows on {was - now} fewer'} in {version} (after {before})")
    if not turns:
        return " The count never changes between scored releases." if counts[-1][1] else ""
    return " The seed bug " + "; ".join(turns) + "."
