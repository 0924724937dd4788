"""One shields-style SVG badge per implementation and protocol, made offline with anybadge: the
protocol's name and the spec-violation score ("92/94"), coloured by the share passed."""

from __future__ import annotations

import anybadge  # type: ignore[import-untyped]

from deltacheck.site.html import safe_name

# (share of scored fixtures without a spec violation, colour), the first that the share reaches
COLOURS = ((1.0, "#4c1"), (0.9, "#97ca00"), (0.75, "#dfb317"), (0.5, "#fe7d37"), (0.0, "#e05d44"))


def badge_path(implementation: str, protocol: str) -> str:
    """Where the badge lies in the site: badges/<implementation>-<protocol>.svg (names made file-safe)."""
    return f"badges/{safe_name(implementation)}-{safe_name(protocol)}.svg"


def badge_svg(protocol: str, score: int, scored: int) -> str:
    share = score / scored if scored else 0.0
    colour = next(c for floor, c in COLOURS if share >= floor)
    badge = anybadge.Badge(label=protocol, value=f"{score}/{scored}", default_color=colour)
    badge.mask_str = "deltacheck"  # anybadge numbers masks per process; one badge per file needs no number
    return badge.badge_svg_text


def badge_markdown(implementation: str, protocol: str, site_url: str | None, root: str) -> str:
    """The snippet to embed a badge, linking to the implementation's page: absolute with the site URL,
    else relative to the site's top."""
    base = site_url.rstrip("/") + "/" if site_url else root
    page = f"{base}implementations/{safe_name(implementation)}.html"
    return f"[![deltacheck {protocol}]({base}{badge_path(implementation, protocol)})]({page})"
