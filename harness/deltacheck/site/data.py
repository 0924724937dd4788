"""The JSON beside the pages, for others to build on: data/index.json, data/implementations/<name>.json
and data/fixtures/<ID>.json, each described by a JSON Schema in schemas/ (checked by the tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import deltacheck
from deltacheck.reports.scorecard import NOT_PASSED
from deltacheck.site.badges import badge_path
from deltacheck.site.facts import Implementation, SiteFacts, cited_rules
from deltacheck.site.html import safe_name

SCHEMAS = Path(__file__).parent / "schemas"
FORMAT = 1


def dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def _versions(facts: SiteFacts) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "corpus_version": facts.corpus_version,
        "contract_version": deltacheck.CONTRACT_VERSION,
        "deltacheck_version": deltacheck.__version__,
    }


def _verdict_entry(implementation: Implementation, record: dict[str, Any]) -> dict[str, Any]:
    failing = record["verdict"] in NOT_PASSED
    return {
        "verdict": record["verdict"],
        "severity": implementation.severity(record) if failing else None,
        "first_divergence": record.get("first_divergence"),
        "message": record.get("message") or None,
    }


def index_document(facts: SiteFacts) -> dict[str, Any]:
    return {
        **_versions(facts),
        "implementations": [
            {
                "name": i.name,
                "kind": i.kind,
                "page": f"implementations/{safe_name(i.name)}.html",
                "data": f"data/implementations/{safe_name(i.name)}.json",
                "scores": {p: {"score": c["score"], "scored": c["scored"]} for p, c in i.scores().items()},
            }
            for i in facts.implementations
        ],
        "fixtures": [
            {
                "id": fixture_id,
                "protocol": facts.protocol_of(fixture_id),
                "title": facts.title_of(fixture_id),
                "page": f"fixtures/{safe_name(fixture_id)}.html",
                "data": f"data/fixtures/{safe_name(fixture_id)}.json",
            }
            for fixture_id in facts.records_by_fixture
        ],
    }


def implementation_document(facts: SiteFacts, implementation: Implementation) -> dict[str, Any]:
    a = implementation.adapter
    return {
        **_versions(facts),
        "name": implementation.name,
        "kind": implementation.kind,
        "library": a.get("library"),
        "version": a.get("version"),
        "language": a.get("language"),
        "protocols": list(a.get("protocols") or []),
        "code_path": a.get("code_path") or "",
        "transport": a.get("transport"),
        "scope": a.get("scope"),
        "capabilities": sorted(a.get("capabilities") or []),
        "capability_notes": dict(sorted((a.get("capability_notes") or {}).items())),
        "scores": implementation.scores(),
        "badges": {p: badge_path(implementation.name, p) for p in implementation.by_protocol},
        "findings": [
            {
                "axis": row.finding.axis,
                "what": row.finding.what,
                "severity": row.severity,
                "fixtures": list(row.finding.fixtures),
                "upstream": [
                    {"status": entry.status, "url": entry.url, "fixed_in": entry.fixed_in} for entry in row.upstream
                ],
            }
            for row in implementation.findings(facts.tags, facts.upstream)
        ],
        "results": {
            (record.get("fixture") or f"({record.get('path')})"): _verdict_entry(implementation, record)
            for record in implementation.run.records
        },
    }


def fixture_document(facts: SiteFacts, fixture_id: str) -> dict[str, Any]:
    fixture = facts.fixtures.get(fixture_id)
    return {
        **_versions(facts),
        "id": fixture_id,
        "title": facts.title_of(fixture_id),
        "protocol": facts.protocol_of(fixture_id),
        "tags": list(fixture.tags) if fixture else [],
        "provenance": fixture.provenance if fixture else None,
        "basis": fixture.basis if fixture else None,
        "contract_rules": cited_rules(fixture) if fixture else [],
        "verdicts": {
            implementation.name: _verdict_entry(implementation, record)
            for implementation, record in facts.records_by_fixture.get(fixture_id, [])
        },
    }
