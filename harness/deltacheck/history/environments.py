"""One environment per (adapter, release): the adapter's own pins with its library's pin replaced.

Python: a virtualenv in `.venvs/history/<adapter>/<version>/` with the requirements file's direct pins
(the library's at the release) installed, the rest of the file (its frozen section) given to pip as
constraints so that the environment is as close to the bundled one as the release allows. A release
whose own requirements contradict those constraints is installed again without them, and one that
contradicts the adapter's other direct pins too (an older langchain-openai capping openai below the
pinned major) once more with only the library pinned and the other direct pins named without a
version, for pip to choose (the results header says which). Node: the language's driver folder copied to `.../<version>/node/` without its
installed packages, the library's version written into the driver's package.json, `npm install`.
Each is reused while its stamp (a hash of what it was built from) matches. A release that cannot be
installed is a NotInstallable with pip's or npm's own last error line.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deltacheck.driver.envs import ENVS_DIR, Launch, Runner, direct_requirements, launch, run_command
from deltacheck.history.target import Target, normal_name
from deltacheck.locations import ADAPTERS_DIR, file_stem
from deltacheck.pins.read import REQUIREMENT

STAMP = "deltacheck-history.stamp"


class NotInstallable(Exception):
    """The release could not be installed; the message is one line naming why."""


@dataclass(frozen=True)
class Built:
    launch: Launch
    built: bool  # False: a cached environment was reused
    constrained: bool  # python: installed under the bundled file's frozen pins
    unpinned: tuple[str, ...] = ()  # python: the adapter's other direct pins left to pip (the release contradicts them)


def history_env(target: Target, version: str, envs_dir: Path = ENVS_DIR) -> Path:
    return envs_dir / "history" / file_stem(target.adapter) / file_stem(version)


def ensure_release(
    target: Target,
    version: str,
    *,
    envs_dir: Path = ENVS_DIR,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    run: Runner = run_command,
) -> Built:
    """The environment of one release, built unless its stamp matches; NotInstallable says why not."""
    where = history_env(target, version, envs_dir)
    where.parent.mkdir(parents=True, exist_ok=True)
    with (where.parent / f"{where.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs building one release at once would corrupt it
        if target.manifest.language == "python":
            return _python(target, version, where, log, run)
        return _node(target, version, where, log, run)


# -- python ---------------------------------------------------------------------------------------


def release_requirements(target: Target, version: str) -> tuple[str, str]:
    """(requirements, constraints): the direct pins with the library's at `version`, and the frozen pins."""
    text = target.pin.file.read_text(encoding="utf-8")
    direct = direct_requirements(text)
    lines = []
    for line in direct:
        match = REQUIREMENT.match(line)
        if match and normal_name(match.group(1)) == normal_name(target.package):
            line = f"{match.group(1)}{match.group(2) or ''}=={version}"
        lines.append(line)
    names = {normal_name(m.group(1)) for line in direct if (m := REQUIREMENT.match(line))}
    frozen = [
        line.strip()
        for line in text.splitlines()
        if (m := REQUIREMENT.match(line.strip())) and normal_name(m.group(1)) not in names
    ]
    return "\n".join(lines) + "\n", "\n".join(frozen) + ("\n" if frozen else "")


def unpinned_requirements(target: Target, version: str) -> tuple[str, tuple[str, ...]]:
    """The library at `version` and the adapter's other direct pins by name only (extras kept), for a
    release that contradicts them; and the names let go."""
    lines, names = [], []
    for line in release_requirements(target, version)[0].splitlines():
        match = REQUIREMENT.match(line)
        if match and normal_name(match.group(1)) != normal_name(target.package):
            line = f"{match.group(1)}{match.group(2) or ''}"
            names.append(match.group(1))
        lines.append(line)
    return "\n".join(lines) + "\n", tuple(names)


def _python(target: Target, version: str, where: Path, log: Callable[[str], None], run: Runner) -> Built:
    requirements, constraints = release_requirements(target, version)
    stamp = _digest(f"python {sys.version_info.major}.{sys.version_info.minor}", requirements, constraints)
    python = where / "bin" / "python"
    spec = launch(target.manifest, adapters_dir=ADAPTERS_DIR)  # the bundled environment's command, another python
    made = Launch((str(python), *spec.command[1:]), spec.cwd, spec.env)
    loose, names = unpinned_requirements(target, version)
    kept = _stamp(where)
    if kept and kept[0] == stamp:
        return Built(made, False, kept[1] == "constrained", names if kept[1] == "unpinned" else ())
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    (where / "history-requirements.txt").write_text(requirements, encoding="utf-8")
    (where / "history-constraints.txt").write_text(constraints, encoding="utf-8")
    _step(target, version, [sys.executable, "-m", "venv", str(where)], where, log, run)
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-r"]
    state = "constrained"
    try:
        _step(
            target,
            version,
            [*pip, str(where / "history-requirements.txt"), "-c", str(where / "history-constraints.txt")],
            where,
            log,
            run,
        )
    except NotInstallable:
        state = "unconstrained"  # the release needs other versions than the bundled file froze: let pip choose
        log(f"{target.adapter} {version}: installing again without the bundled file's frozen pins")
        try:
            _step(target, version, [*pip, str(where / "history-requirements.txt")], where, log, run)
        except NotInstallable:
            if not names:
                shutil.rmtree(where, ignore_errors=True)
                raise
            state = "unpinned"  # it contradicts the adapter's other direct pins too: only the library stays pinned
            log(
                f"{target.adapter} {version}: installing again with only {target.package} pinned ({', '.join(names)} left to pip)"
            )
            (where / "history-requirements-unpinned.txt").write_text(loose, encoding="utf-8")
            try:
                _step(target, version, [*pip, str(where / "history-requirements-unpinned.txt")], where, log, run)
            except NotInstallable:
                shutil.rmtree(where, ignore_errors=True)
                raise
    (where / STAMP).write_text(f"{stamp}\n{state}\n", encoding="utf-8")
    return Built(made, True, state == "constrained", names if state == "unpinned" else ())


# -- node -----------------------------------------------------------------------------------------


def _node(target: Target, version: str, where: Path, log: Callable[[str], None], run: Runner) -> Built:
    manifest = target.manifest
    root = manifest.folder.parent  # adapters/node: drivers import their siblings in node/common
    copy = where / "node"
    folder = copy / manifest.folder.name
    package = json.loads((manifest.folder / "package.json").read_text(encoding="utf-8"))
    for section in ("dependencies", "devDependencies", "optionalDependencies"):
        deps = package.get(section) or {}
        for name, value in list(deps.items()):
            if name == target.package:
                deps[name] = version
            elif isinstance(value, str) and value.startswith(f"npm:{target.package}@"):
                deps[name] = f"npm:{target.package}@{version}"
    written = json.dumps(package, indent=2) + "\n"
    sources = sorted(p for p in root.rglob("*") if p.is_file() and "node_modules" not in p.relative_to(root).parts)
    stamp = _digest("node", written, *(f"{p.relative_to(root)}:{_file_hash(p)}" for p in sources))
    env = {**os.environ, "DELTACHECK_ADAPTER_NAME": manifest.name}
    made = Launch(manifest.command, str(folder), env)
    kept = _stamp(where)
    if kept and kept[0] == stamp:
        return Built(made, False, False)
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("node_modules"))
    (folder / "package.json").write_text(written, encoding="utf-8")
    (folder / "package-lock.json").unlink(missing_ok=True)  # the lock pins the bundled version
    try:
        _step(target, version, ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], folder, log, run)
    except NotInstallable:
        shutil.rmtree(where, ignore_errors=True)
        raise
    (where / STAMP).write_text(f"{stamp}\nunconstrained\n", encoding="utf-8")
    return Built(made, True, False)


# -- helpers --------------------------------------------------------------------------------------


def _step(target: Target, version: str, command: list[str], cwd: Path, log: Callable[[str], None], run: Runner) -> None:
    log(f"{target.adapter} {version}: {' '.join(command)}")
    status, output = run(command, cwd)
    if status != 0:
        tool = "pip install" if "pip" in command else " ".join(command[:2])
        raise NotInstallable(f"{tool} failed: {last_error(output)}")


def last_error(output: str) -> str:
    """The line of a tool's output that says why it failed: its last `ERROR:` / `npm error` line, else its last
    line; for pip's ResolutionImpossible (which names no package), the conflict pip says it is caused by."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("ERROR:", "error:", "npm error", "npm ERR!"))]
    reason = (errors or lines or ["no output"])[-1]
    if reason.startswith("ERROR: ResolutionImpossible") and "The conflict is caused by:" in lines:
        after = lines[len(lines) - lines[::-1].index("The conflict is caused by:") :]
        causes = after[: next((i for i, line in enumerate(after) if line.startswith(("To fix", "ERROR:"))), len(after))]
        if causes:
            reason = "ResolutionImpossible: " + "; ".join(causes)
    return reason if len(reason) <= 300 else reason[:297] + "…"


def _stamp(where: Path) -> tuple[str, str] | None:
    try:
        lines = (where / STAMP).read_text(encoding="utf-8").split()
    except OSError:
        return None
    return (lines[0], lines[1]) if len(lines) == 2 else None


def _digest(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
