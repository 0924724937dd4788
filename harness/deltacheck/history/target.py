"""What a history varies: one manifest adapter, and the one pin of its library that each release replaces.

The library's pin is `--package` when given; otherwise the adapter's own direct pin whose name starts
its adapter name (`langchain-anthropic` for `langchain-anthropic`, `openai` for `openai-python-chat`),
else its first direct pin (`pydantic-ai-slim` for `pydantic-ai-anthropic`): the package the adapter
is named after comes first in every bundled requirements file and package.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from deltacheck.driver.manifests import Manifest, load_manifests
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.pins.read import READERS, Pin

# The adapter kinds a history can build an environment for, by manifest language.
SUPPORTED = {"python": "pypi", "node": "npm"}


class NoHistory(ValueError):
    """The adapter cannot be given a history (unknown, not a manifest adapter, a kind not supported); one line."""


@dataclass(frozen=True)
class Target:
    manifest: Manifest
    pin: Pin  # the pin each release replaces

    @property
    def adapter(self) -> str:
        return self.manifest.name

    @property
    def ecosystem(self) -> str:
        return self.pin.ecosystem

    @property
    def package(self) -> str:
        return self.pin.package


def pinned_file(manifest: Manifest) -> Path:
    if manifest.language == "python":
        return manifest.folder / str(manifest.requirements)
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
    pins = [pin for pin in READERS[manifest.language](pinned_file(manifest)) if not pin.frozen]
    if not pins:
        raise NoHistory(f"--adapter {name!r}: {pinned_file(manifest)} pins no package at an exact version")
    if package is not None:
        wanted = normal_name(package)
        chosen = [pin for pin in pins if normal_name(pin.package) == wanted]
        if not chosen:
            raise NoHistory(
                f"--package {package!r}: not a direct pin of {name!r} ({', '.join(p.package for p in pins)})"
            )
        return Target(manifest, chosen[0])
    named = [
        pin
        for pin in pins
        if normal_name(name).startswith(normal_name(pin.package) + "-") or normal_name(name) == normal_name(pin.package)
    ]
    return Target(manifest, max(named, key=lambda p: len(p.package)) if named else pins[0])


def normal_name(name: str) -> str:
    """PEP 503's normal form, and an npm scope read as part of the name (`@ai-sdk/openai` -> `ai-sdk-openai`)."""
    return re.sub(r"[-_./@]+", "-", name).strip("-").lower()
