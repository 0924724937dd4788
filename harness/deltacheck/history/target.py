"""What a history varies: one manifest adapter, and the one pin of its library that each release replaces.

The library's pin is `--package` when given, else the manifest's `history.package`; otherwise the
adapter's own direct pin whose name starts its adapter name (`langchain-anthropic` for
`langchain-anthropic`, `openai` for `openai-python-chat`; a Maven artifact by its artifactId, a Go
module by its path's last name), else its first direct pin (`pydantic-ai-slim` for
`pydantic-ai-anthropic`): the package the adapter is named after comes first in every bundled
requirements file and package.json.

A library whose API changed at a release is driven below that release by another adapter's driver
(the manifest's `history.older_releases`): Spring AI's releases before 2.0.0-M5 (where its OpenAI
chat model moved onto openai-java) are driven by its 1.x driver. Each release names which driver scored it.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from deltacheck.driver.manifests import Manifest, load_manifests
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.pins.read import READERS, Pin
from deltacheck.pins.versions import parse

# The adapter kinds a history can build an environment for, by manifest language, and the tools each needs.
SUPPORTED = {"python": "pypi", "node": "npm", "java": "maven", "go": "go"}
TOOLS = {"node": ("npm",), "java": ("java", "mvn"), "go": ("go",)}


class NoHistory(ValueError):
    """The adapter cannot be given a history (unknown, not a manifest adapter, a kind not supported); one line."""


@dataclass(frozen=True)
class Driving:
    """The driver a release is built with: an adapter's manifest and its pin of the library."""

    manifest: Manifest
    pin: Pin


@dataclass(frozen=True)
class Target:
    manifest: Manifest
    pin: Pin  # the pin each release replaces
    older: tuple[tuple[str, Driving], ...] = ()  # (below, driver): releases older than `below` use that driver

    @property
    def adapter(self) -> str:
        return self.manifest.name

    @property
    def ecosystem(self) -> str:
        return self.pin.ecosystem

    @property
    def package(self) -> str:
        return self.pin.package

    def driving(self, version: str) -> Driving:
        """The driver of the release: the nearest API boundary above it, else the adapter's own."""
        release = parse(self.ecosystem, version)
        below = [
            (bound, driving)
            for text, driving in self.older
            if release is not None and (bound := parse(self.ecosystem, text)) is not None and release < bound
        ]
        if not below:
            return Driving(self.manifest, self.pin)
        return min(below, key=lambda item: item[0])[1]


def pinned_file(manifest: Manifest) -> Path:
    if manifest.language == "python":
        return manifest.folder / str(manifest.requirements)
    if manifest.language == "java":
        return manifest.folder / str(manifest.pom)
    if manifest.language == "go":
        return manifest.build_root / "go.mod"
    return manifest.folder / "package.json"


def find_target(name: str, package: str | None = None, adapters_dir: Path = ADAPTERS_DIR) -> Target:
    manifests = {m.name: m for m in load_manifests(adapters_dir).adapters}
    manifest = manifests.get(name)
    if manifest is None:
        raise NoHistory(
            f"--adapter {name!r}: not a manifest adapter (history builds each release's environment from "
            "a manifest's pins; `deltacheck adapters` lists them)"
        )
    if manifest.language not in SUPPORTED:
        raise NoHistory(
            f"--adapter {name!r}: a {manifest.language} adapter; history builds {', '.join(SUPPORTED)} adapters only"
        )
    missing = [tool for tool in TOOLS.get(manifest.language, ()) if shutil.which(tool) is None]
    if missing:
        raise NoHistory(f"--adapter {name!r}: a {manifest.language} adapter, and {missing[0]} is not on PATH")
    pin = library_pin(manifest, package or manifest.history_package, "--package" if package else "history.package")
    older = []
    for below, other_name in manifest.older_releases:
        other = manifests.get(other_name)
        where = f"{manifest.path.name} history.older_releases of {name!r}"
        if other is None or other.language != manifest.language:
            raise NoHistory(f"{where}: {other_name!r} is not a {manifest.language} adapter")
        if parse(pin.ecosystem, below) is None:
            raise NoHistory(f"{where}: {below!r} is not a {pin.ecosystem} version")
        older.append((below, Driving(other, library_pin(other, pin.package, where))))
    return Target(manifest, pin, tuple(older))


def library_pin(manifest: Manifest, package: str | None, option: str = "--package") -> Pin:
    pins = [pin for pin in READERS[manifest.language](pinned_file(manifest)) if not pin.frozen]
    if not pins:
        raise NoHistory(f"--adapter {manifest.name!r}: {pinned_file(manifest)} pins no package at an exact version")
    if package is not None:
        chosen = [pin for pin in pins if normal_name(pin.package) == normal_name(package)]
        if not chosen:
            raise NoHistory(
                f"{option} {package!r}: not a direct pin of {manifest.name!r} ({', '.join(p.package for p in pins)})"
            )
        return chosen[0]
    name = normal_name(manifest.name.split("@")[0])
    named = [pin for pin in pins if name.startswith(short_name(pin) + "-") or name == short_name(pin)]
    return max(named, key=lambda p: len(short_name(p))) if named else pins[0]


def short_name(pin: Pin) -> str:
    """The name an adapter is named after: a Maven artifactId, a Go module path's last name (its /vN left out)."""
    if pin.ecosystem == "maven":
        return normal_name(pin.package.split(":")[-1])
    if pin.ecosystem == "go":
        return normal_name(re.sub(r"/v\d+$", "", pin.package).rsplit("/", 1)[-1])
    return normal_name(pin.package)


def normal_name(name: str) -> str:
    """PEP 503's normal form, and an npm scope read as part of the name (`@ai-sdk/openai` -> `ai-sdk-openai`)."""
    return re.sub(r"[-_./@]+", "-", name).strip("-").lower()
