"""index.html: implementations x protocols with their scores, and every fixture with how it fared;
both tables sort by column and filter by protocol, language, tag, axis and verdict (assets/site.js)."""

from __future__ import annotations

from collections import Counter

from deltacheck.judge.severity import SEVERITIES
from deltacheck.site.facts import SiteFacts
from deltacheck.site.html import esc, fixture_href, implementation_href, link, table

INTRO = (
    "Scores count spec violations only (CONTRACT.md 4.4): a fixture counts against an implementation when it "
    "misreads a stream whose meaning the provider documents, or a shape a server it promises to read really sends. "
    "Strictness, compatibility and policy divergence are shown apart and never scored. n/a and skip are never scored."
)


def _ratio(score: int, scored: int) -> str:
    return f"{100 * score / scored:.0f}%" if scored else "–"


def _filters(facts: SiteFacts) -> str:
    protocols = sorted({p for i in facts.implementations for p in i.by_protocol})
    languages = sorted({i.language for i in facts.implementations})
    tags = sorted({t for f in facts.corpus.fixtures for t in f.tags})
    axes = sorted({a for i in facts.implementations for r in i.run.records for a in r.get("axes", {})})
    verdicts = ["pass", "fail", "error", "crash", "timeout", "n/a", "skip"]

    def select(name: str, label: str, values: list[str]) -> str:
        options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
        return f'<label>{esc(label)} <select data-filter="{esc(name)}"><option value="">any</option>{options}</select></label>'

    return (
        '<form class="filters" id="filters">'
        + select("protocol", "protocol", protocols)
        + select("language", "language", languages)
        + select("tag", "tag", tags)
        + select("axis", "failing axis", axes)
        + select("verdict", "verdict", verdicts)
        + '<label>text <input type="search" data-filter="text" placeholder="name, id or title"></label>'
        + "</form>"
    )


def _implementation_rows(facts: SiteFacts) -> list[str]:
    rows = []
    for implementation in facts.implementations:
        href = implementation_href(implementation.name, "")
        for protocol, counts in implementation.scores().items():
            records = implementation.by_protocol[protocol]
            verdicts = sorted({r["verdict"] for r in records})
            failing_axes = sorted({a for r in records for a, ok in r.get("axes", {}).items() if not ok})
            tags = sorted(
                {t for r in records if r["verdict"] != "pass" for t in facts.tags.get(r.get("fixture", ""), ())}
            )
            other = counts["other_severities"]
            cells = [
                f"<td>{link(href, implementation.name)}</td>",
                f"<td>{esc(implementation.adapter.get('library') or '–')} {esc(implementation.adapter.get('version') or '')}</td>",
                f"<td>{esc(implementation.kind)}</td>",
                f"<td>{esc(implementation.language)}</td>",
                f"<td>{esc(protocol)}</td>",
                f'<td data-sort="{counts["score"] / counts["scored"] if counts["scored"] else -1:.4f}">'
                f"{counts['score']} / {counts['scored']} ({_ratio(counts['score'], counts['scored'])})</td>",
                f'<td class="{"bad" if counts["spec_violations"] else "good"}">{counts["spec_violations"]}</td>',
                *(f"<td>{other[s]}</td>" for s in SEVERITIES[1:]),
                f"<td>{counts['passed']}</td><td>{counts['n/a']}</td><td>{counts['skip']}</td>",
            ]
            rows.append(
                f'<tr data-protocol="{esc(protocol)}" data-language="{esc(implementation.language)}" '
                f'data-verdict="{esc(" ".join(verdicts))}" data-axis="{esc(" ".join(failing_axes))}" '
                f'data-tag="{esc(" ".join(tags))}" data-text="{esc(implementation.name)}">' + "".join(cells) + "</tr>"
            )
    return rows


def _fixture_rows(facts: SiteFacts) -> list[str]:
    rows = []
    for fixture_id, entries in facts.records_by_fixture.items():
        protocol = facts.protocol_of(fixture_id)
        tags = facts.tags.get(fixture_id, ())
        verdicts = Counter(record["verdict"] for _, record in entries)
        failing_axes = sorted({a for _, r in entries for a, ok in r.get("axes", {}).items() if not ok})
        violators = [i.name for i, r in entries if facts.is_spec_violation(i, r)]
        ran = sum(n for v, n in verdicts.items() if v not in ("n/a", "skip"))
        title = facts.title_of(fixture_id)
        shown = ", ".join(violators[:5]) + (f", … ({len(violators) - 5} more)" if len(violators) > 5 else "")
        rows.append(
            f'<tr data-protocol="{esc(protocol)}" data-tag="{esc(" ".join(tags))}" '
            f'data-verdict="{esc(" ".join(sorted(verdicts)))}" data-axis="{esc(" ".join(failing_axes))}" '
            f'data-text="{esc(fixture_id + " " + title)}">'
            f"<td>{link(fixture_href(fixture_id, ''), fixture_id)}</td><td>{esc(protocol)}</td>"
            f'<td class="t">{esc(title)}</td><td>{esc(", ".join(tags))}</td>'
            f'<td data-sort="{ran - len(violators)}">{ran - len(violators)} / {ran}</td>'
            f"<td>{len(violators)}</td><td>{esc(shown) or '–'}</td></tr>"
        )
    return rows


def render_overview(facts: SiteFacts) -> str:
    implementations = table(
        [
            "implementation",
            "library",
            "kind",
            "language",
            "protocol",
            "score",
            "spec violations",
            *SEVERITIES[1:],
            "passed",
            "n/a",
            "skip",
        ],
        _implementation_rows(facts),
        css="filterable",
    )
    fixtures = table(
        ["fixture", "protocol", "title", "tags", "without spec violation", "spec violations", "violated by"],
        _fixture_rows(facts),
        css="filterable",
    )
    return (
        f"<p>{esc(INTRO)}</p>\n{_filters(facts)}\n"
        f'<p class="count" id="shown"></p>\n'
        f"<h2>Implementations × protocols</h2>\n{implementations}\n"
        f"<h2>Fixtures</h2>\n<p>Each fixture's page has its stream, expected result, cited CONTRACT rules and every "
        f"implementation's verdict and diff.</p>\n{fixtures}"
    )
