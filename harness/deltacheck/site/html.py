"""HTML building blocks shared by every page: escaping, file names, links, the page shell.

Library and fixture text is hostile (markup, quotes, control characters): every piece of it goes
through `esc`, which shows it as text.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import deltacheck

# C0 controls (but tab and newline) and DEL: shown as \\uXXXX, never passed to the browser.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def esc(text: object) -> str:
    """Text as HTML text or attribute value: markup and quotes escaped, control characters made visible."""
    shown = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", str(text))
    return html.escape(shown, quote=True)


_SAFE = re.compile(r"[A-Za-z0-9-]")


def safe_name(name: str) -> str:
    """A stable file name for an implementation's or fixture's name: letters, digits and `-` kept; every
    other byte (`@`, `/`, `.`, `_`, non-ASCII) written `_xx` in hex, so two names never share a file and
    no name reaches another folder."""
    return "".join(ch if _SAFE.fullmatch(ch) else "".join(f"_{b:02x}" for b in ch.encode()) for ch in name) or "_"


def implementation_href(name: str, root: str) -> str:
    return f"{root}implementations/{safe_name(name)}.html"


def fixture_href(fixture: str, root: str) -> str:
    return f"{root}fixtures/{safe_name(fixture)}.html"


def link(href: str, text: object) -> str:
    return f'<a href="{esc(href)}">{esc(text)}</a>'


def pre(text: object, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    return f"<pre{klass}>{esc(text)}</pre>"


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def external_link(url: str) -> str:
    """A URL from a fixture or upstream file: a link only when it is http(s), else text."""
    if re.match(r"https?://[^\s\"'<>]+$", url):
        return f'<a href="{esc(url)}" rel="noreferrer">{esc(url)}</a>'
    return esc(url)


# A URL inside prose: up to whitespace or a quote, without the punctuation that ends a sentence or clause.
_URL_IN_TEXT = re.compile(r"https?://[^\s\"'<>]*[^\s\"'<>.,;:)\]]")


def text_with_links(text: str) -> str:
    """Prose (a provenance, a basis) escaped, its http(s) URLs made links so a reader can follow them."""
    out, last = [], 0
    for match in _URL_IN_TEXT.finditer(text):
        out.append(esc(text[last : match.start()]))
        out.append(external_link(match.group()))
        last = match.end()
    out.append(esc(text[last:]))
    return "".join(out)


def table(headers: list[str], rows: list[str], css: str = "", sortable: bool = True) -> str:
    """A table of prepared rows (each `<tr>…</tr>`); sortable ones sort by clicking a column header."""
    attrs = (' class="sortable' + (f" {css}" if css else "") + '"') if sortable else (f' class="{css}"' if css else "")
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    return f"<table{attrs}><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>"


NAV = (
    ("index.html", "overview"),
    ("seeds.html", "seeds"),
    ("gateways.html", "gateways"),
    ("fuzzing.html", "fuzzing"),
    ("mutants.html", "mutants"),
    ("cost.html", "cost"),
    ("data/index.json", "JSON"),
)


def page(title: str, body: str, root: str, corpus_version: str) -> str:
    """A whole document; `root` is the way back to the site's top ("" or "../")."""
    nav = " · ".join(link(root + href, text) for href, text in NAV)
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)} · deltacheck</title>\n"
        f'<link rel="stylesheet" href="{root}assets/site.css">\n'
        f'<script src="{root}assets/site.js" defer></script>\n'
        "</head>\n<body>\n"
        f"<header><nav>{nav}</nav>"
        f'<p class="meta">deltacheck {esc(deltacheck.__version__)} · corpus {esc(corpus_version)} · '
        f"contract {esc(deltacheck.CONTRACT_VERSION)} · generated from the results files</p></header>\n"
        f"<main>\n<h1>{esc(title)}</h1>\n{body}\n</main>\n</body>\n</html>\n"
    )
