"""The reference's work grows linearly with the stream, counted in characters rather than timed.

On the long generated streams of deltacheck.cost.long_streams the test counts every character the
reference copies or reads as a whole, at 1k and at 10k fragments:

- each string concatenation with a fragment (the fragments are a str subclass that counts `+`:
  `text += fragment` copies the whole text);
- each text given to json.loads or to the JSON-prefix scanner (a parse of everything so far);
- each character the incremental JSON scanner reads, and each read of an assembled text.

Ten times the fragments may cost at most ten times the work (plus a little for constants).
Timing belongs to bench/reference_scaling.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from deltacheck.cost import long_streams
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble
from deltacheck.reference.fragments import Fragments, JsonFragments

FRAGMENT_FIELDS = {"content", "arguments", "delta", "text", "partial_json"}
GROWTH_ALLOWED = 10.5  # for 10x the fragments
WORK_PER_CHARACTER = 8  # at most this many characters of work per character streamed


class Counter:
    characters = 0


class CountedFragment(str):
    """A fragment that counts the characters copied by any concatenation it takes part in."""

    def __add__(self, other: str) -> "CountedFragment":
        Counter.characters += len(self) + len(other)
        return CountedFragment(str.__add__(self, other))

    def __radd__(self, other: str) -> "CountedFragment":
        Counter.characters += len(other) + len(self)
        return CountedFragment(str.__add__(other, self))


def counted(value: Any) -> Any:
    """The chunks with every fragment replaced by a CountedFragment."""
    if isinstance(value, dict):
        return {k: CountedFragment(v) if k in FRAGMENT_FIELDS and isinstance(v, str) else counted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [counted(v) for v in value]
    return value


def counting_text_argument(function):
    """`function`, counting the length of the text it is given (its first argument after any `self`)."""
    def wrapper(*args, **kwargs):
        Counter.characters += len(next(a for a in args if isinstance(a, str)))
        return function(*args, **kwargs)
    return wrapper


def counting_reads(read):
    def wrapper(self):
        Counter.characters += self.length  # reading the whole text costs a join of it, at worst
        return read(self)
    return wrapper


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setattr(json, "loads", counting_text_argument(json.loads))
    monkeypatch.setattr(JsonFragments, "_scan", counting_text_argument(JsonFragments._scan))
    monkeypatch.setattr(Fragments, "text", counting_reads(Fragments.text))

    def work(scenario) -> int:
        chunks = counted(scenario.chunks)
        Counter.characters = 0
        outcome = assemble(scenario.protocol, chunks)
        assert scenario.mismatch(outcome.result) is None, scenario.mismatch(outcome.result)
        return Counter.characters

    return work


@pytest.mark.parametrize("protocol, shape", [(protocol, shape) for protocol in PROTOCOLS
                                             for shape in long_streams.streamed_shapes(protocol)])
def test_the_reference_work_grows_linearly(counting, protocol, shape):
    small, large = (long_streams.Scenario(protocol, shape, n) for n in (1_000, 10_000))
    small_work, large_work = counting(small), counting(large)
    streamed = sum(len(piece) for _, piece in large.order)
    assert large_work <= GROWTH_ALLOWED * small_work, (
        f"{protocol}/{shape}: {large_work:,} characters of work at 10k fragments, {small_work:,} at 1k")
    assert large_work <= WORK_PER_CHARACTER * streamed, (
        f"{protocol}/{shape}: {large_work:,} characters of work for {streamed:,} streamed")
