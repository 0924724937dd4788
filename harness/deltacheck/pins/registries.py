"""Every version each package registry serves for a package, asked through its public HTTP API.

PyPI's JSON API (`/pypi/<name>/json`: releases whose files are all yanked, or that have none, are
not served for installing and are left out), the npm registry's abbreviated metadata (deprecated
versions left out), Maven Central's `maven-metadata.xml`, and the Go module proxy (`@v/list`, the
tagged versions; `@latest` when a module has none). A Go module's next major version is another
module path (`…/v4`), so that path is asked too and its versions are returned under its own path.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from typing import Any

TIMEOUT = 20.0
USER_AGENT = "deltacheck envs --outdated"


class RegistryUnavailable(Exception):
    """The registry could not say which versions it serves; the message names the address and why."""


@dataclass(frozen=True)
class Registries:
    """Base addresses; tests point them at a local server."""

    pypi: str = "https://pypi.org/pypi"
    npm: str = "https://registry.npmjs.org"
    maven: str = "https://repo.maven.apache.org/maven2"
    go: str = "https://proxy.golang.org"


PUBLIC = Registries()


@dataclass(frozen=True)
class Served:
    """What a registry serves for one package: its versions, and for a Go module the versions of its next major path."""

    versions: tuple[str, ...]
    next_major: tuple[str, tuple[str, ...]] | None = None  # (module path, versions)


def served(ecosystem: str, package: str, registries: Registries = PUBLIC) -> Served:
    """Every version the registry serves for the package; RegistryUnavailable when it cannot say."""
    if ecosystem == "pypi":
        return Served(_pypi(registries.pypi, package))
    if ecosystem == "npm":
        return Served(_npm(registries.npm, package))
    if ecosystem == "maven":
        return Served(_maven(registries.maven, package))
    if ecosystem == "go":
        return _go(registries.go, package)
    raise ValueError(f"unknown ecosystem {ecosystem!r}")


def _pypi(base: str, name: str) -> tuple[str, ...]:
    data = _json(f"{base}/{urllib.parse.quote(name)}/json")
    releases: dict[str, list[dict[str, Any]]] = data.get("releases") or {}
    return tuple(v for v, files in releases.items() if files and not all(f.get("yanked") for f in files))


def _npm(base: str, name: str) -> tuple[str, ...]:
    # The abbreviated document (what npm install reads): versions without their readmes.
    data = _json(f"{base}/{urllib.parse.quote(name, safe='@')}", accept="application/vnd.npm.install-v1+json")
    versions: dict[str, dict[str, Any]] = data.get("versions") or {}
    return tuple(v for v, meta in versions.items() if not (isinstance(meta, dict) and meta.get("deprecated")))


def _maven(base: str, coordinates: str) -> tuple[str, ...]:
    group, _, artifact = coordinates.partition(":")
    url = f"{base}/{group.replace('.', '/')}/{artifact}/maven-metadata.xml"
    try:
        root = ElementTree.fromstring(_get(url))
    except ElementTree.ParseError as exc:
        raise RegistryUnavailable(f"{url}: not XML ({exc})") from None
    return tuple((v.text or "").strip() for v in root.iterfind("versioning/versions/version") if v.text)


def _go(base: str, module: str) -> Served:
    versions = _go_versions(base, module)
    match = re.fullmatch(r"(.+)/v(\d+)", module)
    successor = f"{match.group(1)}/v{int(match.group(2)) + 1}" if match else f"{module}/v2"
    try:
        later = _go_versions(base, successor)
    except RegistryUnavailable:
        later = ()  # the proxy answers 404 or 410 for a path that was never a module: no next major
    return Served(versions, (successor, later) if later else None)


def _go_versions(base: str, module: str) -> tuple[str, ...]:
    escaped = _go_escape(module)
    listed = tuple(line.strip() for line in _get(f"{base}/{escaped}/@v/list").decode().splitlines() if line.strip())
    if listed:
        return listed
    latest = _json(f"{base}/{escaped}/@latest").get("Version")
    return (latest,) if isinstance(latest, str) else ()


def _go_escape(module: str) -> str:
    """The proxy protocol's case encoding: each capital letter becomes `!` and its lower case."""
    return re.sub(r"[A-Z]", lambda m: "!" + m.group(0).lower(), module)


def _json(url: str, accept: str = "application/json") -> dict[str, Any]:
    try:
        data = json.loads(_get(url, accept))
    except ValueError as exc:
        raise RegistryUnavailable(f"{url}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise RegistryUnavailable(f"{url}: not a JSON object")
    return data


def _get(url: str, accept: str = "*/*") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise RegistryUnavailable(f"{url} answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RegistryUnavailable(f"{url} could not be reached: {reason}") from None
