"""Library and fixture text written into Markdown as itself: never markup, never HTML, never a link.

`deltacheck explain --format markdown` (a bug report) and the GitHub Action's job summary print
text that libraries, adapters and fixtures wrote: an exception message, an observed tool name, a
title. Any of it may hold `|`, backticks, `<script>` or newlines; here it is escaped so that it
reads as what it is and cannot end a table row, open a code span or inject an element.
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")

# A URL, or a GitHub reference such as owner/repo#123: pasted into an issue, either links to (and
# leaves a backlink in) another project's thread. They are shown as code, which GitHub never links.
_REFERENCE = re.compile(r"https?://[^\s<>`]+|(?<![\w./-])[\w.-]+/[\w.-]+#\d+\b")
_GITHUB_THREAD = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(\d+)(?:[/?#]\S*)?")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")


def code_span(text: str) -> str:
    """Inline code that survives backticks in the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def escape_markdown(text: str) -> str:
    """Text shown as itself: never Markdown or HTML, and never a link (a GitHub issue or PR as
    `owner/repo#123`, any other URL as code)."""
    out, last = [], 0
    for match in _REFERENCE.finditer(text):
        reference = match.group().rstrip(".,;:)")  # the sentence's punctuation, not the URL's
        out += [_escape_plain(text[last : match.start()]), code_span(_GITHUB_THREAD.sub(r"\1#\2", reference))]
        last = match.start() + len(reference)
    return "".join(out) + _escape_plain(text[last:])


def table_cell(text: str, limit: int | None = None) -> str:
    """Text for one cell of a Markdown table: on one line, escaped, a pipe never ending the cell.

    `limit` shortens long text (before escaping, so an escape is never cut in half).
    """
    one_line = _LINE_BREAKS.sub(" ", str(text)).strip()
    if limit is not None and len(one_line) > limit:
        one_line = one_line[: limit - 1].rstrip() + "…"
    # A table splits cells at a pipe even inside a code span (a URL shown as code); `\|` there is a pipe.
    return re.sub(r"(?<!\\)\|", r"\\|", escape_markdown(one_line))


def _escape_plain(text: str) -> str:
    """Text shown as itself, never as Markdown or HTML (a heading, list or quote marker at the start
    of a line is escaped too)."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    escaped = re.sub(r"^(\s*)([#+-])", r"\1\\\2", escaped, flags=re.MULTILINE)
    return re.sub(r"^(\s*\d+)\.", r"\1\\.", escaped, flags=re.MULTILINE)
