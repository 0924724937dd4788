"""A Python release: a virtualenv in `.venvs/history/<adapter>/<version>/` with the requirements file's
direct pins (the library's at the release) installed, the rest of the file (its frozen section) given
to pip as constraints so that the environment is as close to the bundled one as the release allows.
A release whose own requirements contradict those constraints is installed again without them, and one
that contradicts the adapter's other direct pins too (an older langchain-openai capping openai below the
pinned major) once more with only the library pinned and the other direct pins named without a version,
for pip to choose (the results header says which)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from deltacheck.driver.envs import Launch, Runner, direct_requirements, launch
from deltacheck.history.building import Built, Log, NotInstallable, digest, read_stamp, step, write_state
from deltacheck.history.target import Driving, normal_name
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.pins.read import REQUIREMENT


def release_requirements(driving: Driving, version: str) -> tuple[str, str]:
    """(requirements, constraints): the direct pins with the library's at `version`, and the frozen pins."""
    text = driving.pin.file.read_text(encoding="utf-8")
    direct = direct_requirements(text)
    lines = []
    for line in direct:
        match = REQUIREMENT.match(line)
        if match and normal_name(match.group(1)) == normal_name(driving.pin.package):
            line = f"{match.group(1)}{match.group(2) or ''}=={version}"
        lines.append(line)
    names = {normal_name(m.group(1)) for line in direct if (m := REQUIREMENT.match(line))}
    frozen = [
        line.strip()
        for line in text.splitlines()
        if (m := REQUIREMENT.match(line.strip())) and normal_name(m.group(1)) not in names
    ]
    return "\n".join(lines) + "\n", "\n".join(frozen) + ("\n" if frozen else "")


def unpinned_requirements(driving: Driving, version: str) -> tuple[str, tuple[str, ...]]:
    """The library at `version` and the adapter's other direct pins by name only (extras kept), for a
    release that contradicts them; and the names let go."""
    lines, names = [], []
    for line in release_requirements(driving, version)[0].splitlines():
        match = REQUIREMENT.match(line)
        if match and normal_name(match.group(1)) != normal_name(driving.pin.package):
            line = f"{match.group(1)}{match.group(2) or ''}"
            names.append(match.group(1))
        lines.append(line)
    return "\n".join(lines) + "\n", tuple(names)


def build_python(driving: Driving, version: str, where: Path, label: str, log: Log, run: Runner) -> Built:
    requirements, constraints = release_requirements(driving, version)
    stamp = digest(f"python {sys.version_info.major}.{sys.version_info.minor}", requirements, constraints)
    python = where / "bin" / "python"
    spec = launch(driving.manifest, adapters_dir=ADAPTERS_DIR)  # the bundled environment's command, another python
    made = Launch((str(python), *spec.command[1:]), spec.cwd, spec.env)
    loose, names = unpinned_requirements(driving, version)
    kept = read_stamp(where)
    if kept and kept[0] == stamp:
        return Built(made, False, kept[1] == "constrained", unpinned=names if kept[1] == "unpinned" else ())
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    (where / "history-requirements.txt").write_text(requirements, encoding="utf-8")
    (where / "history-constraints.txt").write_text(constraints, encoding="utf-8")
    step(label, [sys.executable, "-m", "venv", str(where)], where, log, run)
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-r"]
    pinned = str(where / "history-requirements.txt")
    state = "constrained"
    try:
        step(label, [*pip, pinned, "-c", str(where / "history-constraints.txt")], where, log, run)
    except NotInstallable:
        state = "unconstrained"  # the release needs other versions than the bundled file froze: let pip choose
        log(f"{label}: installing again without the bundled file's frozen pins")
        try:
            step(label, [*pip, pinned], where, log, run)
        except NotInstallable:
            if not names:
                shutil.rmtree(where, ignore_errors=True)
                raise
            state = "unpinned"  # it contradicts the adapter's other direct pins too: only the library stays pinned
            log(f"{label}: installing again with only {driving.pin.package} pinned ({', '.join(names)} left to pip)")
            (where / "history-requirements-unpinned.txt").write_text(loose, encoding="utf-8")
            try:
                step(label, [*pip, str(where / "history-requirements-unpinned.txt")], where, log, run)
            except NotInstallable:
                shutil.rmtree(where, ignore_errors=True)
                raise
    write_state(where, stamp, state)
    return Built(made, True, state == "constrained", unpinned=names if state == "unpinned" else ())
