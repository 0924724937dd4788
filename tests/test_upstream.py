"""Findings know their upstream: adapters/<folder>/upstream.json, matched to findings, shown in REPORT.md and explain."""

from __future__ import annotations

import json

import pytest

from deltacheck.judge.findings import Finding, distinct_findings
from deltacheck.judge.upstream import Upstream, UpstreamEntry, load_upstream, summary_of
from deltacheck.locations import ADAPTERS_DIR

URL = "https://github.com/example/lib/issues/7"
# How explain's markdown shows it: as code, so pasting it into an issue pings no other project (issue 21).
SHOWN = "`example/lib#7`"


def entry(**changes) -> dict:
    base = {"adapters": ["lib-chat"], "axis": "identity, events", "fixtures": ["DC-MRG1", "DC-MRG2"],
            "status": "open", "url": URL, "fixed_in": None, "note": "calls merged by index"}
    return {**base, **changes}


def write(tmp_path, folder: str, entries) -> None:
    (tmp_path / "adapters" / folder).mkdir(parents=True)
    (tmp_path / "adapters" / folder / "upstream.json").write_text(json.dumps(entries))


def loaded(tmp_path, *entries: dict) -> Upstream:
    write(tmp_path, "lib", list(entries))
    upstream = load_upstream(tmp_path / "adapters")
    assert upstream.problems == ()
    return upstream


# -- the bundled data ----------------------------------------------------------------------------


def test_every_bundled_upstream_file_is_valid_and_names_its_folders_adapters_and_real_fixtures():
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.driver.manifests import load_manifests
    from deltacheck.gateways.bundled import load_gateways

    upstream = load_upstream()
    assert upstream.problems == ()
    assert upstream.entries, "no bundled upstream data"
    folders: dict[str, set[str]] = {}
    for manifest in load_manifests().adapters:
        folders.setdefault(str(manifest.folder.relative_to(ADAPTERS_DIR.parent)), set()).add(manifest.name)
    gateways, _ = load_gateways()
    for gateway in gateways:
        folders[str(gateway.folder.relative_to(ADAPTERS_DIR.parent))] = set(gateway.route_names())
    fixtures = set(load_corpus(check_reference=False).by_id())
    for item in upstream.entries:
        folder = item.source.rsplit("/upstream.json", 1)[0]
        assert set(item.adapters) <= folders[folder], f"{item.source}: adapters not of {folder}: {item.adapters}"
        assert set(item.fixtures) <= fixtures, f"{item.source}: unknown fixtures {set(item.fixtures) - fixtures}"


# -- reading and its errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"status": "wontfix"}, "adapters/lib/upstream.json: /1/status: 'wontfix' is not one of"),
        ({"status": "fixed"}, "adapters/lib/upstream.json: /1/fixed_in: None is not of type 'string' "
                              "(a `fixed` entry names the release with the fix)"),
        ({"fixed_in": "1.2.3"}, "adapters/lib/upstream.json: /1/fixed_in: '1.2.3' is not of type 'null' "
                                "(a `open` entry has fixed_in null)"),
        ({"status": "unreported"}, "adapters/lib/upstream.json: /1/url: "),
        ({"status": "documented", "url": None}, "adapters/lib/upstream.json: /1/url: None is not of type 'string'"),
        ({"axis": "identity,events"}, "adapters/lib/upstream.json: /1/axis: 'identity,events' does not match"),
        ({"fixtures": ["DC-8499", "dc-x"]}, "adapters/lib/upstream.json: /1/fixtures/1: 'dc-x' does not match"),
        ({"note": "two\nlines"}, "adapters/lib/upstream.json: /1/note: "),
    ],
)
def test_a_bad_entry_is_one_line_naming_the_file_and_field_and_the_other_entries_still_load(tmp_path, changes, message):
    write(tmp_path, "lib", [entry(), entry(**changes), entry(axis="usage")])
    upstream = load_upstream(tmp_path / "adapters")
    (problem,) = upstream.problems
    assert str(problem).startswith(message) and "\n" not in str(problem)
    assert [e.axis for e in upstream.entries] == ["identity, events", "usage"]


def test_a_file_that_is_not_a_list_of_entries_is_one_problem_and_other_folders_still_load(tmp_path):
    write(tmp_path, "good", [entry()])
    (tmp_path / "adapters" / "node" / "bad").mkdir(parents=True)
    (tmp_path / "adapters" / "node" / "bad" / "upstream.json").write_text("{not json")
    upstream = load_upstream(tmp_path / "adapters")
    assert [str(p) for p in upstream.problems] == [
        "adapters/node/bad/upstream.json: /: not JSON: Expecting property name enclosed in double quotes at line 1 column 2"
    ]
    assert len(upstream.entries) == 1 and upstream.entries[0].source == "adapters/good/upstream.json /0"


# -- matching ------------------------------------------------------------------------------------


def test_an_entry_applies_to_a_finding_of_its_adapter_and_axis_that_shares_a_fixture(tmp_path):
    upstream = loaded(tmp_path, entry(), entry(axis="usage", fixtures=["DC-V5G1"], status="closed-as-intended"))
    merged = Finding("identity, events", "identity /choices/*/parts/* (tool_call): unexpected", ["DC-OTHR", "DC-MRG2"])
    assert [e.url for e in upstream.of("lib-chat", merged)] == [URL]
    assert upstream.of("lib-responses", merged) == []  # another adapter
    assert upstream.of("lib-chat", Finding("identity", merged.what, ["DC-MRG2"])) == []  # another axis
    assert upstream.of("lib-chat", Finding("identity, events", merged.what, ["DC-OTHR"])) == []  # no fixture shared
    usage = Finding("usage", "/usage: invented", ["DC-V5G1"])
    assert [e.status for e in upstream.of("lib-chat", usage)] == ["closed-as-intended"]


def test_findings_regrouped_by_a_new_run_still_find_their_entry_through_any_shared_fixture(tmp_path):
    upstream = loaded(tmp_path, entry(axis="identity, arguments", fixtures=["DC-MRG3"]))
    unexpected = {"axis": "identity", "kind": "unexpected", "place": "/choices/*/parts/* (tool_call)"}
    arguments = {"axis": "arguments", "kind": "differs", "place": "/choices/*/parts/*/arguments"}
    records = [{"fixture": f, "verdict": "fail", "divergences": [unexpected, arguments]} for f in ("DC-NEW1", "DC-MRG3")]
    (finding,) = distinct_findings(records)
    assert [e.note for e in upstream.of("lib-chat", finding)] == ["calls merged by index"]


@pytest.mark.parametrize(
    ("changes", "shown"),
    [
        ({}, f"known upstream: {URL} (open)"),
        ({"status": "fixed", "fixed_in": "2.4.0"}, f"fixed in 2.4.0: {URL}"),
        ({"status": "closed-as-intended"}, f"intended: {URL}"),
        ({"status": "documented"}, f"documented: {URL}"),
        ({"status": "unreported", "url": None}, "not reported upstream"),
    ],
)
def test_each_status_has_its_own_words(changes, shown):
    item = UpstreamEntry(**{**entry(), **changes, "adapters": ("lib-chat",), "fixtures": ("DC-MRG1",)})
    assert summary_of([item]) == shown
    assert summary_of([]) == "–"


# -- REPORT.md -----------------------------------------------------------------------------------


def test_the_distinct_findings_table_has_an_upstream_column(tmp_path):
    from deltacheck.reports.scorecard import render_report
    from deltacheck.running.results import Results

    upstream = loaded(
        tmp_path,
        entry(axis="identity", fixtures=["DC-MRG1"], status="fixed", fixed_in="2.4.0"),
        entry(axis="usage", fixtures=["DC-V5G1"], status="unreported", url=None, note="searched lib's issues for usage"),
    )
    missing = {"axis": "identity", "kind": "missing", "place": "/choices/*/parts/* (tool_call)", "pointer": "/x"}
    invented = {"axis": "usage", "kind": "invented", "place": "/usage", "pointer": "/usage"}
    finish = {"axis": "finish", "kind": "differs", "place": "/choices/*/finish_reason", "pointer": "/y"}
    records = [
        {"kind": "result", "fixture": "DC-MRG1", "adapter": "lib-chat", "verdict": "fail", "divergences": [missing]},
        {"kind": "result", "fixture": "DC-V5G1", "adapter": "lib-chat", "verdict": "fail", "divergences": [invented]},
        {"kind": "result", "fixture": "DC-FN01", "adapter": "lib-chat", "verdict": "fail", "divergences": [finish]},
    ]
    run = Results(path="lib-chat.jsonl", header={"adapter": {"name": "lib-chat"}}, records=records, complete=True)
    report = render_report([run], "9.9.9", 3, upstream=upstream)
    section = report.split("## Distinct findings", 1)[1].split("\n## ", 1)[0]
    assert "| failing fixtures | spec violations upstream |" in section
    assert "| 3 | 2 | 0 | 0 | 1 | 3 | fixed 1, not researched 1 |" in section  # /usage invented: a policy divergence
    # each finding with its upstream report is on the implementation's page of the site
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.reports.inputs import ReportInputs
    from deltacheck.site.facts import SiteFacts
    from deltacheck.site.implementation_page import _findings

    facts = SiteFacts(ReportInputs([run]), load_corpus(check_reference=False), upstream)
    page = _findings(facts, facts.implementations[0])
    assert f'/choices/*/parts/* (tool_call): missing</td><td>–</td><td><a href="../fixtures/DC-MRG1.html">DC-MRG1</a></td><td>1</td><td class="t">fixed in 2.4.0: {URL}</td>' in page
    assert '/usage: invented</td><td>–</td><td><a href="../fixtures/DC-V5G1.html">DC-V5G1</a></td><td>1</td><td class="t">not reported upstream</td>' in page
    assert '<td class="t">–</td>' in page


def test_bad_upstream_data_is_a_warning_in_the_report_not_a_failure(tmp_path):
    from deltacheck.reports.scorecard import render_report

    write(tmp_path, "lib", [entry(status="fixed")])
    report = render_report([], "9.9.9", 3, upstream=load_upstream(tmp_path / "adapters"))
    assert "- **warning:** upstream data left out: adapters/lib/upstream.json: /0/fixed_in: " in report


# -- explain --format markdown -------------------------------------------------------------------


def _explanation(entries: tuple[UpstreamEntry, ...]):
    from deltacheck.contributing.explain import Explanation
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.judge.verdict import Verdict

    corpus = load_corpus(check_reference=False)
    fixture = corpus.by_id()["DC-8499"]
    verdict = Verdict(fixture.id, fixture.protocol, "fail", "/choices/0/parts/1: expected tool_call, missing")
    finding = Finding("identity", "/choices/*/parts/* (tool_call): missing", [fixture.id])
    adapter = {"name": "lib-chat", "library": "lib", "version": "1.2.3"}
    explanation = Explanation(fixture, corpus.cite(fixture.id), adapter, verdict, ((finding, entries),),
                              ("deltacheck explain DC-8499 --adapter lib-chat --repro python",))
    return explanation, fixture.request().sse


def test_markdown_links_a_known_finding_to_its_upstream_report_instead_of_a_new_one():
    from deltacheck.contributing.explain import render_markdown

    known = UpstreamEntry(("lib-chat",), "identity", ("DC-8499",), "open", URL, None, "calls at a gap are dropped")
    markdown = render_markdown(*_explanation((known,)))
    upstream = markdown.split("### Upstream", 1)[1].split("\n### ", 1)[0]
    assert "Finding (identity): `/choices/*/parts/* (tool_call): missing`" in upstream
    assert f"- Known upstream, still open: {SHOWN} (calls at a gap are dropped)" in upstream
    assert "### Reproduce" not in markdown and "unreported" not in markdown


def test_markdown_says_an_unreported_finding_appears_unreported_and_adds_what_a_report_needs():
    from deltacheck.contributing.explain import render_markdown
    from deltacheck.contract import CONTRACT_VERSION

    searched = UpstreamEntry(("lib-chat",), "identity", ("DC-8499",), "unreported", None, None, "lib's issues: index gap")
    markdown = render_markdown(*_explanation((searched,)))
    assert "- Appears unreported upstream (searched: lib's issues: index gap)" in markdown
    reproduce = markdown.split("### Reproduce", 1)[1].split("\n### ", 1)[0]
    assert "- Versions: lib 1.2.3 (adapter lib-chat); fixture `DC-8499@" in reproduce
    assert f"contract version {CONTRACT_VERSION}" in reproduce
    assert "- `deltacheck explain DC-8499 --adapter lib-chat --repro python`" in reproduce
    # what explain printed before stays: the stream, the expected result
    assert "### Stream" in markdown and "### Expected result" in markdown


def test_markdown_without_any_record_upstream_asks_to_search_before_filing():
    from deltacheck.contributing.explain import render_markdown

    markdown = render_markdown(*_explanation(()))
    assert "- No upstream report is recorded for it; search the library's tracker before filing one" in markdown
    assert "### Reproduce" in markdown


def test_explain_runs_the_adapter_and_matches_its_finding_to_the_bundled_data(monkeypatch, tmp_path):
    from click.testing import CliRunner

    import deltacheck.judge.upstream as upstream_module
    from deltacheck.cli import main

    write(tmp_path, "miniatures", [entry(adapters=["miniature-drops-last-part"], axis="identity, events",
                                         fixtures=["DC-8499"], status="fixed", fixed_in="0.2")])
    monkeypatch.setattr(upstream_module, "ADAPTERS_DIR", tmp_path / "adapters")  # what explain reads
    result = CliRunner().invoke(
        main, ["explain", "DC-8499", "--adapter", "tests.miniatures:DropsLastPart", "--format", "markdown"]
    )
    assert result.exit_code == 0, result.output
    assert f"- Fixed upstream in 0.2: {SHOWN} (calls merged by index)" in result.stdout
    passing = CliRunner().invoke(main, ["explain", "DC-8499", "--adapter", "reference", "--format", "markdown"])
    assert passing.exit_code == 0 and "### Upstream" not in passing.stdout
