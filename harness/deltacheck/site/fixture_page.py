"""fixtures/<ID>.html: one fixture (its stream, expected result, the CONTRACT rules it cites) and every
implementation's verdict on it, with the divergence and diff of each failure."""

from __future__ import annotations

import json
from typing import Any

from deltacheck.model import Fixture
from deltacheck.reports.scorecard import NOT_PASSED
from deltacheck.site.facts import Implementation, SiteFacts, cited_rules, contract_excerpt
from deltacheck.site.html import (
    esc,
    external_link,
    implementation_href,
    link,
    pre,
    pretty_json,
    table,
    text_with_links,
)
from deltacheck.site.markdown import inline  # CONTRACT.md's own Markdown: escaped, then code and emphasis


def _facts_list(fixture: Fixture, citation: str) -> str:
    prov = fixture.provenance
    items = [
        ("cite as", f"<code>{esc(citation)}</code>"),
        ("protocol", esc(fixture.protocol)),
        ("tags", esc(", ".join(fixture.tags))),
        ("fixture file", f"<code>{esc(fixture.path)}</code>"),
        ("provenance", text_with_links(f"{prov.get('kind')}: {prov.get('source', '')}")),
    ]
    if prov.get("derived_from"):
        items.append(("derived from", esc(prov["derived_from"])))
    for report in fixture.reports:
        items.append(("reproduces", external_link(report)))
    if fixture.basis:
        basis = fixture.basis
        servers = f" ({', '.join(basis['servers'])})" if basis.get("servers") else ""
        items.append(("basis", text_with_links(f"{basis.get('kind')}{servers}: {basis.get('source', '')}")))
    return "<dl>" + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in items) + "</dl>"


def _expectations(fixture: Fixture) -> str:
    out = []
    if rejected := fixture.rejection:
        out.append(
            f"<h2>Expected outcome: a rejection</h2><p>{esc(rejected['reason'])}</p>"
            f"<p>An error matching <code>/{esc(rejected['matches'])}/</code></p>"
        )
    else:
        out.append(f"<h2>Expected result</h2>{pre(pretty_json(fixture.expected), 'json')}")
    impl = fixture.implementation_defined
    if impl:
        out.append(f"<h2>Implementation-defined</h2><p>{esc(impl['reason'])}</p>")
        for alt in fixture.acceptable:
            out.append(f"<h3>Also acceptable: {esc(alt['description'])}</h3>{pre(pretty_json(alt['result']), 'json')}")
        if fixture.raise_acceptable:
            out.append(f"<p>Raising an error is acceptable: {esc(fixture.raise_acceptable)}</p>")
        if fixture.forbidden:
            out.append(
                "<h3>Forbidden outcomes</h3><ul>"
                + "".join(
                    f"<li>{esc(rule['description'])} <code>{esc(json.dumps(rule['match'], ensure_ascii=False))}</code></li>"
                    for rule in fixture.forbidden
                )
                + "</ul>"
            )
    return "\n".join(out)


def _contract(fixture: Fixture, contract: str) -> str:
    rules = cited_rules(fixture)
    if not rules:
        return "<h2>CONTRACT rules cited</h2><p>None cited by the fixture; CONTRACT.md 3 and 4 apply.</p>"
    items = "".join(
        f"<li><strong>CONTRACT.md {esc(rule)}</strong>"
        + (f"<blockquote>{inline(excerpt)}</blockquote>" if (excerpt := contract_excerpt(contract, rule)) else "")
        + "</li>"
        for rule in rules
    )
    return f"<h2>CONTRACT rules cited</h2><ul>{items}</ul>"


def _stream(fixture: Fixture) -> str:
    lines = "\n".join(json.dumps(chunk, ensure_ascii=False) for chunk in fixture.chunks)
    raw = (
        f"<details><summary>SSE text as the fixture gives it</summary>{pre(fixture.sse)}</details>"
        if fixture.sse
        else ""
    )
    return f"<h2>Stream</h2><p>{len(fixture.chunks)} chunks, one JSON payload per line.</p>{pre(lines, 'json')}{raw}"


def _verdicts(facts: SiteFacts, entries: list[tuple[Implementation, dict[str, Any]]]) -> str:
    rows, details = [], []
    for implementation, record in entries:
        verdict = record["verdict"]
        failing = verdict in NOT_PASSED
        severity = implementation.severity(record) if failing else ""
        css = ("bad" if facts.is_spec_violation(implementation, record) else "apart") if failing else "good"
        css = "muted" if verdict in ("n/a", "skip") else css
        what = record.get("first_divergence") or (record.get("message", "") if verdict != "pass" else "")
        name = implementation.name
        rows.append(
            f'<tr data-verdict="{esc(verdict)}"><td>{link(implementation_href(name, "../"), name)}</td>'
            f"<td>{esc(implementation.adapter.get('version') or '–')}</td>"
            f'<td class="{css}">{esc(verdict)}</td><td>{esc(severity) or "–"}</td><td class="t">{esc(what)}</td></tr>'
        )
        if failing:
            diff = pre(record["diff"], "diff") if record.get("diff") else ""
            forbidden = (
                f"<p>Forbidden outcome: {esc('; '.join(record['forbidden']))}</p>" if record.get("forbidden") else ""
            )
            details.append(
                f'<section id="{esc("impl-" + name)}"><h3>{esc(name)}: {esc(verdict)} ({esc(severity)})</h3>'
                f"<p><code>{esc(what)}</code></p>{forbidden}{diff}</section>"
            )
    return (
        "<h2>Verdicts</h2>"
        + table(["implementation", "version", "verdict", "severity", "first divergence or message"], rows)
        + ("<h2>Failures</h2>" + "\n".join(details) if details else "")
    )


def render_fixture(facts: SiteFacts, fixture_id: str) -> tuple[str, str]:
    """(page title, body) of one fixture's page; a fixture the corpus no longer holds shows its records only."""
    entries = facts.records_by_fixture.get(fixture_id, [])
    fixture = facts.fixtures.get(fixture_id)
    title = f"{fixture_id}: {facts.title_of(fixture_id)}"
    if fixture is None:
        return (
            title,
            "<p>This fixture is not in the corpus read (a bug in the fixture, or a retired id).</p>"
            + _verdicts(facts, entries),
        )
    body = [_facts_list(fixture, facts.corpus.cite(fixture_id))]
    if fixture.comment:
        body.append(f"<p>{esc(fixture.comment)}</p>")
    body += [
        _contract(fixture, facts.contract_text),
        _stream(fixture),
        _expectations(fixture),
        _verdicts(facts, entries),
    ]
    return title, "\n".join(body)
