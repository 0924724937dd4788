"""The results site: static HTML, JSON and badges generated from the results files REPORT.md reads.

`build_site` (pages.py) writes it; each page has a module of its own (overview.py, fixture_page.py,
implementation_page.py, sections.py), beside the badges (badges.py) and the JSON documents (data.py,
validated by schemas/). Everything opens from file:// and any static host: relative links, one CSS
and one JS file of the project's own (assets/), nothing fetched at view time.
"""
