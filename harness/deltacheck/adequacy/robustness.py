"""Broken streams: what an assembler must survive without hanging or crashing on something unrelated.

`perturbations(fixture)` draws one damaged variant of a fixture's stream: truncated, cut in the
middle of an event (some of its fields never arrived), with unknown event types or fields, with an
event duplicated, or with two events out of order. No expected result exists for these; the
property is that the implementation either assembles *a* canonical result or raises a clear error
(the reference: `AssemblyError` naming a chunk that exists), and never hangs, crashes, or returns
something that is not a canonical result.

Examples from this strategy shrink towards the shortest truncation of the stream. Each protocol
package has a `robustness.py` whose `UNKNOWN_EVENT` is the unknown event sent in its streams.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from deltacheck.model import Fixture
from deltacheck.protocols import all_protocols

# Protocol name -> an event of a type its spec does not define (yet): its package's `robustness.UNKNOWN_EVENT`.
UNKNOWN_EVENTS = {protocol.name: protocol.part("robustness").UNKNOWN_EVENT for protocol in all_protocols()}
KINDS = ("truncate", "cut-event", "unknown-event", "unknown-field", "duplicate", "swap")


@st.composite
def perturbations(draw, fixture: Fixture) -> tuple[list[Any], str]:
    """(damaged chunks, what was done to them)."""
    chunks = [copy.deepcopy(c) for c in fixture.chunks]
    kind = draw(st.sampled_from(KINDS))
    n = len(chunks)
    if kind == "truncate":
        keep = draw(st.integers(0, max(n - 1, 0)))
        return chunks[:keep], f"truncated after {keep} of {n} chunks"
    at = draw(st.integers(0, n - 1))
    if kind == "cut-event":
        chunk = chunks[at]
        keys = sorted(chunk) if isinstance(chunk, dict) else []
        dropped = draw(st.lists(st.sampled_from(keys), min_size=1, unique=True)) if keys else []
        chunks[at] = {k: v for k, v in chunk.items() if k not in dropped}
        return chunks[: at + 1], f"cut in chunk {at}: {', '.join(dropped) or 'nothing'} never arrived"
    if kind == "unknown-event":
        return chunks[:at] + [copy.deepcopy(UNKNOWN_EVENTS[fixture.protocol])] + chunks[
            at:
        ], f"unknown event before chunk {at}"
    if kind == "unknown-field":
        if isinstance(chunks[at], dict):
            chunks[at]["x_deltacheck_unknown"] = draw(st.sampled_from([None, 0, "", [], {"nested": True}]))
        return chunks, f"unknown field in chunk {at}"
    if kind == "duplicate":
        return chunks[: at + 1] + [copy.deepcopy(chunks[at])] + chunks[at + 1 :], f"chunk {at} sent twice"
    other = draw(st.integers(0, n - 1))
    chunks[at], chunks[other] = chunks[other], chunks[at]
    return chunks, f"chunks {at} and {other} swapped"
