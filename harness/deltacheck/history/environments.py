"""One environment per (adapter, release): the adapter's own pins with its library's pin replaced.

Each language builds it its own way (python_release, node_release, built_release for JVM and Go), in
`.venvs/history/<adapter>/<version>/`, reused while its stamp (a hash of what it was built from)
matches. A release below one of the adapter's API boundaries is built from the older driver the
manifest names. A release that cannot be installed is a NotInstallable with the tool's own reason.
"""

from __future__ import annotations

import fcntl
import sys
from dataclasses import replace
from pathlib import Path

from deltacheck.driver.envs import ENVS_DIR, Runner, run_command
from deltacheck.history.building import Built, Log, NotInstallable
from deltacheck.history.built_release import build_go, build_jvm
from deltacheck.history.node_release import build_node
from deltacheck.history.python_release import build_python, release_requirements
from deltacheck.history.target import Target
from deltacheck.locations import file_stem

__all__ = ["Built", "NotInstallable", "ensure_release", "history_env", "release_requirements"]


def history_env(target: Target, version: str, envs_dir: Path = ENVS_DIR) -> Path:
    return envs_dir / "history" / file_stem(target.adapter) / file_stem(version)


def ensure_release(
    target: Target,
    version: str,
    *,
    envs_dir: Path = ENVS_DIR,
    log: Log = lambda line: print(line, file=sys.stderr),
    run: Runner = run_command,
) -> Built:
    """The environment of one release, built unless its stamp matches; NotInstallable says why not."""
    where = history_env(target, version, envs_dir)
    where.parent.mkdir(parents=True, exist_ok=True)
    driving = target.driving(version)
    label = f"{target.adapter} {version}"
    with (where.parent / f"{where.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs building one release at once would corrupt it
        language = driving.manifest.language
        if language == "python":
            built = build_python(driving, version, where, label, log, run)
        elif language == "node":
            built = build_node(driving, version, where, label, log, run)
        elif language == "java":
            built = build_jvm(driving, version, where, label, log, run, envs_dir)
        else:
            built = build_go(driving, version, where, label, log, run)
    # The driver answers to the history's adapter name, whichever driver was built.
    launch = replace(built.launch, env={**built.launch.env, "DELTACHECK_ADAPTER_NAME": target.adapter})
    other = driving.manifest.name if driving.manifest.name != target.adapter else ""
    return replace(built, launch=launch, driven_by=other)
