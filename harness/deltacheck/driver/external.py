"""Manifest adapters as the registry sees them: described from the manifest, started on demand.

An ExternalAdapter is a factory, like an in-process Adapter class: calling it builds the adapter's
environment if needed and returns a SubprocessAdapter. The main process never imports the
third-party library; only the driver, in its own environment, does.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from deltacheck.driver import descriptions
from deltacheck.driver.envs import ENVS_DIR, ensure_env, env_state, launch, missing_tool
from deltacheck.driver.manifests import ADAPTERS_DIR, Manifest, load_manifests, relative_label
from deltacheck.driver.subprocess_adapter import Hello, SubprocessAdapter
from deltacheck.errors import DriverFailed, ManifestProblem

PROBE_TIMEOUT = 60.0

# One driver per manifest adapter per harness process: starting one costs an import of the library,
# and pytest's conformance tests ask for the adapter once per fixture.
_running: dict[tuple[str, str], SubprocessAdapter] = {}

LANGUAGE_LABELS = {"java": "JVM", "go": "Go", "node": "Node", "python": "Python"}
# Each toolchain notice is said once per process, however often the registry is read.
_announced: set[str] = set()


class ExternalAdapter:
    def __init__(self, manifest: Manifest, envs_dir: Path = ENVS_DIR, adapters_dir: Path = ADAPTERS_DIR) -> None:
        self.manifest = manifest
        self.envs_dir = envs_dir
        self.adapters_dir = adapters_dir

    @property
    def name(self) -> str:
        return self.manifest.name

    def env_state(self) -> str:
        return env_state(self.manifest, self.envs_dir)

    def ensure_env(self, rebuild: bool = False) -> bool:
        return ensure_env(self.manifest, envs_dir=self.envs_dir, rebuild=rebuild)

    def __call__(self) -> SubprocessAdapter:
        """The running adapter; builds the environment first when its stamp is missing or stale."""
        self.ensure_env()
        key = (self.name, str(self.envs_dir))
        if key not in _running:
            spec = launch(self.manifest, envs_dir=self.envs_dir, adapters_dir=self.adapters_dir)
            _running[key] = SubprocessAdapter(
                spec.command,
                cwd=spec.cwd,
                env=spec.env,
                expected_name=self.name,
                on_hello=self._record,
                declared=self.declared(),
            )
        return _running[key]

    def declared(self) -> dict[str, str]:
        """What the manifest declares of the implementation beyond its hello: its scope and why, and the
        transport it reads."""
        scope = {"scope": self.manifest.scope} if self.manifest.scope else {}
        scope |= {"scope_note": self.manifest.scope_note} if self.manifest.scope_note else {}
        return scope | ({"transport": self.manifest.transport} if self.manifest.transport else {})

    def describe(self, hello: Hello | None = None) -> dict[str, Any]:
        """The manifest's data; the implementation's own (library, version, ...) when a hello is given."""
        described = (
            hello.describe()
            if hello
            else {
                "name": self.name,
                "library": None,
                "version": None,
                "protocols": [],
                "capabilities": [],
                "code_path": "",
                "capability_notes": {},
                "language": self.manifest.language,
            }
        )
        return {
            **described,
            **self.declared(),
            "manifest": relative_label(self.manifest.path, self.adapters_dir),
            "env": self.env_state(),
        }

    def probe(self) -> Hello | None:
        """The driver's hello when its environment is ready (None otherwise); never builds anything.

        A hello recorded for the same environment and driver sources is read instead of starting the
        driver; a hello the driver gives is recorded (deltacheck.driver.descriptions).
        """
        if self.env_state() != "ready":
            return None
        known = descriptions.recorded(self.manifest, self.envs_dir, self.adapters_dir)
        if known is not None:
            try:
                return Hello.from_json(known)
            except (TypeError, KeyError, ValueError):
                pass  # a record from another version of the harness: ask the driver
        spec = launch(self.manifest, envs_dir=self.envs_dir, adapters_dir=self.adapters_dir)
        with SubprocessAdapter(
            spec.command,
            cwd=spec.cwd,
            env=spec.env,
            expected_name=self.name,
            startup_timeout=PROBE_TIMEOUT,
            on_hello=self._record,
        ) as adapter:
            return adapter.start()

    def _record(self, hello: Hello) -> None:
        """Keep what the driver said of itself, for listings that start no driver."""
        try:
            descriptions.record(self.manifest, self.envs_dir, self.adapters_dir, hello.describe())
        except OSError:
            pass  # a read-only cache only costs the next listing a driver start


def external_adapters(
    taken: Iterable[str], adapters_dir: Path | None = None, envs_dir: Path | None = None
) -> tuple[dict[str, ExternalAdapter], list[ManifestProblem]]:
    """Every valid manifest adapter whose name no in-process adapter has `taken`."""
    # Defaults read at call time, so a test can point the whole registry at a directory of its own.
    adapters_dir = adapters_dir or ADAPTERS_DIR
    envs_dir = envs_dir or ENVS_DIR
    manifests = load_manifests(adapters_dir)
    problems = list(manifests.problems)
    taken = set(taken)
    out: dict[str, ExternalAdapter] = {}
    without_toolchain: dict[tuple[str, str], list[str]] = {}
    for manifest in manifests.adapters:
        tool = missing_tool(manifest.language)
        if tool is not None:
            without_toolchain.setdefault((manifest.language, tool), []).append(manifest.name)
            continue
        if manifest.name in taken:
            problems.append(
                ManifestProblem(
                    relative_label(manifest.path, adapters_dir),
                    f"/{manifest.position}/name",
                    f"adapter name {manifest.name!r} is taken by an in-process adapter",
                )
            )
            continue
        out[manifest.name] = ExternalAdapter(manifest, envs_dir, adapters_dir)
    for (language, tool), names in without_toolchain.items():
        announce_once(toolchain_notice(language, tool, names))
    return out, problems


def toolchain_notice(language: str, tool: str, names: list[str]) -> str:
    """One line for all the adapters of a language whose toolchain is missing."""
    label = LANGUAGE_LABELS.get(language, language)
    return (
        f"skipped {len(names)} {label} adapter{'s' if len(names) != 1 else ''}: {tool} not found on PATH "
        f"({', '.join(names)})"
    )


def announce_once(line: str) -> None:
    """A notice on stderr, as plain text; the run goes on without those adapters."""
    if line not in _announced:
        _announced.add(line)
        print(f"deltacheck: {line}", file=sys.stderr, flush=True)


def probe_all(adapters: list[ExternalAdapter]) -> list[Hello | DriverFailed | None]:
    """Probe in parallel: each probe mostly waits for a library import in another process."""

    def probe(adapter: ExternalAdapter) -> Hello | DriverFailed | None:
        try:
            return adapter.probe()
        except DriverFailed as exc:
            return exc

    if not adapters:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(adapters))) as pool:
        return list(pool.map(probe, adapters))
