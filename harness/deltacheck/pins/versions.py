"""Version numbers as each registry's own tools order them: which is newer, which is a pre-release, the major.

PyPI: PEP 440 (through `packaging`, as pip reads it). npm and Go modules: semantic versioning (a Go
pseudo-version is a pre-release of the next patch, so it is never "newer"). Maven: numbers first,
then qualifiers, where alpha, beta, milestone (M1), release candidates (RC1, CR1), snapshots, EAP
and preview builds are pre-releases and the rest (Final, GA, jre) name a release.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

ECOSYSTEMS = ("pypi", "npm", "maven", "go")

SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
MAVEN_TOKENS = re.compile(r"\d+|[a-z]+")
MAVEN_PRE_RELEASE = {
    "alpha",
    "a",
    "beta",
    "b",
    "milestone",
    "m",
    "rc",
    "cr",
    "snapshot",
    "eap",
    "preview",
    "pre",
    "dev",
    "ea",
}


@dataclass(frozen=True, order=True)
class Release:
    """A parsed version; instances of one ecosystem compare as that ecosystem's tools compare them."""

    key: tuple
    major: int
    pre_release: bool


def parse(ecosystem: str, text: str) -> Release | None:
    """None when the text is not a version of the ecosystem's syntax (such a version is never compared)."""
    if ecosystem == "pypi":
        return _pep440(text)
    if ecosystem in ("npm", "go"):
        return _semver(text)
    if ecosystem == "maven":
        return _maven(text)
    raise ValueError(f"unknown ecosystem {ecosystem!r}")


def _pep440(text: str) -> Release | None:
    try:
        version = Version(text)
    except InvalidVersion:
        return None
    return Release((version,), version.release[0], version.is_prerelease)


def _semver(text: str) -> Release | None:
    match = SEMVER.match(text)
    if not match:
        return None
    major, minor, patch, pre = match.groups()
    numbers = (int(major), int(minor), int(patch))
    if pre is None:
        return Release((numbers, 1, ()), numbers[0], False)
    # Pre-release identifiers: numbers below words, numbers by value, words by text (semver 11.4).
    identifiers = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return Release((numbers, 0, identifiers), numbers[0], True)


def _maven(text: str) -> Release | None:
    tokens = MAVEN_TOKENS.findall(text.lower())
    if not tokens or not tokens[0].isdigit():
        return None
    numbers = []
    for token in tokens:
        if not token.isdigit():
            break
        numbers.append(int(token))
    qualifiers = tokens[len(numbers) :]
    pre_release = any(token in MAVEN_PRE_RELEASE for token in qualifiers)
    while len(numbers) > 1 and numbers[-1] == 0:  # 1.0 and 1.0.0 are the same version
        numbers.pop()
    rest = tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in qualifiers)
    return Release((tuple(numbers), 0 if pre_release else 1, rest), numbers[0], pre_release)
