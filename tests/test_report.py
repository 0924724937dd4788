"""REPORT.md is rendered from results only, deterministically, with every section a reader needs."""

from __future__ import annotations

from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.contract import CONTRACT_VERSION
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus


def score(tmp_path, *adapters):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE, "openai-chat/tools.json": TOOL_FIXTURE})
    report = tmp_path / "REPORT.md"
    args = ["score", "--corpus", str(root), "--results-dir", str(tmp_path / "results"), "--output", str(report)]
    for name in adapters:
        args += ["--adapter", name]
    outcome = CliRunner().invoke(main, args)
    assert outcome.exit_code == 0, outcome.output
    return report.read_text()


def test_the_report_names_versions_scores_matrix_and_failures(tmp_path):
    text = score(tmp_path, "reference", "miniature-drops-last-part", "miniature-raises")
    assert "corpus version: **9.9.9**" in text and f"contract version: **{CONTRACT_VERSION}**" in text
    assert "| reference | openai-chat | 2 / 2 |" in text
    assert "| miniature-drops-last-part | openai-chat | 0 / 2 |" in text
    assert "| DC-T00K | openai-chat | two calls at indices 0 and 1 are both kept | pass | **FAIL** | **ERROR** |" in text
    assert "First divergence: `/choices/0/parts/1: expected tool_call 'call_b' (lookup), missing`" in text
    assert "#### DC-T00K@9.9.9 — fail" in text
    assert "```diff" in text


def test_the_same_results_give_the_same_bytes(tmp_path):
    first = score(tmp_path / "a", "reference", "miniature-drops-last-part")
    second = score(tmp_path / "b", "miniature-drops-last-part", "reference")
    assert first == second


def test_a_fixture_failing_in_exactly_one_implementation_is_listed(tmp_path):
    text = score(tmp_path, "reference", "miniature-async", "miniature-drops-last-part")
    section = text.split("## Fixtures that fail in exactly one implementation", 1)[1].split("##", 1)[0]
    assert "| DC-T00K |" in section and "miniature-drops-last-part" in section


def test_the_html_matrix_links_each_failing_cell_to_its_diff_and_junit_counts_verdicts(tmp_path):
    from xml.etree import ElementTree

    score(tmp_path, "reference", "miniature-drops-last-part")
    page = (tmp_path / "REPORT.html").read_text()
    assert 'href="#miniature-drops-last-part--DC-T00K"' in page
    assert 'id="miniature-drops-last-part--DC-T00K"' in page and "call_b" in page
    suites = {s.get("name"): s for s in ElementTree.parse(tmp_path / "results" / "junit.xml").getroot()}
    assert suites["reference"].get("failures") == "0"
    assert suites["miniature-drops-last-part"].get("failures") == "2"


def test_failures_group_into_one_finding_per_defect_however_many_fixtures_show_it():
    from deltacheck.judge.findings import distinct_findings

    invented = {"axis": "usage", "kind": "invented", "place": "/usage", "pointer": "/usage"}
    name = {"axis": "identity", "kind": "differs", "place": "/choices/*/parts/*/name", "pointer": "/choices/0/parts/1/name"}
    records = [{"fixture": f"DC-{n:04d}", "verdict": "fail", "divergences": [invented]} for n in range(28)]
    records += [{"fixture": "DC-NAME", "verdict": "fail", "divergences": [name, invented]},
                {"fixture": "DC-RAIS", "verdict": "error", "message": "raised: ValueError: no index"},
                {"fixture": "DC-PASS", "verdict": "pass"}]
    findings = distinct_findings(records)
    assert [(f.axis, f.what, len(f.fixtures)) for f in findings] == [
        ("usage", "/usage: invented", 29), ("error", "raises ValueError", 1),
        ("identity", "/choices/*/parts/*/name: differs", 1)]


def test_one_defect_that_shows_on_several_axes_is_one_finding_and_one_place_with_two_causes_is_two():
    from deltacheck.judge.findings import distinct_findings

    unexpected = {"axis": "identity", "kind": "unexpected", "place": "/choices/*/parts/* (tool_call)"}
    arguments = {"axis": "arguments", "kind": "differs", "place": "/choices/*/parts/*/arguments"}
    phantom = {"axis": "events", "kind": "completed a call that does not exist", "place": "/events/*"}
    invented = {"axis": "usage", "kind": "invented", "place": "/usage"}
    cost = {"axis": "usage", "kind": "unexpected", "place": "/usage/cost"}
    records = [  # calls merged: three axes, one defect; usage invented beside it is a policy of its own
        {"fixture": "DC-MRG1", "verdict": "fail", "divergences": [unexpected, arguments, phantom, invented]},
        # in another document order (parts align differently): the same path
        {"fixture": "DC-MRG2", "verdict": "fail", "divergences": [arguments, unexpected, arguments]},
        {"fixture": "DC-MRG3", "verdict": "fail", "divergences": [unexpected, arguments]},
        {"fixture": "DC-ESC1", "verdict": "fail", "divergences": [arguments]},  # the same place, another defect
        {"fixture": "DC-CST1", "verdict": "fail", "divergences": [cost]},
    ]
    tags = {"DC-MRG1": ["tool-call", "parallel-calls", "interleaved"], "DC-MRG2": ["tool-call", "parallel-calls"],
            "DC-ESC1": ["tool-call", "escape-split"], "DC-CST1": ["text", "usage"]}
    findings = distinct_findings(records, tags)
    merged = ("identity /choices/*/parts/* (tool_call): unexpected; arguments /choices/*/parts/*/arguments: differs")
    assert [(f.axis, f.what, f.fixtures) for f in findings] == [
        ("identity, arguments", merged, ["DC-MRG2", "DC-MRG3"]),
        ("arguments", "/choices/*/parts/*/arguments: differs", ["DC-ESC1"]),
        ("identity, arguments, events", merged + "; events /events/*: completed a call that does not exist",
         ["DC-MRG1"]),
        ("usage", "/usage/cost: unexpected", ["DC-CST1"]),
        ("usage", "/usage: invented", ["DC-MRG1"]),
    ]
    assert findings[0].shapes_text() == "parallel-calls 1"  # DC-MRG3 has no tags given
    assert findings[1].shapes_text() == "escape-split 1"
    assert findings[2].shapes_text() == "interleaved 1, parallel-calls 1"


def test_the_implementation_table_gives_each_lacking_capability_its_reason():
    from deltacheck.adapter import CAPABILITIES
    from deltacheck.reports.scorecard import _adapters_section
    from deltacheck.running.results import Results

    adapter = {"name": "lib-chat", "library": "lib", "version": "1", "protocols": ["openai-chat"],
               "capabilities": sorted(set(CAPABILITIES) - {"refusal", "usage"}), "code_path": "lib.stream()",
               "capability_notes": {"usage": "Usage | is the library's own"}}
    out: list[str] = []
    _adapters_section(out, [Results(path="r.jsonl", header={"adapter": adapter})])
    assert ("| lib-chat | lib | 1 | openai-chat | not declared (judged as multi-provider) "
            "| refusal (no reason recorded); usage (Usage \\| is the library's own) "
            "| lib.stream() |") in out
