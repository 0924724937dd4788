"""Text a gateway writes (its log, an error body), made safe to print as one line."""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def plain_line(text: str) -> str:
    """Terminal escapes removed, control characters and line breaks turned into single spaces."""
    text = _ANSI.sub("", text)
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
