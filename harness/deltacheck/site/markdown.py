"""The Markdown the report's section renderers write (reports/adequacy.py, cost.py, scorecard.py), as HTML.

Only what those renderers use: headings, paragraphs, `- ` lists, pipe tables, fenced blocks, HTML
comments (dropped), `**strong**` and code spans. The text is escaped before any of it is read, so
library text inside a section stays text.
"""

from __future__ import annotations

import re

from deltacheck.site.html import esc

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_CODE = re.compile(r"(`+) ?(.+?) ?\1")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def _unescape_pipes(text: str) -> str:
    """A table cell's `\\|` is its text's `|`."""
    return text.replace("\\|", "|")


def inline(text: str) -> str:
    """One line's inline Markdown as HTML; code spans are kept literal."""
    parts, last, out = [], 0, []
    for match in _CODE.finditer(text):
        parts.append((text[last : match.start()], False))
        parts.append((match.group(2), True))
        last = match.end()
    parts.append((text[last:], False))
    for chunk, is_code in parts:
        if is_code:
            out.append(f"<code>{esc(_unescape_pipes(chunk))}</code>")
            continue
        shown = esc(_unescape_pipes(chunk))
        shown = _STRONG.sub(r"<strong>\1</strong>", shown)
        shown = _EMPHASIS.sub(r"<em>\1</em>", shown)
        shown = _LINK.sub(_relative_link, shown)
        out.append(shown)
    return "".join(out)


# A page of the site itself, the only link a section may hold: a relative path to an .html file, no
# scheme (library text quoted in a section can look like a Markdown link; it stays text).
_SITE_PAGE = re.compile(r"(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.html")


def _relative_link(match: re.Match[str]) -> str:
    if not _SITE_PAGE.fullmatch(match.group(2)):
        return match.group(0)
    return f'<a href="{match.group(2)}">{match.group(1)}</a>'


def to_html(lines: list[str]) -> str:
    """A section's Markdown lines (each may hold several lines) as HTML."""
    text = "\n".join(lines)
    out: list[str] = []
    paragraph: list[str] = []
    rows: list[list[str]] = []
    items: list[str] = []
    fence: list[str] | None = None

    def flush() -> None:
        if paragraph:
            out.append("<p>" + " ".join(inline(line) for line in paragraph) + "</p>")
            paragraph.clear()
        if rows:
            head, *body = rows
            out.append(
                '<table class="sortable"><thead><tr>'
                + "".join(f"<th>{inline(c)}</th>" for c in head)
                + "</tr></thead><tbody>\n"
                + "\n".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in body)
                + "\n</tbody></table>"
            )
            rows.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{inline(item)}</li>" for item in items) + "</ul>")
            items.clear()

    for line in text.split("\n"):
        if fence is not None:
            if line.startswith("```"):
                out.append(f"<pre>{esc(chr(10).join(fence))}</pre>")
                fence = None
            else:
                fence.append(line)
            continue
        if line.startswith("```"):
            flush()
            fence = []
        elif not line.strip() or line.startswith("<!--"):
            flush()
        elif heading := re.match(r"(#{1,4}) (.*)", line):
            flush()
            level = min(len(heading.group(1)) + 0, 4)
            out.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif line.startswith("|"):
            if paragraph or items:
                flush()
            cells = [c.strip() for c in _CELL_SPLIT.split(line.strip())[1:-1]]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif line.startswith("- "):
            if paragraph or rows:
                flush()
            items.append(line[2:])
        else:
            if rows or items:
                flush()
            paragraph.append(line)
    if fence is not None:
        out.append(f"<pre>{esc(chr(10).join(fence))}</pre>")
    flush()
    return "\n".join(out)
