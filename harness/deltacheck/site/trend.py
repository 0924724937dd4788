"""An implementation's release history on its page: a stacked bar per release (passed, failed, error;
a grey stub for a release that could not be scored), drawn as inline SVG by this module (no script, no
third-party code), the same numbers as a table, and each bisected finding's first and fixing release."""

from __future__ import annotations

from deltacheck.history.store import AdapterHistory
from deltacheck.reports.history import since_text, trend_rows
from deltacheck.site.html import esc, fixture_href, link, table

BAR, GAP, HEIGHT, LABELS, TOP = 18, 6, 120, 64, 8
COLOURS = (("passed", "#2e7d32"), ("failed", "#c62828"), ("error", "#ef6c00"))
UNSCORED = "#9e9e9e"


def trend_svg(history: AdapterHistory) -> str:
    rows = trend_rows(history)
    totals = [sum(int(cell) for cell in row[1:4]) for row in rows if row[1] != "–"]
    scale = HEIGHT / max(totals, default=1) if totals else 1.0
    width = len(rows) * (BAR + GAP) + GAP
    shapes = []
    for i, (version, *counts, note) in enumerate(rows):
        x = GAP + i * (BAR + GAP)
        y: float = TOP + HEIGHT
        if counts[0] == "–":
            shapes.append(
                f'<rect x="{x}" y="{y - 6}" width="{BAR}" height="6" fill="{UNSCORED}">'
                f"<title>{esc(version)}: {esc(note)}</title></rect>"
            )
        for (label, colour), count in zip(COLOURS, counts):
            if count == "–" or int(count) == 0:
                continue
            h = round(int(count) * scale, 1)
            y = round(y - h, 1)
            shapes.append(
                f'<rect x="{x}" y="{y}" width="{BAR}" height="{h}" fill="{colour}">'
                f"<title>{esc(version)}: {count} {label}</title></rect>"
            )
        lx, ly = x + BAR / 2, TOP + HEIGHT + 6
        shapes.append(
            f'<text x="{lx}" y="{ly}" font-size="10" text-anchor="end" '
            f'transform="rotate(-60 {lx} {ly})">{esc(version)}</text>'
        )
    legend = " ".join(
        f'<span style="color:{colour}">■</span> {label}' for label, colour in (*COLOURS, ("not scorable", UNSCORED))
    )
    return (
        f'<svg class="trend" role="img" aria-label="{esc(history.adapter)}: passed, failed and error per release" '
        f'width="{width}" height="{TOP + HEIGHT + LABELS}" viewBox="0 0 {width} {TOP + HEIGHT + LABELS}" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(shapes)}</svg><p>{legend}</p>'
    )


def render_history(history: AdapterHistory) -> str:
    rows = [
        f"<tr><td>{esc(version)}</td><td>{esc(passed)}</td><td>{esc(failed)}</td><td>{esc(error)}</td>"
        f'<td class="t">{esc(note)}</td></tr>'
        for version, passed, failed, error, note in trend_rows(history)
    ]
    parts = [
        f"<h2>Release history</h2><p>{esc(history.package)}, {len(rows)} release(s) scored with "
        f"<code>deltacheck history --adapter {esc(history.adapter)}</code>.</p>",
        trend_svg(history),
        table(["release", "passed", "failed", "error", "note"], rows, sortable=False),
    ]
    findings = (history.bisect or {}).get("findings") or []
    if findings:
        items = "".join(
            "<li>"
            + ", ".join(link(fixture_href(str(f), "../"), f) for f in entry.get("fixtures") or [])
            + f" {esc(entry.get('axis', ''))}: <code>{esc(entry.get('what', ''))}</code>: {esc(since_text(entry))}</li>"
            for entry in findings
        )
        parts.append(f"<h3>Findings, bisected</h3><ul>{items}</ul>")
    return "\n".join(parts)
