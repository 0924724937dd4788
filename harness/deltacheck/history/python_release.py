"""A Python release: a virtualenv in `.venvs/history/<adapter>/<version>/` with the requirements file's
direct pins (the library's at the release) installed, the rest of the file (its frozen section) given
to pip as constraints so that the environment is as close to the bundled one as the release allows.
A release whose own requirements contradict those constraints is installed again without them (the
results header says so)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from deltacheck.driver.envs import Launch, Runner, direct_requirements, launch
from deltacheck.history.building import Built, Log, NotInstallable, digest, read_stamp, step, write_stamp
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


def build_python(driving: Driving, version: str, where: Path, label: str, log: Log, run: Runner) -> Built:
    requirements, constraints = release_requirements(driving, version)
    stamp = digest(f"python {sys.version_info.major}.{sys.version_info.minor}", requirements, constraints)
    python = where / "bin" / "python"
    spec = launch(driving.manifest, adapters_dir=ADAPTERS_DIR)  # the bundled environment's command, another python
    made = Launch((str(python), *spec.command[1:]), spec.cwd, spec.env)
    kept = read_stamp(where)
    if kept and kept[0] == stamp:
        return Built(made, False, kept[1] == "constrained")
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    (where / "history-requirements.txt").write_text(requirements, encoding="utf-8")
    (where / "history-constraints.txt").write_text(constraints, encoding="utf-8")
    step(label, [sys.executable, "-m", "venv", str(where)], where, log, run)
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-r"]
    pip.append(str(where / "history-requirements.txt"))
    constrained = True
    try:
        step(label, [*pip, "-c", str(where / "history-constraints.txt")], where, log, run)
    except NotInstallable:
        constrained = False  # the release needs other versions than the bundled file froze: let pip choose
        log(f"{label}: installing again without the bundled file's frozen pins")
        try:
            step(label, pip, where, log, run)
        except NotInstallable:
            shutil.rmtree(where, ignore_errors=True)
            raise
    write_stamp(where, stamp, constrained)
    return Built(made, True, constrained)
