"""implementations/<name>.html: one implementation's description, scores, badges, distinct findings
with their upstream status, its release history (deltacheck history), cost rows, and every failure with its diff and the bug report text that
`deltacheck explain ID --adapter NAME --format markdown` prints, ready to paste."""

from __future__ import annotations

from typing import Any

from deltacheck.adapter import CAPABILITIES
from deltacheck.contributing.explain import Explanation, render_markdown, served_request
from deltacheck.judge.findings import distinct_findings
from deltacheck.judge.severity import SEVERITIES
from deltacheck.judge.upstream import summary_of
from deltacheck.judge.verdict import Verdict
from deltacheck.reports.cost import render_cost
from deltacheck.site.badges import badge_markdown, badge_path
from deltacheck.site.facts import Implementation, SiteFacts
from deltacheck.site.html import esc, fixture_href, link, pre, table
from deltacheck.site.markdown import to_html
from deltacheck.site.trend import render_history

_VERDICT_FIELDS = set(Verdict.__dataclass_fields__)


def _description(implementation: Implementation) -> str:
    a = implementation.adapter
    lacking = sorted(set(CAPABILITIES) - set(a.get("capabilities") or []))
    notes = a.get("capability_notes") or {}
    gateway = a.get("gateway") if isinstance(a.get("gateway"), dict) else None
    items = [
        ("library", f"{a.get('library') or '–'} {a.get('version') or ''}"),
        ("kind", implementation.kind),
        ("language", implementation.language),
        ("protocols", ", ".join(a.get("protocols") or [])),
        ("transport", a.get("transport") or "the protocol's own"),
        (
            "scope",
            (a.get("scope") or "not declared (judged as multi-provider)")
            + (f": {a['scope_note']}" if a.get("scope_note") else ""),
        ),
        ("code path", a.get("code_path") or "–"),
    ]
    if gateway:
        items.insert(
            1, ("route", f"{gateway.get('upstream')} → {gateway.get('downstream')} ({gateway.get('endpoint', '')})")
        )
    facts = "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items) + "</dl>"
    capabilities = "".join(
        f"<li><code>{esc(c)}</code>: {esc(notes.get(c) or 'no reason recorded')}</li>" for c in lacking
    )
    shown = (
        f"<h2>Capabilities lacking</h2><ul>{capabilities}</ul>" if capabilities else "<p>Every capability declared.</p>"
    )
    return facts + shown


def _scores(implementation: Implementation, site_url: str | None) -> str:
    rows = []
    for protocol, counts in implementation.scores().items():
        other = counts["other_severities"]
        path = badge_path(implementation.name, protocol)
        snippet = badge_markdown(implementation.name, protocol, site_url, "")
        rows.append(
            f"<tr><td>{esc(protocol)}</td><td>{counts['score']} / {counts['scored']}</td>"
            f"<td>{counts['spec_violations']}</td>"
            f"<td>{esc(' / '.join(str(n) for n in counts['violations_by_verdict'].values()))}</td>"
            + "".join(f"<td>{other[s]}</td>" for s in SEVERITIES[1:])
            + f"<td>{counts['passed']}</td><td>{counts['n/a']}</td><td>{counts['skip']}</td>"
            f'<td><img src="../{esc(path)}" alt="{esc(protocol)} {counts["score"]}/{counts["scored"]}"></td>'
            f'<td><code class="snippet">{esc(snippet)}</code></td></tr>'
        )
    headers = ["protocol", "score", "spec violations", "fail / error / crash / timeout", *SEVERITIES[1:]]
    headers += ["passed", "n/a", "skip", "badge", "markdown to embed it"]
    where = "the site's URL" if site_url else "a path relative to the site's top (give --site-url for absolute links)"
    return f"<h2>Scores and badges</h2><p>The badge snippets use {esc(where)}.</p>" + table(
        headers, rows, sortable=False
    )


def _findings(facts: SiteFacts, implementation: Implementation) -> str:
    rows = []
    for row in implementation.findings(facts.tags, facts.upstream):
        fixtures = ", ".join(link(fixture_href(f, "../"), f) for f in row.finding.fixtures)
        severity = (
            row.severity  # one severity named alone; several with their counts
            if len(row.severities) == 1
            else ", ".join(f"{s} {row.severities[s]}" for s in SEVERITIES if row.severities[s])
        )
        rows.append(
            f'<tr><td>{esc(severity)}</td><td>{esc(row.finding.axis)}</td><td class="t">{esc(row.finding.what)}</td>'
            f"<td>{esc(row.finding.shapes_text())}</td><td>{fixtures}</td><td>{len(row.finding.fixtures)}</td>"
            f'<td class="t">{esc(summary_of(row.upstream))}</td></tr>'
        )
    if not rows:
        return "<h2>Distinct findings</h2><p>No failures.</p>"
    return "<h2>Distinct findings</h2>" + table(
        ["severity", "axis", "finding", "stream shapes", "fixtures", "count", "upstream"], rows
    )


def explain_markdown(facts: SiteFacts, implementation: Implementation, record: dict[str, Any]) -> str | None:
    """What `deltacheck explain ID --adapter NAME --format markdown` prints for this failure, from the recorded
    verdict (the run is not repeated); None for a fixture the corpus does not hold."""
    fixture = facts.fixtures.get(record.get("fixture", ""))
    if fixture is None:
        return None
    verdict = Verdict(**{k: v for k, v in record.items() if k in _VERDICT_FIELDS})
    findings = tuple(
        (finding, tuple(facts.upstream.of(implementation.name, finding))) for finding in distinct_findings([record])
    )
    reproduce: tuple[str, ...] = ()
    if not implementation.is_gateway:
        reproduce = (f"deltacheck explain {fixture.id} --adapter {implementation.name} --format markdown",)
    explanation = Explanation(
        fixture, facts.corpus.cite(fixture.id), implementation.adapter, verdict, findings, reproduce
    )
    try:
        served = served_request(fixture, implementation.adapter)
    except ValueError:  # a transport fixture the adapter's wire cannot carry: its own bytes
        served = fixture.request()
    return render_markdown(explanation, served.sse, served.binary)


def _failures(facts: SiteFacts, implementation: Implementation) -> str:
    sections = []
    for record in implementation.failures():
        fixture = record.get("fixture") or f"({record.get('path')})"
        what = record.get("first_divergence") or record.get("message", "")
        diff = pre(record["diff"], "diff") if record.get("diff") else ""
        report = explain_markdown(facts, implementation, record)
        paste = (
            f"<details><summary>Bug report text (<code>deltacheck explain {esc(fixture)} --adapter "
            f"{esc(implementation.name)} --format markdown</code>)</summary>{pre(report, 'paste')}</details>"
            if report
            else ""
        )
        sections.append(
            f'<section id="{esc(fixture)}"><h3>{link(fixture_href(fixture, "../"), fixture)}: '
            f"{esc(record['verdict'])} ({esc(implementation.severity(record))}) — {esc(facts.title_of(fixture))}</h3>"
            f"<p><code>{esc(what)}</code></p>{diff}{paste}</section>"
        )
    return "<h2>Failures</h2>" + ("\n".join(sections) if sections else "<p>No failures.</p>")


def _cost(facts: SiteFacts, implementation: Implementation) -> str:
    mine = [run for run in facts.inputs.cost if (run[0].get("adapter") or {}).get("name") == implementation.name]
    if not mine:
        return ""
    return to_html(render_cost(mine))


def _history(facts: SiteFacts, implementation: Implementation) -> str:
    mine = [h for h in facts.inputs.history if h.adapter == implementation.name]
    return render_history(mine[0]) if mine else ""


def render_implementation(facts: SiteFacts, implementation: Implementation, site_url: str | None) -> str:
    return "\n".join(
        [
            _description(implementation),
            _scores(implementation, site_url),
            _findings(facts, implementation),
            _history(facts, implementation),
            _cost(facts, implementation),
            _failures(facts, implementation),
        ]
    )
