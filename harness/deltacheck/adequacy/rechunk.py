"""Other valid streams of the same message: the re-chunking strategy, over each protocol's edits.

`restreamings(fixture)` draws a short sequence of edits, each of which keeps the logical message
unchanged under the provider's documented semantics (and CONTRACT.md's policies): a fragment cut in
two at any character (inside JSON escapes included: arguments are JSON text, and a cut may fall
between a backslash and what it escapes, or inside a surrogate-pair escape), adjacent fragments
merged, fragments of different calls, items or choices interleaved, and whatever else the
protocol allows (a finish reason in a chunk of its own, keep-alives inserted, ...).

Every variant must assemble to the fixture's expected result. Examples from this strategy shrink
towards the fixture's own stream (no edits). Only fixtures whose fragments are pieces of one value
can be re-chunked this way (`is_rechunkable`).

The edits are the protocol's: each protocol package has a `rechunking.py` whose `EDITS` lists them
as `Edit`s, written with `cut_point`, `swap_with_next` and `is_json` below. Their order is part of
what hypothesis draws (an edit is drawn by its position), so new edits go last.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hypothesis import strategies as st

from deltacheck import json_spec
from deltacheck.model import Fixture
from deltacheck.protocols import REGISTRY

Chunks = list[dict[str, Any]]
# (name, sites, apply, takes a cut): `sites(chunks)` lists the places the edit can apply, and
# `apply(chunks, site)`, or `apply(chunks, site, cut_fraction)` when it takes a cut, returns the edited chunks.
Edit = tuple[str, Callable[[Chunks], list], Callable[..., Chunks], bool]
# Fragments that re-send the whole value so far, or a whole call again, are not pieces of one value:
# cutting or merging them changes what they say.
NOT_PIECEWISE_TAGS = frozenset({"cumulative-arguments", "duplicate-emission"})


class _EditsOfEachProtocol(Mapping[str, list[Edit]]):
    """Protocol name -> its package's `rechunking.EDITS`, imported on first use (those modules import this one)."""

    def __getitem__(self, name: str) -> list[Edit]:
        edits: list[Edit] = REGISTRY[name].part("rechunking").EDITS
        return edits

    def __iter__(self) -> Iterator[str]:
        return iter(REGISTRY)

    def __len__(self) -> int:
        return len(REGISTRY)


EDITS: Mapping[str, list[Edit]] = _EditsOfEachProtocol()


def is_rechunkable(fixture: Fixture) -> bool:
    """A fixture with a result whose fragments are pieces of one value (not a rejected stream)."""
    return fixture.expected is not None and not NOT_PIECEWISE_TAGS & set(fixture.tags)


@st.composite
def restreamings(draw, fixture: Fixture, max_edits: int = 12) -> tuple[list[dict[str, Any]], list[str]]:
    """(chunks, the edits applied) for another valid stream of the fixture's message.

    Examples from this strategy shrink towards the fixture's own stream, with no edits.
    """
    chunks: Chunks = [copy.deepcopy(c) for c in fixture.chunks]
    applied: list[str] = []
    edits = EDITS[fixture.protocol]
    for _ in range(max_edits):
        if not draw(st.booleans()):  # "one more edit?": deleting a choice deletes an edit when shrinking
            break
        name, find_sites, apply, takes_cut = draw(st.sampled_from(edits))
        sites = find_sites(chunks)
        if not sites:
            continue
        site = draw(st.sampled_from(sites))
        if takes_cut:
            chunks = apply(chunks, site, draw(st.floats(0, 1, exclude_max=True)))
        else:
            chunks = apply(chunks, site)
        applied.append(f"{name}@{site}")
    return chunks, applied


def cut_point(text: str, fraction: float) -> int:
    """A cut strictly inside the text: both halves are non-empty."""
    return 1 + int(fraction * (len(text) - 1))


def swap_with_next(chunks: Chunks, i: int) -> Chunks:
    return chunks[:i] + [chunks[i + 1], chunks[i]] + chunks[i + 2 :]


def is_json(text: str) -> bool:
    """One whole JSON value (RFC 8259), as everywhere in the harness."""
    return json_spec.is_json(text)
