"""Which pins are behind the newest release their registry serves.

Pre-releases are never "newer". A kept second version (`Pin.kept`) is compared with the newest
release of its own major, and the line says so. A registry that cannot answer is one line naming
the package and why, and every other pin is still checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from deltacheck.pins.read import Pin
from deltacheck.pins.registries import PUBLIC, Registries, RegistryUnavailable, Served, served
from deltacheck.pins.versions import Release, parse

# The registries answer in parallel; a few at a time is polite and enough.
WORKERS = 8


@dataclass(frozen=True)
class Behind:
    pin: Pin
    newest: str
    note: str = ""  # why the newest was chosen among fewer releases, or where it lives (a Go module's next major)


@dataclass(frozen=True)
class Unchecked:
    ecosystem: str
    package: str
    reason: str


@dataclass(frozen=True)
class Outcome:
    checked: int
    behind: list[Behind]
    unchecked: list[Unchecked]


def outdated(
    pins: Iterable[Pin],
    registries: Registries = PUBLIC,
    ask: Callable[[str, str, Registries], Served] = served,
) -> Outcome:
    """Ask each registry once per package, then compare every pin with what it serves."""
    pins = list(pins)
    packages = sorted({(pin.ecosystem, pin.package) for pin in pins})

    def answer(key: tuple[str, str]) -> Served | RegistryUnavailable:
        try:
            return ask(key[0], key[1], registries)
        except RegistryUnavailable as exc:
            return exc

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        answers = dict(zip(packages, pool.map(answer, packages)))
    behind, unchecked, checked = [], [], 0
    for key, reply in answers.items():
        if isinstance(reply, RegistryUnavailable):
            unchecked.append(Unchecked(key[0], key[1], str(reply)))
    for pin in pins:
        reply = answers[(pin.ecosystem, pin.package)]
        if isinstance(reply, RegistryUnavailable):
            continue
        checked += 1
        found = compare(pin, reply)
        if found:
            behind.append(found)
    return Outcome(checked, behind, unchecked)


def compare(pin: Pin, reply: Served) -> Behind | None:
    """The newest release the pin is behind, if any."""
    pinned = parse(pin.ecosystem, pin.version)
    if pinned is None:
        return None  # not a version of the ecosystem's syntax: nothing to order it with
    if reply.next_major and not pin.kept:
        path, versions = reply.next_major
        later = newest(pin.ecosystem, versions)
        if later is not None:
            return Behind(pin, later[0], f"a new major is another module path: {path}")
    found = newest(pin.ecosystem, reply.versions, pinned.major if pin.kept else None)
    if found is None or found[1] <= pinned:
        return None
    note = ""
    if pin.kept:
        firsts = [parse(pin.ecosystem, version) for version in pin.kept_beside]
        kind = "previous major" if any(f and f.major > pinned.major for f in firsts) else "second pin"
        note = f"{kind} kept beside {' and '.join(pin.kept_beside)}: newest of major {pinned.major}"
    return Behind(pin, found[0], note)


def newest(ecosystem: str, versions: Iterable[str], major: int | None = None) -> tuple[str, Release] | None:
    """The newest release (no pre-release) among the versions, within one major if given."""
    releases = []
    for text in versions:
        release = parse(ecosystem, text)
        if release is not None and not release.pre_release and (major is None or release.major == major):
            releases.append((text, release))
    return max(releases, key=lambda item: item[1], default=None)


def lines(outcome: Outcome, root: Path) -> list[str]:
    """One line per pin behind (file, package, pinned, newest, and why that newest), one per package unchecked."""
    rows = [
        (_relative(b.pin.file, root), b.pin.label, b.pin.version, b.newest, f"({b.note})" if b.note else "")
        for b in outcome.behind
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(4)]
    out = [("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4]).rstrip() for row in rows]
    out += [f"not checked: {u.package} ({u.ecosystem}): {u.reason}" for u in outcome.unchecked]
    return out


def summary(outcome: Outcome) -> str:
    text = f"{len(outcome.behind)} of {outcome.checked} pins behind the newest release"
    if outcome.unchecked:
        text += f"; {len(outcome.unchecked)} package{'s' if len(outcome.unchecked) != 1 else ''} not checked"
    return text


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
