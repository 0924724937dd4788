"""The pins of the bundled adapters and gateways: which file pins which package at which version.

A pinned file is what an environment is built from: a Python requirements file, a Node package.json,
a Maven pom (each driver's, and the parent every JVM driver shares), the Go drivers' go.mod. A pin is
`frozen` when the file pins it only so that every machine builds the same environment: the section
of a requirements file below the adapter's own pins (`deltacheck envs --relock` writes it), and
go.mod's `// indirect` requirements. A file whose every adapter is a second pinned version
(`<adapter>@<tag>`, such as `openai-python-chat@2`) keeps that version on purpose: each package it
pins at another version than the first pin of the same adapters has is `kept`.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from deltacheck.driver.envs import direct_requirements
from deltacheck.driver.manifests import Manifest, load_manifests
from deltacheck.gateways.bundled import load_gateways
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.pins.versions import parse

REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*==\s*([^\s;#]+)")
GO_REQUIRE = re.compile(r"^(\S+)\s+(v\S+)(\s*//\s*indirect)?")
POM = "{http://maven.apache.org/POM/4.0.0}"
PROPERTY = re.compile(r"^\$\{([^}]+)\}$")
# The build file every driver of a language shares, in its build root (adapters/jvm, adapters/go).
SHARED_BUILD_FILES = {"java": "pom.xml", "go": "go.mod"}


@dataclass(frozen=True)
class Pin:
    """One package pinned at one version by one file."""

    file: Path
    ecosystem: str  # pypi, npm, maven, go: the registry that serves the package
    package: str  # as the registry names it; Maven: groupId:artifactId
    version: str
    frozen: bool = False
    prop: str | None = None  # Maven: the property that holds the version (`ktor.version`)
    kept_beside: tuple[str, ...] = ()  # a second pinned version: the version(s) of the adapters' first pin

    @property
    def kept(self) -> bool:
        """A second pinned version kept on purpose: compared with the newest release of its own major."""
        return bool(self.kept_beside)

    @property
    def label(self) -> str:
        """The package as the file names it: a Maven property with the artifact it versions."""
        return f"{self.prop} ({self.package})" if self.prop else self.package


# -- reading one file --------------------------------------------------------------------------


def requirements_pins(path: Path) -> list[Pin]:
    """`name==version` lines; those below the adapter's own pins are frozen."""
    text = path.read_text(encoding="utf-8")
    direct = {_python_name(line) for line in direct_requirements(text) if REQUIREMENT.match(line)}
    pins = []
    for line in text.splitlines():
        match = REQUIREMENT.match(line.strip())
        if match:
            name = _python_name(line)
            pins.append(Pin(path, "pypi", name, match.group(3), frozen=name not in direct))
    return pins


def package_json_pins(path: Path) -> list[Pin]:
    """Exact versions in dependencies, devDependencies and optionalDependencies (`npm:name@x` aliases too)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    pins = []
    for section in ("dependencies", "devDependencies", "optionalDependencies"):
        for name, spec in (data.get(section) or {}).items():
            if isinstance(spec, str) and spec.startswith("npm:"):
                name, _, spec = spec.removeprefix("npm:").rpartition("@")
            if isinstance(spec, str) and parse("npm", spec):
                pins.append(Pin(path, "npm", name, spec))
    return pins


def pom_pins(path: Path) -> list[Pin]:
    """Versions of dependencies (managed ones and imported BOMs too) and plugins, and the properties they use."""
    root = ElementTree.parse(path).getroot()
    ns = POM if root.tag.startswith(POM) else ""
    properties = {child.tag.removeprefix(ns): (child.text or "").strip() for child in root.findall(f"{ns}properties/*")}
    pins: list[Pin] = []
    seen_properties: set[str] = set()
    for element in root.iter():
        tag = element.tag.removeprefix(ns) if isinstance(element.tag, str) else ""
        if tag not in ("dependency", "plugin"):
            continue
        group = _text(element, f"{ns}groupId") or ("org.apache.maven.plugins" if tag == "plugin" else "")
        artifact, version = _text(element, f"{ns}artifactId"), _text(element, f"{ns}version")
        if not (group and artifact and version):
            continue
        package = f"{group}:{artifact}"
        reference = PROPERTY.match(version)
        if reference is None:
            pins.append(Pin(path, "maven", package, version))
        elif reference.group(1) in properties and reference.group(1) not in seen_properties:
            seen_properties.add(reference.group(1))
            pins.append(Pin(path, "maven", package, properties[reference.group(1)], prop=reference.group(1)))
    return pins


def go_mod_pins(path: Path) -> list[Pin]:
    """`require` lines, in a block or alone; `// indirect` ones are frozen."""
    pins, in_block = [], False
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("require ("):
            in_block = True
            continue
        if in_block and line == ")":
            in_block = False
            continue
        if line.startswith("require "):
            line = line.removeprefix("require ").strip()
        elif not in_block:
            continue
        match = GO_REQUIRE.match(line)
        if match:
            pins.append(Pin(path, "go", match.group(1), match.group(2), frozen=bool(match.group(3))))
    return pins


READERS = {
    "python": requirements_pins,
    "node": package_json_pins,
    "java": pom_pins,
    "go": go_mod_pins,
}


# -- every pinned file of the bundled adapters --------------------------------------------------


def pinned_files(manifests: Iterable[Manifest]) -> dict[Path, set[str]]:
    """Each file an environment is built from, with the names of the adapters built from it."""
    files: dict[Path, set[str]] = defaultdict(set)
    for manifest in manifests:
        for path in _files_of(manifest):
            files[path].add(manifest.name)
    return dict(files)


def _files_of(manifest: Manifest) -> list[Path]:
    if manifest.language == "python":
        return [manifest.folder / str(manifest.requirements)]
    if manifest.language == "node":
        return [manifest.folder / "package.json"] if (manifest.folder / "package.json").is_file() else []
    shared = manifest.build_root / SHARED_BUILD_FILES[manifest.language]
    own = [manifest.folder / str(manifest.pom)] if manifest.language == "java" else []
    return [path for path in (shared, *own) if path.is_file()]


def bundled_manifests(adapters_dir: Path = ADAPTERS_DIR, names: Iterable[str] = ()) -> list[Manifest]:
    """The manifest adapters and the bundled gateways (their environments are built the same way); `names` narrows."""
    wanted = set(names)
    gateways, _ = load_gateways(adapters_dir / "gateways")
    every = [*load_manifests(adapters_dir).adapters, *(gateway.manifest for gateway in gateways)]
    return [m for m in every if not wanted or m.name in wanted]


def read_pins(files: dict[Path, set[str]], language_of: dict[Path, str]) -> list[Pin]:
    """Every pin of every file, in file order, with kept second versions marked."""
    pins = [pin for path in sorted(files) for pin in READERS[language_of[path]](path)]
    return mark_kept(pins, files)


def mark_kept(pins: list[Pin], files: dict[Path, set[str]]) -> list[Pin]:
    """Mark the packages a second pinned version keeps at another version than its adapters' first pin."""
    first_pins: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # adapter -> package -> versions
    for pin in pins:
        for name in files[pin.file]:
            if "@" not in name:
                first_pins[name][pin.package].add(pin.version)
    marked = []
    for pin in pins:
        users = files[pin.file]
        if users and all("@" in name for name in users):
            firsts = set().union(*(first_pins[name.partition("@")[0]].get(pin.package, set()) for name in users))
            if firsts and pin.version not in firsts:
                pin = replace(pin, kept_beside=tuple(sorted(firsts)))
        marked.append(pin)
    return marked


def bundled_pins(adapters_dir: Path = ADAPTERS_DIR, names: Iterable[str] = ()) -> list[Pin]:
    """Every pin the bundled adapters' and gateways' environments are built from (`names` narrows)."""
    manifests = bundled_manifests(adapters_dir)
    files = pinned_files(manifests)
    language_of = {path: m.language for m in manifests for path in _files_of(m)}
    pins = read_pins(files, language_of)
    if names:
        chosen = set().union(*(_files_of(m) for m in manifests if m.name in set(names)))
        pins = [pin for pin in pins if pin.file in chosen]
    return pins


# -- helpers -------------------------------------------------------------------------------------


def _python_name(requirement: str) -> str:
    """The project name as PyPI normalises it (PEP 503)."""
    name = requirement.strip().split("==", 1)[0].split("[", 1)[0].strip()
    return re.sub(r"[-_.]+", "-", name).lower()


def _text(element: ElementTree.Element, tag: str) -> str:
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""
