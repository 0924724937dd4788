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


def test_the_report_names_versions_and_scores_and_leaves_the_detail_to_the_site(tmp_path):
    text = score(tmp_path, "reference", "miniature-drops-last-part", "miniature-raises")
    assert "corpus version: **9.9.9**" in text and f"contract version: **{CONTRACT_VERSION}**" in text
    assert "| [reference](site/implementations/reference.html) | openai-chat | 2 / 2 |" in text
    assert "| [miniature-drops-last-part](site/implementations/miniature-drops-last-part.html) | openai-chat | 0 / 2 |" in text
    # the matrix and each failure's diff are on the site (tests/test_site.py), not in the summary
    assert "## Fixture × implementation" not in text and "## Failures in detail" not in text and "```diff" not in text
    assert "[site/index.html](site/index.html)" in text


def test_the_same_results_give_the_same_bytes(tmp_path):
    first = score(tmp_path / "a", "reference", "miniature-drops-last-part")
    second = score(tmp_path / "b", "miniature-drops-last-part", "reference")
    assert first == second


def test_a_fixture_failing_in_exactly_one_implementation_is_listed(tmp_path):
    text = score(tmp_path, "reference", "miniature-async", "miniature-drops-last-part")
    section = text.split("## Fixtures that fail in exactly one implementation", 1)[1].split("##", 1)[0]
    assert "| [DC-T00K](site/fixtures/DC-T00K.html) |" in section and "miniature-drops-last-part" in section


def test_junit_counts_verdicts_and_no_html_report_is_written(tmp_path):
    from xml.etree import ElementTree

    score(tmp_path, "reference", "miniature-drops-last-part")
    assert not (tmp_path / "REPORT.html").exists()  # the results site replaces it (tests/test_site.py)
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


def test_the_implementation_table_names_each_lacking_capability_and_links_the_page_with_the_reasons():
    from deltacheck.adapter import CAPABILITIES
    from deltacheck.reports.scorecard import SiteLinks, _adapters_section
    from deltacheck.running.results import Results

    adapter = {"name": "lib-chat@2", "library": "lib", "version": "1", "protocols": ["openai-chat"],
               "capabilities": sorted(set(CAPABILITIES) - {"refusal", "usage"}), "code_path": "lib.stream()",
               "capability_notes": {"usage": "Usage | is the library's own"}}
    out: list[str] = []
    _adapters_section(out, [Results(path="r.jsonl", header={"adapter": adapter})], SiteLinks("site/"))
    assert ("| [lib-chat@2](site/implementations/lib-chat_402.html) | lib | 1 | openai-chat "
            "| not declared (multi-provider) | refusal, usage |") in out
    # the reasons are on the implementation's page (tests/test_site.py)
