"""A failure's severity follows from what its fixture rests on and what the implementation promises to read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltacheck.judge.severity import (
    COMPATIBILITY,
    POLICY_DIVERGENCE,
    SPEC_VIOLATION,
    STRICTNESS,
    record_severity,
    scope_of,
)

ROOT = Path(__file__).resolve().parent.parent
MISSING_CALL = {"axis": "identity", "place": "/choices/*/parts/* (tool_call)", "kind": "missing"}
INVENTED_USAGE = {"axis": "usage", "place": "/usage", "kind": "invented"}
INVENTED_ID = {"axis": "identity", "place": "/choices/*/parts/*/id", "kind": "invented"}
LOST_ID = {"axis": "identity", "place": "/choices/*/parts/*/id", "kind": "lost"}


def failing(basis=None, divergences=(MISSING_CALL,), **fields):
    record = {"fixture": "DC-TEST", "protocol": "openai-chat", "verdict": "fail", "divergences": list(divergences)}
    return {**record, **({"basis": basis} if basis else {}), **fields}


DOCUMENTED = {"kind": "documented"}
POLICY = {"kind": "policy"}
VLLM_ONLY = {"kind": "observed", "servers": ["vllm"]}
OPENAI_TOO = {"kind": "observed", "servers": ["vllm", "openai"]}


@pytest.mark.parametrize(
    ("record", "scope", "severity"),
    [
        (failing(DOCUMENTED), "provider", SPEC_VIOLATION),
        (failing(), "provider", SPEC_VIOLATION),  # no basis recorded: judged as documented
        (failing(VLLM_ONLY), "provider", COMPATIBILITY),
        (failing(VLLM_ONLY), "multi-provider", SPEC_VIOLATION),
        (failing(OPENAI_TOO), "provider", SPEC_VIOLATION),  # the provider itself sends it
        (failing(POLICY), "provider", POLICY_DIVERGENCE),
        (failing(POLICY, forbidden=["the call is dropped"]), "provider", SPEC_VIOLATION),
        (failing(DOCUMENTED, [INVENTED_USAGE]), "multi-provider", POLICY_DIVERGENCE),
        (failing(DOCUMENTED, [INVENTED_USAGE, MISSING_CALL]), "multi-provider", SPEC_VIOLATION),
        (failing(VLLM_ONLY, [INVENTED_USAGE, MISSING_CALL]), "provider", COMPATIBILITY),
        (failing(DOCUMENTED, [INVENTED_ID]), "provider", POLICY_DIVERGENCE),
        (failing(DOCUMENTED, [INVENTED_ID, MISSING_CALL]), "provider", SPEC_VIOLATION),  # one strand: not only the id
        (failing(DOCUMENTED, [LOST_ID]), "provider", SPEC_VIOLATION),
    ],
)
def test_a_failing_record_gets_the_severity_its_basis_and_scope_give(record, scope, severity):
    assert record_severity(record, scope) == severity


def test_raising_on_a_stream_that_breaks_the_published_shape_is_strictness_and_nothing_else_is():
    raised = {"fixture": "DC-TEST", "protocol": "openai-chat", "verdict": "error", "message": "raised: ValueError: x"}
    assert record_severity({**raised, "basis": VLLM_ONLY, "off_schema": True}, "multi-provider") == STRICTNESS
    assert record_severity({**raised, "basis": VLLM_ONLY}, "multi-provider") == SPEC_VIOLATION
    garbage = {**raised, "message": "returned something that is not a canonical result: /choices: x", "off_schema": True}
    assert record_severity(garbage, "multi-provider") == SPEC_VIOLATION
    assert record_severity({**failing(VLLM_ONLY), "off_schema": True}, "multi-provider") == SPEC_VIOLATION


def test_passes_and_unscored_records_have_no_severity():
    for verdict in ("pass", "n/a", "skip"):
        assert record_severity({"fixture": "DC-TEST", "verdict": verdict}, "provider") is None


def test_an_undeclared_scope_is_judged_as_the_wider_promise():
    assert scope_of({"name": "mine"}) == "multi-provider"
    assert scope_of({"scope": "provider"}) == "provider"
    assert scope_of({"scope": "anything else"}) == "multi-provider"


def test_every_bundled_adapter_declares_its_scope_and_why():
    manifests = [p for p in (ROOT / "adapters").rglob("manifest.json") if "node_modules" not in p.parts]
    assert manifests
    for path in manifests:
        for entry in json.loads(path.read_text()):
            assert entry.get("scope") in ("provider", "multi-provider"), f"{path}: {entry['name']} declares no scope"
            assert entry.get("scope_note"), f"{path}: {entry['name']} says not why its scope is {entry['scope']}"
    gateways = list((ROOT / "adapters" / "gateways").glob("*/gateway.json"))
    assert gateways
    for path in gateways:
        gateway = json.loads(path.read_text())
        assert gateway.get("scope") in ("provider", "multi-provider") and gateway.get("scope_note"), path


def test_the_report_counts_spec_violations_only_and_shows_the_other_kinds_apart(tmp_path):
    from deltacheck.reports.scorecard import render_report
    from deltacheck.running.results import Results

    def record(fixture, verdict, **fields):
        return {"kind": "result", "fixture": fixture, "protocol": "openai-chat", "verdict": verdict, "title": fixture, **fields}

    records = [
        record("DC-AAAA", "pass"),
        record("DC-BBBB", "fail", divergences=[MISSING_CALL], basis=DOCUMENTED),
        record("DC-CCCC", "fail", divergences=[MISSING_CALL], basis=POLICY),
        record("DC-DDDD", "fail", divergences=[MISSING_CALL], basis=VLLM_ONLY),
        record("DC-EEEE", "error", message="raised: ValueError: bad index", basis=OPENAI_TOO, off_schema=True),
        record("DC-FFFF", "fail", divergences=[INVENTED_USAGE], basis=DOCUMENTED),
    ]
    adapter = {"name": "lib", "library": "lib", "version": "1", "protocols": ["openai-chat"], "scope": "provider"}
    run = Results(path=tmp_path / "lib.jsonl", header={"adapter": adapter}, records=records, complete=True)
    text = render_report([run], "9.9.9", 3)
    assert "**Scores count spec violations only.**" in text.split("## Implementations")[0]
    # score | spec violations | fail/error/crash/timeout | strictness | compatibility | policy divergence | passed
    assert "| [lib](site/implementations/lib.html) | openai-chat | 5 / 6 | 1 | 1 / 0 / 0 / 0 | 1 | 1 | 2 | 1 | 0 | 0 |" in text
    findings = text.split("## Distinct findings", 1)[1].split("\n## ", 1)[0]
    # each finding counted once, under the most serious severity its fixtures show
    assert "| [lib](site/implementations/lib.html) | 3 | 1 | 1 | 0 | 1 | 5 | not researched 1 |" in findings
    # each fixture's verdict with its severity is on the fixture's page of the site (the matrix moved there)
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.judge.upstream import Upstream
    from deltacheck.reports.inputs import ReportInputs
    from deltacheck.site.facts import SiteFacts
    from deltacheck.site.fixture_page import render_fixture

    facts = SiteFacts(ReportInputs([run]), load_corpus(check_reference=False), Upstream())
    shown = {"DC-BBBB": ("fail", "spec violation"), "DC-CCCC": ("fail", "policy divergence"),
             "DC-DDDD": ("fail", "compatibility"), "DC-EEEE": ("error", "strictness")}
    for fixture, (verdict, severity) in shown.items():
        assert f">{verdict}</td><td>{severity}</td>" in render_fixture(facts, fixture)[1], fixture
