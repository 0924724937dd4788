"""`deltacheck site`: a page per fixture and implementation, escaped text, stable names, schema-valid JSON,
the same bytes from the same results, and REPORT.md a summary that links into it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from deltacheck.cli import main
from deltacheck.site.badges import badge_svg
from deltacheck.site.html import esc, safe_name, text_with_links
from tests.site_results import HOSTILE_TITLE, build, scored

SCHEMAS = Path(__file__).resolve().parents[1] / "harness" / "deltacheck" / "site" / "schemas"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    corpus, results = scored(root)
    return build(corpus, results, root / "site")


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_every_fixture_and_implementation_has_a_page_a_json_document_and_badges(site):
    for fixture in ("DC-T3ST", "DC-T00K", "DC-H0ST"):
        assert (site / "fixtures" / f"{fixture}.html").is_file()
        assert (site / "data" / "fixtures" / f"{fixture}.json").is_file()
    for name in ("reference", "miniature-drops-last-part", "miniature-raises"):
        assert (site / "implementations" / f"{safe_name(name)}.html").is_file()
        assert (site / "data" / "implementations" / f"{safe_name(name)}.json").is_file()
        svg = (site / "badges" / f"{safe_name(name)}-openai-chat.svg").read_text()
        assert svg.startswith("<?xml") and "openai-chat" in svg
    assert "3/3" in (site / "badges" / "reference-openai-chat.svg").read_text()
    assert "0/3" in (site / "badges" / "miniature-drops-last-part-openai-chat.svg").read_text()
    for page in ("index.html", "seeds.html", "gateways.html", "fuzzing.html", "mutants.html", "cost.html"):
        assert (site / page).is_file(), page


def test_names_become_stable_file_names_that_never_collide_or_leave_the_folder():
    assert safe_name("ai-sdk-anthropic@6") == "ai-sdk-anthropic_406"
    assert safe_name("ai-sdk-anthropic@6") == safe_name("ai-sdk-anthropic@6")
    assert safe_name("../../etc/passwd") == "_2e_2e_2f_2e_2e_2fetc_2fpasswd"
    names = ["a@b", "a_40b", "a/b", "a_2fb", "a.b", "a b", "é", "", "."]
    shown = [safe_name(n) for n in names]
    assert len(set(shown)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", s) for s in shown)


def test_a_fixture_title_and_an_observed_string_with_markup_render_as_text(site):
    page = (site / "fixtures" / "DC-H0ST.html").read_text()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert esc(HOSTILE_TITLE) in page
    assert "&lt;img src=x onerror=alert(1)&gt;\\u0007" in page  # the control character shown, not sent
    assert "\x07" not in page
    overview = (site / "index.html").read_text()
    assert "<script>alert" not in overview and esc(HOSTILE_TITLE) in overview
    # the only scripts are the site's own file
    assert re.findall(r"<script[^>]*>", page) == ['<script src="../assets/site.js" defer>']


def test_urls_in_a_provenance_or_basis_become_links_and_the_rest_stays_text():
    shown = text_with_links('captured: https://example.org/a_b?x=1; see <b>https://example.org/c</b>, then "javascript:alert(1)".')
    assert shown == (
        'captured: <a href="https://example.org/a_b?x=1" rel="noreferrer">https://example.org/a_b?x=1</a>; see '
        '&lt;b&gt;<a href="https://example.org/c" rel="noreferrer">https://example.org/c</a>&lt;/b&gt;, then '
        "&quot;javascript:alert(1)&quot;."
    )


def test_the_fixture_page_shows_the_stream_expectation_rule_and_every_verdict_with_its_diff(site):
    page = (site / "fixtures" / "DC-T00K.html").read_text()
    assert "two calls at indices 0 and 1 are both kept" in page and "DC-T00K@9.9.9" in page
    assert "call_b" in page and "Expected result" in page and "Stream" in page
    rows = re.findall(r'<tr data-verdict="([^"]+)"><td><a href="([^"]+)">([^<]+)</a>', page)
    assert [(v, n) for v, _, n in rows] == [
        ("pass", "reference"),
        ("fail", "miniature-drops-last-part"),
        ("error", "miniature-raises"),
    ]
    assert rows[1][1] == "../implementations/miniature-drops-last-part.html"
    assert esc("/choices/0/parts/1: expected tool_call 'call_b' (lookup), missing") in page
    assert '<pre class="diff">' in page
    hostile = (site / "fixtures" / "DC-H0ST.html").read_text()
    assert "CONTRACT.md 3.3 openai-chat rule 2" in hostile and "<blockquote>" in hostile


def test_the_implementation_page_has_findings_failures_diffs_and_the_paste_ready_bug_report(site):
    page = (site / "implementations" / "miniature-drops-last-part.html").read_text()
    assert "Distinct findings" in page and "Failures" in page
    assert '<section id="DC-T00K">' in page and '<pre class="diff">' in page
    # the bug report is what `explain --format markdown` renders, escaped into the page
    assert "**DC-T00K@9.9.9**" in page and "### Expected result (deltacheck CONTRACT.md 3)" in page
    assert "deltacheck explain DC-T00K --adapter miniature-drops-last-part --format markdown" in page
    assert '<img src="../badges/miniature-drops-last-part-openai-chat.svg"' in page
    assert esc("[![deltacheck openai-chat](badges/miniature-drops-last-part-openai-chat.svg)]") in page


def test_the_implementation_page_gives_each_lacking_capability_its_reason(tmp_path):
    from deltacheck.adapter import CAPABILITIES
    from deltacheck.running.results import Results
    from deltacheck.site.facts import Implementation
    from deltacheck.site.implementation_page import _description

    adapter = {"name": "lib-chat", "library": "lib", "version": "1", "protocols": ["openai-chat"],
               "capabilities": sorted(set(CAPABILITIES) - {"refusal", "usage"}), "code_path": "lib.stream()",
               "capability_notes": {"usage": "Usage <b>is</b> the library's own"}}
    html = _description(Implementation(Results(path="r.jsonl", header={"adapter": adapter})))
    assert "<code>refusal</code>: no reason recorded" in html
    assert "<code>usage</code>: Usage &lt;b&gt;is&lt;/b&gt; the library&#x27;s own" in html
    assert "lib.stream()" in html and "not declared (judged as multi-provider)" in html


def test_findings_on_the_implementation_page_show_severity_and_upstream(tmp_path):
    """What REPORT.md's findings tables said before the summary: every finding, its severities, shapes, upstream."""
    from deltacheck.judge.upstream import load_upstream
    from deltacheck.reports.inputs import ReportInputs
    from deltacheck.running.results import Results
    from deltacheck.site.facts import SiteFacts
    from deltacheck.site.implementation_page import _findings
    from tests.test_severity import DOCUMENTED, INVENTED_USAGE, MISSING_CALL, POLICY, VLLM_ONLY

    def record(fixture, verdict, **fields):
        return {"kind": "result", "fixture": fixture, "protocol": "openai-chat", "verdict": verdict, **fields}

    records = [
        record("DC-BBBB", "fail", divergences=[MISSING_CALL], basis=DOCUMENTED),
        record("DC-CCCC", "fail", divergences=[MISSING_CALL], basis=POLICY),
        record("DC-DDDD", "fail", divergences=[MISSING_CALL], basis=VLLM_ONLY),
        record("DC-FFFF", "fail", divergences=[INVENTED_USAGE], basis=DOCUMENTED),
    ]
    adapter = {"name": "lib", "library": "lib", "version": "1", "protocols": ["openai-chat"], "scope": "provider"}
    run = Results(path="lib.jsonl", header={"adapter": adapter}, records=records, complete=True)
    from deltacheck.corpus.loader import load_corpus

    facts = SiteFacts(ReportInputs([run]), load_corpus(check_reference=False), load_upstream(tmp_path))
    html = _findings(facts, facts.implementations[1 - 1])
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td>", html)
    assert rows[0] == ("spec violation 1, compatibility 1, policy divergence 1", "identity")
    assert rows[-1] == ("policy divergence", "usage")
    assert '<a href="../fixtures/DC-BBBB.html">DC-BBBB</a>' in html


def test_the_overview_filters_and_sorts_and_links_every_implementation_and_fixture(site):
    page = (site / "index.html").read_text()
    for control in ("protocol", "language", "tag", "axis", "verdict", "text"):
        assert f'data-filter="{control}"' in page
    assert 'class="sortable filterable"' in page
    assert 'href="implementations/miniature-drops-last-part.html"' in page
    assert 'href="fixtures/DC-T00K.html"' in page
    hrefs = re.findall(r'href="([^"#]+)"', page)
    assert hrefs and all(not h.startswith(("/", "http")) for h in hrefs)  # relative links only
    assert all((site / h).exists() for h in hrefs)
    assert "https://" not in (site / "assets" / "site.js").read_text()


def test_the_json_documents_validate_against_their_schemas(site):
    validators = {
        name: Draft202012Validator(json.loads((SCHEMAS / f"{name}.schema.json").read_text()))
        for name in ("index", "implementation", "fixture")
    }
    for validator in validators.values():
        Draft202012Validator.check_schema(validator.schema)
    documents = [("index", site / "data" / "index.json")]
    documents += [("implementation", p) for p in sorted((site / "data" / "implementations").glob("*.json"))]
    documents += [("fixture", p) for p in sorted((site / "data" / "fixtures").glob("*.json"))]
    assert len(documents) == 1 + 3 + 3
    for schema, path in documents:
        errors = [e.message for e in validators[schema].iter_errors(json.loads(path.read_text()))]
        assert not errors, f"{path}: {errors}"
    index = json.loads((site / "data" / "index.json").read_text())
    assert index["implementations"][0]["scores"]["openai-chat"] == {"score": 3, "scored": 3}
    fixture = json.loads((site / "data" / "fixtures" / "DC-T00K.json").read_text())
    assert fixture["verdicts"]["miniature-drops-last-part"]["severity"] == "spec violation"


def test_a_schema_rejects_a_document_it_does_not_describe():
    validator = Draft202012Validator(json.loads((SCHEMAS / "fixture.schema.json").read_text()))
    assert list(validator.iter_errors({"id": "DC-X", "unexpected": 1}))


def test_the_same_results_give_the_same_bytes(tmp_path, site):
    corpus, results = scored(tmp_path / "again", ("miniature-raises", "reference", "miniature-drops-last-part"))
    again = build(corpus, results, tmp_path / "again" / "site")
    first, second = files_of(site), files_of(again)
    assert sorted(first) == sorted(second)
    different = [name for name in first if first[name] != second[name]]
    assert different == []


def test_a_second_build_replaces_the_site_and_a_foreign_folder_is_refused(tmp_path):
    corpus, results = scored(tmp_path)
    out = build(corpus, results, tmp_path / "site")
    (out / "fixtures" / "DC-GONE.html").write_text("stale")
    build(corpus, results, out)
    assert not (out / "fixtures" / "DC-GONE.html").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    outcome = CliRunner().invoke(main, ["site", str(results / "reference.jsonl"), "--corpus", str(corpus), "--out", str(foreign)])
    assert outcome.exit_code == 1
    assert "was not written by `deltacheck site`" in outcome.output and (foreign / "notes.txt").exists()


def test_a_malformed_results_file_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "results" / "lib.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"kind": "header", "adapter": {"name": "lib"}}\nnot json\n')
    outcome = CliRunner().invoke(main, ["site", str(bad), "--out", str(tmp_path / "site")])
    assert outcome.exit_code == 1
    assert "lib.jsonl" in outcome.output and "Traceback" not in outcome.output
    assert len(outcome.output.strip().splitlines()) == 1


def test_report_links_each_row_into_the_site_relative_or_under_the_site_url(tmp_path):
    corpus, results = scored(tmp_path)
    text = (tmp_path / "REPORT.md").read_text()
    assert "| [miniature-drops-last-part](site/implementations/miniature-drops-last-part.html) | openai-chat | 0 / 3 |" in text
    assert "[site/index.html](site/index.html)" in text
    files = [str(p) for p in sorted(results.glob("*.jsonl")) if not p.name.startswith(("fuzz-", "cost-", "mutants"))]
    output = tmp_path / "R.md"
    outcome = CliRunner().invoke(
        main, ["report", *files, "--corpus", str(corpus), "--output", str(output), "--site-url", "https://x.example/dc"]
    )
    assert outcome.exit_code == 0, outcome.output
    linked = output.read_text()
    assert "(https://x.example/dc/implementations/miniature-drops-last-part.html)" in linked
    assert "(site/" not in linked
    assert not (tmp_path / "R.html").exists() and not (tmp_path / "REPORT.html").exists()


def test_section_markdown_keeps_library_text_as_text_and_links_only_site_pages():
    from deltacheck.site.markdown import to_html

    html = to_html([
        "| route | message |",
        "|---|---|",
        "| [lib](implementations/lib.html) | raised: <b>**x**</b> [y](data:text/html,<script>) [z](javascript:alert(1)) `a\\|b` |",
    ])
    assert '<a href="implementations/lib.html">lib</a>' in html
    assert "<b>" not in html and "&lt;b&gt;" in html and "<script>" not in html
    assert 'href="data:' not in html and 'href="javascript:' not in html
    assert "<code>a|b</code>" in html


def test_the_readme_badges_are_what_the_site_makes_for_their_scores():
    """docs/images/badge-<protocol>-<score>-of-<scored>.svg illustrate the README: they must stay the
    bytes `deltacheck site` writes for those numbers, so a change to the badges shows here."""
    images = Path(__file__).resolve().parent.parent / "docs" / "images"
    badges = sorted(images.glob("badge-*.svg"))
    assert badges, "the README's example badges are missing"
    for path in badges:
        protocol, score, scored = re.fullmatch(r"badge-(.+)-(\d+)-of-(\d+)\.svg", path.name).groups()
        assert path.read_text() == badge_svg(protocol, int(score), int(scored)), path.name
    readme = (images.parent.parent / "README.md").read_text()
    for name in re.findall(r"\]\((docs/images/[^)]+)\)", readme):
        assert (images.parent.parent / name).is_file(), name
