"""The results site in a real browser: the system chromium (Debian's package, never `playwright install`)
loads the overview, a fixture page and an implementation page from file://, checks they render, that a
filter hides rows and a sort reorders them, that every in-site link resolves and that no console error
is printed, and writes a screenshot of each to results/screenshots/ for the PR's artefacts.

Without chromium the test is skipped with one line, unless DELTACHECK_REQUIRE_BROWSER=1 (CI sets it),
when it fails.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.site_results import build, scored

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "results" / "screenshots"


def _chromium() -> str:
    found = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    if found is None:
        message = "browser test skipped: no chromium on PATH (apt-get install chromium)"
        if os.environ.get("DELTACHECK_REQUIRE_BROWSER") == "1":
            pytest.fail(message.replace("skipped", "required (DELTACHECK_REQUIRE_BROWSER=1)"))
        pytest.skip(message)
    return found


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    executable = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    root = tmp_path_factory.mktemp("browser")
    corpus, results = scored(root)
    site = build(corpus, results, root / "site")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield site, page, errors
        browser.close()


def _links_resolve(page, site: Path) -> int:
    """Every in-site link on the page names a file that exists (a static host would not 404)."""
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    local = [h for h in hrefs if h.startswith("file://")]
    for href in local:
        target = Path(unquote(urlparse(href).path))
        assert target.is_file(), f"{page.url}: link to {href} does not resolve"
        assert site in target.parents, f"{page.url}: link {href} leaves the site"
    return len(local)


def _visit(page, site: Path, relative: str, shot: str) -> None:
    page.goto((site / relative).as_uri())
    page.wait_for_load_state("load")
    assert page.locator("h1").count() == 1 and page.locator("h1").inner_text().strip()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / shot), full_page=True)


def test_the_overview_renders_filters_and_sorts(browser_page):
    site, page, errors = browser_page
    _visit(page, site, "index.html", "overview.png")
    rows = page.locator("table.filterable tbody tr")
    total = rows.count()
    assert total > 3
    page.select_option('select[data-filter="verdict"]', "error")
    visible = page.locator("table.filterable tbody tr:not(.hidden)")
    assert 0 < visible.count() < total
    assert all("error" in (visible.nth(i).get_attribute("data-verdict") or "").split() for i in range(visible.count()))
    assert "verdict=error" in page.url  # the filter state is in the URL
    page.select_option('select[data-filter="verdict"]', "")
    assert page.locator("table.filterable tbody tr:not(.hidden)").count() == total
    first_table = page.locator("table.sortable").first
    names = lambda: first_table.locator("tbody tr td:first-child").all_inner_texts()  # noqa: E731
    before = names()
    first_table.locator("th", has_text="implementation").click()
    ascending = names()
    first_table.locator("th", has_text="implementation").click()
    descending = names()
    assert ascending == sorted(before) and descending == sorted(before, reverse=True) and descending != before
    assert _links_resolve(page, site) > 5
    assert errors == []


def test_a_fixture_page_renders_its_verdicts_and_links(browser_page):
    site, page, errors = browser_page
    _visit(page, site, "fixtures/DC-T00K.html", "fixture.png")
    assert "two calls at indices 0 and 1 are both kept" in page.locator("h1").inner_text()
    assert page.locator("tr[data-verdict=fail]").count() == 1
    assert page.locator("pre.diff").count() >= 1
    assert _links_resolve(page, site) >= 3
    hostile = (site / "fixtures" / "DC-H0ST.html").as_uri()
    page.goto(hostile)
    assert '<script>alert("x")</script>' in page.locator("h1").inner_text()  # shown as text, never run
    assert errors == []


def test_an_implementation_page_renders_badges_findings_and_the_bug_report(browser_page):
    site, page, errors = browser_page
    _visit(page, site, "implementations/miniature-drops-last-part.html", "implementation.png")
    badge = page.locator("img[src$='miniature-drops-last-part-openai-chat.svg']")
    assert badge.count() == 1 and badge.evaluate("img => img.naturalWidth") > 0
    assert page.locator("section#DC-T00K pre.diff").count() == 1
    assert "deltacheck explain DC-T00K" in page.locator("section#DC-T00K summary").inner_text()
    assert _links_resolve(page, site) >= 3
    assert errors == []
