"""The bundled gateways: `adapters/gateways/<folder>/gateway.json`, each pinned in an environment of its own.

A definition names the gateway, how its environment is built (a Python requirements file, or a
Node `setup` command with a package-lock.json), the command that starts it, the configuration
files it is given (templates with the placeholders of deltacheck/gateways/proxy.py), and its routes: one per
translation pair it is scored on, each its own row in REPORT.md. Environments are built by
deltacheck/driver/envs.py exactly as the adapters' are, under the folder's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deltacheck.driver.envs import ENVS_DIR, ensure_env, env_dir, env_state, node_folder
from deltacheck.driver.manifests import Manifest
from deltacheck.errors import EnvironmentFailed
from deltacheck.gateways.proxy import GatewaySpec
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.protocols import PROTOCOLS, protocol

GATEWAYS_DIR = ADAPTERS_DIR / "gateways"
REQUIRED = ("name", "library", "version", "language", "command", "routes")


class BadGateway(Exception):
    """A gateway.json that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class BundledGateway:
    name: str
    folder: Path
    definition: dict[str, Any]

    @property
    def manifest(self) -> Manifest:
        """The environment description deltacheck/driver/envs.py builds from."""
        d = self.definition
        return Manifest(
            name=self.name,
            language=d["language"],
            path=self.folder / "gateway.json",
            requirements=d.get("requirements"),
            setup=tuple(d.get("setup", ())),
        )

    @property
    def startup_timeout(self) -> float:
        return float(self.definition.get("startup_timeout", 60))

    def route_names(self) -> list[str]:
        return [route_name(self.name, r["upstream"], r["downstream"]) for r in self.definition["routes"]]

    def env_ready(self, envs_dir: Path = ENVS_DIR) -> bool:
        return env_state(self.manifest, envs_dir) == "ready"

    def ensure_env(self, envs_dir: Path = ENVS_DIR, log: Callable[[str], None] | None = None) -> bool:
        if log:
            return ensure_env(self.manifest, envs_dir=envs_dir, log=log)
        return ensure_env(self.manifest, envs_dir=envs_dir)  # ensure_env's own log

    def specs(self, envs_dir: Path = ENVS_DIR) -> list[GatewaySpec]:
        d = self.definition
        manifest = self.manifest
        where = node_folder(manifest, envs_dir) if manifest.language == "node" else env_dir(manifest, envs_dir)
        files = {
            name: (self.folder / source).read_text(encoding="utf-8") for name, source in d.get("files", {}).items()
        }
        return [
            GatewaySpec(
                name=route_name(self.name, r["upstream"], r["downstream"]),
                command=tuple(d["command"]),
                upstream=r["upstream"],
                downstream=r["downstream"],
                model=r.get("model", "deltacheck"),
                path=r.get("path"),
                ready_path=d.get("ready_path"),
                api_key=d.get("api_key", "sk-deltacheck"),
                env=dict(d.get("env", {})),
                files=files,
                env_dir=str(where),
                library=d["library"],
                version=d["version"],
                code_path=r.get("code_path", ""),
                **{key: d[key] for key in ("scope", "scope_note") if key in d},
            )
            for r in d["routes"]
        ]


def route_name(gateway: str, upstream: str, downstream: str) -> str:
    """`<gateway>-<upstream>-to-<downstream>`, each protocol by its short name: litellm-proxy-chat-to-responses."""
    return f"{gateway}-{protocol(upstream).short}-to-{protocol(downstream).short}"


def load_gateways(gateways_dir: Path = GATEWAYS_DIR) -> tuple[list[BundledGateway], list[str]]:
    """Every bundled gateway, and one message per definition that cannot be used."""
    gateways, problems = [], []
    for path in sorted(gateways_dir.glob("*/gateway.json")):
        try:
            gateways.append(_read(path))
        except BadGateway as exc:
            problems.append(str(exc))
    return gateways, problems


def _read(path: Path) -> BundledGateway:
    label = f"{path.parent.parent.name}/{path.parent.name}/gateway.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadGateway(f"{label}: not readable JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadGateway(f"{label}: not a JSON object")
    for key in REQUIRED:
        if key not in data:
            raise BadGateway(f"{label}: /{key}: missing")
    if data["language"] not in ("python", "node"):
        raise BadGateway(f"{label}: /language: {data['language']!r} is neither python nor node")
    if data["language"] == "python" and not (path.parent / str(data.get("requirements", ""))).is_file():
        raise BadGateway(f"{label}: /requirements: no such file beside it")
    if (
        not isinstance(data["command"], list)
        or not data["command"]
        or not all(isinstance(c, str) for c in data["command"])
    ):
        raise BadGateway(f"{label}: /command: a non-empty list of strings")
    for name, source in data.get("files", {}).items():
        if not (path.parent / source).is_file():
            raise BadGateway(f"{label}: /files/{name}: {source!r} does not exist beside it")
    if not isinstance(data["routes"], list) or not data["routes"]:
        raise BadGateway(f"{label}: /routes: a non-empty list")
    for position, route in enumerate(data["routes"]):
        for key in ("upstream", "downstream"):
            if not isinstance(route, dict) or route.get(key) not in PROTOCOLS:
                raise BadGateway(f"{label}: /routes/{position}/{key}: one of {', '.join(PROTOCOLS)}")
    return BundledGateway(data["name"], path.parent, data)


def find_route(
    gateways: list[BundledGateway], name: str, upstream: str | None, downstream: str | None
) -> tuple[BundledGateway, GatewaySpec]:
    """The bundled route named `name` (a gateway name narrowed by --upstream/--downstream, or a route name)."""
    for gateway in gateways:
        specs = gateway.specs()
        exact = [s for s in specs if s.name == name]
        if exact:
            return gateway, exact[0]
        if gateway.name == name:
            chosen = [
                s
                for s in specs
                if (upstream is None or s.upstream == upstream) and (downstream is None or s.downstream == downstream)
            ]
            if len(chosen) == 1:
                return gateway, chosen[0]
            raise LookupError(
                f"gateway {name!r} has the routes {', '.join(s.name for s in specs)}; "
                + (
                    "name one, or narrow it with --upstream/--downstream"
                    if chosen
                    else "none of them matches --upstream/--downstream"
                )
            )
    known = [n for g in gateways for n in [g.name, *g.route_names()]]
    raise LookupError(f"no bundled gateway {name!r} (known: {', '.join(known) or 'none'})")


__all__ = ["BadGateway", "BundledGateway", "EnvironmentFailed", "find_route", "load_gateways", "route_name"]
