"""Adapter manifests: which out-of-process adapters exist, and how each one is run.

`adapters/<folder>/manifest.json`, and `adapters/{node,jvm,go}/<folder>/manifest.json`, each list the
adapters of one folder (schema: harness/deltacheck/driver/schemas/manifest.schema.json). Reading them never imports an
adapter. A bad manifest, or a bad entry in one, is a ManifestProblem naming the file and the field;
everything else still loads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jsonschema

from deltacheck.errors import ManifestProblem
from deltacheck.files import read_json_data
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.protocols import TRANSPORTS

MANIFEST_GLOBS = ("*/manifest.json", "node/*/manifest.json", "jvm/*/manifest.json", "go/*/manifest.json")
# Languages whose driver is built from sources shared by every folder of the language (adapters/jvm/,
# adapters/go/): the built artifact is started with the manifest's `args`.
BUILT_LANGUAGES = ("java", "go")
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "manifest.schema.json"


@dataclass(frozen=True)
class Manifest:
    """One adapter entry of one manifest file."""

    name: str
    language: str
    path: Path  # the manifest file; its folder is where relative paths start
    position: int = 0  # the entry's index in the file, for messages
    entry: str | None = None  # python
    requirements: str | None = None  # python
    command: tuple[str, ...] = ()  # node
    setup: tuple[str, ...] = ()  # node
    args: tuple[str, ...] = ()  # java, go: the driver's arguments
    pom: str | None = None  # java: the Maven build file in the folder (pom.xml, or pom-<tag>.xml for a second pin)
    scope: str | None = None  # what the implementation promises to read (CONTRACT.md 4.4); None: not declared
    scope_note: str = ""  # why, in one sentence
    transport: str | None = None  # another wire the adapter reads its protocol on ("bedrock-invoke"); None: its own
    history_package: str | None = None  # `deltacheck history`: the pin each release replaces; None: found by name
    # `deltacheck history`: (version, adapter) — releases older than the version are driven by that adapter's driver
    older_releases: tuple[tuple[str, str], ...] = ()

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def env_name(self) -> str:
        """One environment per (folder, pinned file): `openai`, `openai-2`, `node-ai-sdk`, `jvm-spring-ai-2.0.0`."""
        prefix = {"node": "node-", "java": "jvm-", "go": "go-"}.get(self.language, "")
        base = prefix + self.folder.name
        if self.requirements and self.requirements != "requirements.txt":
            base += "-" + self.requirements.removeprefix("requirements-").removesuffix(".txt")
        if self.pom and self.pom != "pom.xml":
            base += "-" + self.pom.removeprefix("pom-").removesuffix(".xml")
        return base

    @property
    def build_root(self) -> Path:
        """java, go: the folder of the language's shared build (adapters/jvm, adapters/go)."""
        return self.folder.parent


@dataclass(frozen=True)
class Manifests:
    adapters: tuple[Manifest, ...]
    problems: tuple[ManifestProblem, ...]


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def load_manifests(adapters_dir: Path = ADAPTERS_DIR) -> Manifests:
    adapters: list[Manifest] = []
    problems: list[ManifestProblem] = []
    seen: dict[str, str] = {}
    for path in sorted(p for pattern in MANIFEST_GLOBS for p in adapters_dir.glob(pattern)):
        label = relative_label(path, adapters_dir)
        for item in _read(path, label, problems):
            if item.name in seen:
                problems.append(
                    ManifestProblem(
                        label,
                        f"/{item.position}/name",
                        f"adapter name {item.name!r} is also declared in {seen[item.name]}",
                    )
                )
                continue
            seen[item.name] = label
            adapters.append(item)
    return Manifests(tuple(adapters), tuple(problems))


def _read(path: Path, label: str, problems: list[ManifestProblem]) -> list[Manifest]:
    data, unreadable = read_json_data(path)
    if unreadable:
        problems.append(ManifestProblem(label, "/", unreadable))
        return []
    bad_entries: set[int | str] = set()  # positions in the list (a path into JSON may also hold keys)
    for error in _validator().iter_errors(data):
        where = list(error.absolute_path)
        problems.append(ManifestProblem(label, "".join(f"/{p}" for p in where) or "/", error.message))
        if where:
            bad_entries.add(where[0])
        else:
            return []  # the file as a whole is wrong (not a list, empty)
    out = []
    for position, entry in enumerate(data):
        if position in bad_entries:
            continue
        item = Manifest(
            name=entry["name"],
            language=entry["language"],
            path=path,
            position=position,
            entry=entry.get("entry"),
            requirements=entry.get("requirements"),
            command=tuple(entry.get("command", ())),
            setup=tuple(entry.get("setup", ())),
            args=tuple(entry.get("args", ())),
            pom=entry.get("pom", "pom.xml") if entry["language"] == "java" else None,
            scope=entry.get("scope"),
            scope_note=entry.get("scope_note", ""),
            transport=entry.get("transport"),
            history_package=entry.get("history", {}).get("package"),
            older_releases=tuple(
                (older["below"], older["adapter"]) for older in entry.get("history", {}).get("older_releases", ())
            ),
        )
        if item.requirements and not (item.folder / item.requirements).is_file():
            problems.append(
                ManifestProblem(
                    label, f"/{position}/requirements", f"{item.requirements!r} does not exist in {item.folder}"
                )
            )
            continue
        if item.transport is not None and item.transport not in TRANSPORTS:
            known = ", ".join(TRANSPORTS) or "none"
            problems.append(
                ManifestProblem(
                    label, f"/{position}/transport", f"unknown transport {item.transport!r} (known: {known})"
                )
            )
            continue
        if item.pom and not (item.folder / item.pom).is_file():
            problems.append(ManifestProblem(label, f"/{position}/pom", f"{item.pom!r} does not exist in {item.folder}"))
            continue
        out.append(item)
    return out


def relative_label(path: Path, adapters_dir: Path = ADAPTERS_DIR) -> str:
    """The manifest path as messages show it: relative to the repository."""
    try:
        return str(path.relative_to(adapters_dir.parent))
    except ValueError:
        return str(path)
