"""Which releases a history covers: `--versions SPEC`, resolved against what the registry serves.

SPEC is one of: a comma list of exact versions (`1.40.0,2.0.1`), a range of comma-joined clauses
(`>=1.40,<4`), `all`, or `latest:N`. Versions are ordered as the registry's own tools order them
(deltacheck.pins.versions: PEP 440 for PyPI, semver for npm and Go, Maven's ordering for Maven).
Ranges, `all` and `latest:N` leave pre-releases out; a list takes exactly what it names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from deltacheck.pins.versions import Release, parse

OPERATORS = ("==", "!=", ">=", "<=", ">", "<")
CLAUSE = re.compile(r"^\s*(==|!=|>=|<=|>|<)\s*(\S+)\s*$")
LATEST = re.compile(r"^latest:(\d+)$")


class BadVersionSpec(ValueError):
    """A SPEC that cannot be read, or that names versions the registry does not serve; one line."""


@dataclass(frozen=True)
class Clause:
    operator: str
    bound: Release
    text: str

    def admits(self, release: Release) -> bool:
        if self.operator == "==":
            return release == self.bound
        if self.operator == "!=":
            return release != self.bound
        if self.operator == ">=":
            return release >= self.bound
        if self.operator == "<=":
            return release <= self.bound
        if self.operator == ">":
            return release > self.bound
        return release < self.bound


@dataclass(frozen=True)
class VersionSpec:
    kind: str  # list, range, all, latest
    versions: tuple[str, ...] = ()  # list
    clauses: tuple[Clause, ...] = ()  # range
    count: int = 0  # latest


def ordered(ecosystem: str, versions: Iterable[str]) -> list[str]:
    """The versions the ecosystem can read, oldest first (duplicates and unreadable ones left out)."""
    parsed = {text: parse(ecosystem, text) for text in set(versions)}
    return [
        text for text, _ in sorted(((t, r) for t, r in parsed.items() if r is not None), key=lambda i: (i[1], i[0]))
    ]


def parse_spec(ecosystem: str, text: str) -> VersionSpec:
    """Read SPEC for one ecosystem; BadVersionSpec names what is wrong."""
    spec = text.strip()
    if not spec:
        raise BadVersionSpec("--versions is empty: give a list (1.40.0,2.0.1), a range (>=1.40,<4), all or latest:N")
    if spec == "all":
        return VersionSpec("all")
    if match := LATEST.match(spec):
        count = int(match.group(1))
        if count < 1:
            raise BadVersionSpec(f"--versions {spec}: N must be at least 1")
        return VersionSpec("latest", count=count)
    items = [item.strip() for item in spec.split(",")]
    if any(not item for item in items):
        raise BadVersionSpec(f"--versions {spec}: an empty item between commas")
    if any(item.startswith(("=", "!", "<", ">")) for item in items):
        return VersionSpec("range", clauses=tuple(_clause(ecosystem, item, spec) for item in items))
    for item in items:
        if parse(ecosystem, item) is None:
            raise BadVersionSpec(f"--versions {spec}: {item!r} is not a {ecosystem} version")
    return VersionSpec("list", versions=tuple(dict.fromkeys(items)))


def _clause(ecosystem: str, item: str, spec: str) -> Clause:
    match = CLAUSE.match(item)
    if not match:
        raise BadVersionSpec(
            f"--versions {spec}: {item!r} is not a clause (an operator {', '.join(OPERATORS)} and a version) "
            "and a range cannot mix clauses with plain versions"
        )
    operator, bound_text = match.groups()
    bound = parse(ecosystem, _padded(ecosystem, bound_text))
    if bound is None:
        raise BadVersionSpec(f"--versions {spec}: {bound_text!r} is not a {ecosystem} version")
    return Clause(operator, bound, bound_text)


def _padded(ecosystem: str, text: str) -> str:
    """A semver bound may leave out its minor and patch (`<4` reads as `<4.0.0`)."""
    if ecosystem in ("npm", "go") and re.fullmatch(r"v?\d+(\.\d+)?", text):
        return text + ".0" * (2 - text.count("."))
    return text


def resolve(ecosystem: str, spec: VersionSpec, served: Iterable[str], package: str = "the package") -> list[str]:
    """The releases the spec names among those served, oldest first; BadVersionSpec when there are none."""
    served = list(served)
    if spec.kind == "list":
        missing = [v for v in spec.versions if v not in set(served)]
        if missing:
            raise BadVersionSpec(
                f"--versions: {', '.join(missing)} not served by {ecosystem} for {package} "
                f"(it serves {len(served)} version(s))"
            )
        return ordered(ecosystem, spec.versions)
    releases = [v for v in ordered(ecosystem, served) if not _pre_release(ecosystem, v)]
    if spec.kind == "latest":
        chosen = releases[-spec.count :]
    elif spec.kind == "range":
        chosen = [v for v in releases if all(c.admits(_release(ecosystem, v)) for c in spec.clauses)]
    else:
        chosen = releases
    if not chosen:
        raise BadVersionSpec(f"--versions: no release of {package} on {ecosystem} matches ({len(served)} served)")
    return chosen


def _release(ecosystem: str, text: str) -> Release:
    release = parse(ecosystem, text)
    assert release is not None  # `ordered` kept only readable versions
    return release


def _pre_release(ecosystem: str, text: str) -> bool:
    return _release(ecosystem, text).pre_release
