"""Other renderings of the same results: JUnit XML for CI systems, and a static HTML matrix.

Both are derived from the results files only, like REPORT.md, and are deterministic.
"""

from __future__ import annotations

import html
from xml.etree import ElementTree as ET

from deltacheck.judge.severity import SPEC_VIOLATION
from deltacheck.locations import portable
from deltacheck.reports.scorecard import CELL, NOT_PASSED, _fixture_key, _fixture_rows, _verdict_table, failure_severity
from deltacheck.running.results import Results


def _ordered(results: list[Results]) -> list[Results]:
    return sorted(results, key=lambda r: (r.adapter.get("name") != "reference", r.adapter.get("name", "")))


def render_junit(results: list[Results], corpus_version: str) -> str:
    """One testsuite per adapter, one testcase per fixture; n/a and skip are <skipped>."""
    suites = ET.Element("testsuites", name=f"deltacheck corpus {corpus_version}")
    for run in _ordered(results):
        records = sorted(run.records, key=_fixture_key)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=run.adapter.get("name", "?"),
            tests=str(len(records)),
            failures=str(sum(r["verdict"] == "fail" for r in records)),
            errors=str(sum(r["verdict"] in ("error", "crash", "timeout") for r in records)),
            skipped=str(sum(r["verdict"] in ("n/a", "skip") for r in records)),
        )
        ET.SubElement(
            ET.SubElement(suite, "properties"),
            "property",
            name="library",
            value=f"{run.adapter.get('library')} {run.adapter.get('version')}",
        )
        for record in records:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"{run.adapter.get('name')}.{record.get('protocol')}",
                name=f"{_fixture_key(record)}@{corpus_version} {record.get('title', '')}".strip(),
            )
            verdict, message = record["verdict"], record.get("message", "")
            if verdict in NOT_PASSED:
                message = f"[{failure_severity(record, run)}] {message}"
            if verdict == "fail":
                ET.SubElement(case, "failure", message=message[:500]).text = record.get("diff", "")
            elif verdict in ("error", "crash", "timeout"):
                ET.SubElement(case, "error", type=verdict, message=portable(message)[:500]).text = portable(
                    record.get("diff", "")
                )
            elif verdict in ("n/a", "skip"):
                ET.SubElement(case, "skipped", message=f"{verdict}: {message}"[:500])
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


STYLE = """
body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:center;white-space:nowrap}
td.t{text-align:left;max-width:32em;overflow:hidden;text-overflow:ellipsis}
th.a{writing-mode:vertical-rl;transform:rotate(180deg);vertical-align:bottom}
.pass{background:#d8f0d8}.fail,.error,.crash,.timeout{background:#f6d0d0}.na,.skip{background:#eee;color:#777}
.apart{background:#f6ecd0}
a{color:inherit}pre{background:#f7f7f7;padding:.6em;overflow:auto;max-width:110em}
section{border-top:1px solid #ccc;margin-top:1em}
""".strip()


def render_html(results: list[Results], corpus_version: str) -> str:
    """The fixture x implementation matrix; each failing cell links to its diff further down."""
    runs = _ordered(results)
    names = [r.adapter.get("name", "?") for r in runs]
    verdicts = _verdict_table(runs)
    esc = html.escape
    rows = []
    by_name = {run.adapter.get("name", "?"): run for run in runs}
    for key, (protocol, title) in _fixture_rows(runs).items():
        cells = []
        for name in names:
            record = verdicts.get((name, key))
            if record is None:
                cells.append("<td>–</td>")
                continue
            verdict = record["verdict"]
            css = {"n/a": "na"}.get(verdict, verdict)
            label = esc(CELL[verdict].strip("*").lower())
            if verdict in NOT_PASSED and (severity := failure_severity(record, by_name[name])) != SPEC_VIOLATION:
                css, label = "apart", esc(f"{label} ({severity})")  # not counted in the scores: shown apart
            if verdict in NOT_PASSED:
                label = f'<a href="#{esc(_anchor(name, key))}" title="{esc(record.get("message", ""))}">{label}</a>'
            cells.append(f'<td class="{css}">{label}</td>')
        rows.append(
            f'<tr><td>{esc(key)}</td><td>{esc(protocol)}</td><td class=t title="{esc(title)}">{esc(title)}</td>'
            + "".join(cells)
            + "</tr>"
        )
    details = []
    for run in runs:
        name = run.adapter.get("name", "?")
        for record in sorted((r for r in run.records if r["verdict"] in NOT_PASSED), key=_fixture_key):
            key = _fixture_key(record)
            body = esc(portable(record.get("first_divergence") or record.get("message", "")))
            diff = f"<pre>{esc(portable(record['diff']))}</pre>" if record.get("diff") else ""
            details.append(
                f'<section id="{esc(_anchor(name, key))}"><h3>{esc(key)}@{esc(corpus_version)} — '
                f"{esc(name)}: {esc(record['verdict'])} ({esc(failure_severity(record, run))})</h3>"
                f"<p>{esc(record.get('title', ''))}</p>"
                f"<p><code>{body}</code></p>{diff}</section>"
            )
    header = "".join(f'<th class="a">{esc(n)}</th>' for n in names)
    return (
        "<!doctype html>\n<html lang=en><meta charset=utf-8>"
        f"<title>deltacheck matrix, corpus {esc(corpus_version)}</title><style>{STYLE}</style>\n"
        f"<h1>deltacheck: fixture × implementation (corpus {esc(corpus_version)})</h1>\n"
        "<p>Generated from the results files; REPORT.md has the scores, which count spec violations only (CONTRACT.md 4.4): "
        "a failure of another severity is shown apart, in amber, with its severity. Click a failing cell for its diff.</p>\n"
        f"<table><tr><th>fixture</th><th>protocol</th><th>title</th>{header}</tr>\n"
        + "\n".join(rows)
        + "</table>\n"
        + "\n".join(details)
        + "\n</html>\n"
    )


def _anchor(adapter: str, fixture: str) -> str:
    return f"{adapter}--{fixture}".replace(" ", "_").replace("(", "").replace(")", "").replace("/", "_")
