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


def test_report_md_stays_under_100_kb_for_results_of_the_full_size():
    """A synthetic results set the size of a full `make report` (65 implementations, 7 gateway routes, the
    whole corpus, failures on one fixture in eight with long messages, fuzz and cost for each, 40 mutants):
    the summary stays a page a person reads, whatever the per-failure detail weighs."""
    import random

    from deltacheck.corpus.loader import load_corpus
    from deltacheck.reports.scorecard import render_report
    from deltacheck.running.results import Results

    rng = random.Random(24)
    corpus = load_corpus(check_reference=False)
    axes = ["content", "identity", "arguments", "ordering", "finish", "usage", "events"]
    runs, fuzz, cost = [], [], []
    for number in range(72):
        protocol = corpus.fixtures[number * 7 % len(corpus.fixtures)].protocol
        name = f"implementation-number-{number:02d}-{protocol}" + ("@6" if number % 5 == 0 else "")
        adapter = {"name": name, "library": f"library-{number}", "version": "12.3.456", "protocols": [protocol],
                   "capabilities": ["events", "usage"], "scope": "multi-provider", "language": "python",
                   "capability_notes": {"refusal": "x" * 300}, "code_path": "y" * 400}
        if number >= 65:
            adapter["gateway"] = {"upstream": protocol, "downstream": "openai-chat"}
        records = []
        for fixture in (f for f in corpus.fixtures if f.protocol == protocol):
            failing = rng.random() < 0.125
            axis = rng.choice(axes)
            divergence = {"axis": axis, "kind": rng.choice(["missing", "differs", "invented"]),
                          "place": f"/choices/*/parts/*/{axis}-{rng.randrange(4)}", "pointer": "/choices/0"}
            records.append({"kind": "result", "fixture": fixture.id, "protocol": protocol, "title": fixture.title,
                            "verdict": "fail" if failing else "pass", "message": "z" * 250 if failing else "",
                            "first_divergence": "/choices/0: " + "w" * 200 if failing else None,
                            "divergences": [divergence] if failing else [], "diff": "d" * 3000 if failing else "",
                            "axes": {a: not (failing and a == axis) for a in axes}, "basis": fixture.basis})
        runs.append(Results(path=f"{name}.jsonl", header={"adapter": adapter}, records=records, complete=True))
        fuzz.append(({"adapter": adapter}, [{"protocol": protocol, "mode": m, "status": "survived", "examples": 10,
                                             "fixture": "DC-X"} for m in ("rechunk", "robustness") for _ in range(30)]))
        cost.append(({"adapter": adapter}, [{"kind": "scenario", "scenario": f"scenario-{s}", "protocol": protocol,
                                             "seconds_at_10k": 0.5, "reference_seconds_at_10k": 0.1, "exponent": 1.1,
                                             "sizes": [1000, 10000]} for s in range(5)]))
    mutants = [{"name": f"mutant-{n}", "bug": "b" * 120, "models": None} for n in range(40)]
    mutation = ({"mutants": mutants}, [{"mutant": m["name"], "fixture": f.id, "killed": True}
                                       for m in mutants for f in corpus.fixtures[:30]])
    text = render_report(runs, corpus.version, 5, mutation, fuzz, cost, {f.id: f.tags for f in corpus.fixtures})
    size = len(text.encode())
    assert size < 100_000, f"REPORT.md is {size} bytes"
    assert size > 30_000  # the set is of the full size: every implementation still has its rows
    assert text.count("](site/implementations/") > 3 * 72
