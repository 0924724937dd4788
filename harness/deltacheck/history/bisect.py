"""Bisection: for a finding seen in one release, the first release that shows it and the first later
one that no longer does, by binary search over the ordered releases.

A probe scores a release (or reads it back when it was scored before) and says which findings it
shows, or None when the release cannot be scored; those are skipped over (the search takes another
release near the middle) and reported. The search assumes a finding, once introduced, stays until it
is fixed: each bracket holds one change. Probes are remembered, so the findings of one history share
them: O(log n) probes per finding, fewer when brackets overlap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

FindingKey = tuple[str, str]
Probe = Callable[[str], "frozenset[FindingKey] | None"]


@dataclass(frozen=True)
class Bisected:
    finding: FindingKey
    since: str  # the first release found showing it
    since_oldest: bool  # it shows in the oldest scorable release searched: it may be older than the range
    fixed_in: str | None  # the first later release without it; None: still present in the newest scored
    skipped: tuple[str, ...] = ()  # unscorable releases inside a bracket: the change may lie in one of them


@dataclass
class Bisector:
    versions: Sequence[str]  # oldest first
    probe: Probe
    known: dict[str, frozenset[FindingKey] | None] = field(default_factory=dict)
    probed: list[str] = field(default_factory=list)  # releases the probe was asked about, in order

    def findings(self, version: str) -> frozenset[FindingKey] | None:
        """What the release shows (None: unscorable), probed once."""
        if version not in self.known:
            self.probed.append(version)
            self.known[version] = self.probe(version)
        return self.known[version]

    def shows(self, index: int, finding: FindingKey) -> bool | None:
        found = self.findings(self.versions[index])
        return None if found is None else finding in found

    def unscorable(self) -> list[str]:
        return [v for v in self.versions if v in self.known and self.known[v] is None]

    def bisect(self, finding: FindingKey, witness: str) -> Bisected:
        """`witness`: a release known to show the finding."""
        w = self.versions.index(witness)
        # First release that shows it: the boundary in [oldest, witness].
        before, first, skipped_before = self._boundary(finding, -1, w, shown_below=False)
        # First later release that does not: the boundary in (witness, newest].
        last, after, skipped_after = self._boundary(finding, w, len(self.versions), shown_below=True)
        return Bisected(
            finding,
            since=self.versions[first],
            since_oldest=before == -1,
            fixed_in=self.versions[after] if after < len(self.versions) else None,
            skipped=tuple(self.versions[i] for i in (*skipped_before, *skipped_after)),
        )

    def _boundary(self, finding: FindingKey, lo: int, hi: int, shown_below: bool) -> tuple[int, int, list[int]]:
        """Narrow (lo, hi), where lo and hi differ in showing the finding, to adjacent scorable releases."""
        skipped: list[int] = []
        while True:
            candidates = [i for i in range(lo + 1, hi) if i not in skipped]
            if not candidates:
                return lo, hi, [i for i in sorted(skipped) if lo < i < hi]
            middle = (lo + hi) / 2
            index = min(candidates, key=lambda i: (abs(i - middle), i))
            shown = self.shows(index, finding)
            if shown is None:
                skipped.append(index)
            elif shown == shown_below:
                lo = index
            else:
                hi = index


def witnesses(history: Sequence[tuple[str, frozenset[FindingKey] | None]]) -> dict[FindingKey, str]:
    """Each finding of the scored releases given (oldest first), with the newest release that shows it."""
    found: dict[FindingKey, str] = {}
    for version, findings in history:
        for finding in findings or ():
            found[finding] = version
    return found
