"""Links from REPORT.md into the results site (deltacheck.site), where the detail of each row lives."""

from __future__ import annotations

from deltacheck.site.html import safe_name


def cell_text(text: str) -> str:
    """Text as one Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


class SiteLinks:
    """Links from REPORT.md into the results site: absolute under a URL, else relative to the report."""

    def __init__(self, site: str) -> None:
        self.base = site if not site or site.endswith("/") else site + "/"  # "": the site's own top

    @property
    def index(self) -> str:
        return self.page("index.html")

    def page(self, relative: str) -> str:
        return self.base + relative

    def implementation(self, name: object) -> str:
        return f"[{cell_text(str(name))}]({self.page(f'implementations/{safe_name(str(name))}.html')})"

    def fixture(self, fixture: str) -> str:
        if fixture.startswith("("):  # a file that is no fixture: no page of its own
            return fixture
        return f"[{fixture}]({self.page(f'fixtures/{safe_name(fixture)}.html')})"
