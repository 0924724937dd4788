"""Which jobs shard I of N runs: a partition of a list of job names, the same on every machine.

CI runners are the distributed engine (one runner per shard, a merge job after them); this module
only decides, from the names alone, which runner runs which job. It never looks at the machine:
not at `-j`, the toolchains present or the environments already built, so every runner computes the
same partition and each job lands in exactly one shard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count`, counted from 1 as people (and GitHub Actions matrices) write it."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"expected I/N with 1 ≤ I ≤ N, got {self.index}/{self.count}")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`2/3` → Shard(2, 3); ValueError with one line saying what is expected otherwise."""
        index, slash, count = text.strip().partition("/")
        if not (slash and index.isdecimal() and count.isdecimal()):
            raise ValueError(f"expected I/N (for example 2/3), got {text!r}")
        return cls(int(index), int(count))


def shard_jobs(
    names: Iterable[str],
    shard: Shard,
    cost: Callable[[str], int] = lambda name: 1,
    group: Callable[[str], str] = lambda name: name,
) -> list[str]:
    """The names shard `shard` runs, in the order given.

    Jobs of one `group` (adapters sharing one environment, which each runner would otherwise build
    again) go to the same shard. Groups are dealt heaviest first, each to the shard with the least
    `cost` so far, ties to the lowest shard (longest-processing-time first): slow groups such as
    JVM adapters spread over the shards instead of piling up in one. Costs are integers, so the sums
    and their ties are the same on every machine.
    """
    unique = list(dict.fromkeys(names))
    groups: dict[str, list[str]] = {}
    for name in unique:
        groups.setdefault(group(name), []).append(name)
    weights = {key: sum(map(cost, members)) for key, members in groups.items()}
    loads = [0] * shard.count
    mine: set[str] = set()
    for key in sorted(groups, key=lambda key: (-weights[key], key)):
        lightest = loads.index(min(loads))
        loads[lightest] += weights[key]
        if lightest == shard.index - 1:
            mine.update(groups[key])
    return [name for name in unique if name in mine]
