"""Another rendering of the same results: JUnit XML for CI systems.

Derived from the results files only, like REPORT.md and the results site, and deterministic.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from deltacheck.locations import portable
from deltacheck.reports.scorecard import NOT_PASSED, _fixture_key, failure_severity
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
