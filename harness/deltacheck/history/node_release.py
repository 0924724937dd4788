"""A Node release: the language's driver folder copied to `.venvs/history/<adapter>/<version>/node/`
without its installed packages, the library's version written into the driver's package.json, and
`npm install` there."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from deltacheck.driver.envs import Launch, Runner
from deltacheck.history.building import Built, Log, NotInstallable, digest, file_hash, read_stamp, step, write_stamp
from deltacheck.history.target import Driving


def release_package_json(driving: Driving, version: str) -> str:
    """The driver's package.json with the library (and any alias of it) at `version`."""
    package = json.loads((driving.manifest.folder / "package.json").read_text(encoding="utf-8"))
    name = driving.pin.package
    for section in ("dependencies", "devDependencies", "optionalDependencies"):
        deps = package.get(section) or {}
        for key, value in list(deps.items()):
            if key == name:
                deps[key] = version
            elif isinstance(value, str) and value.startswith(f"npm:{name}@"):
                deps[key] = f"npm:{name}@{version}"
    return json.dumps(package, indent=2) + "\n"


def build_node(driving: Driving, version: str, where: Path, label: str, log: Log, run: Runner) -> Built:
    manifest = driving.manifest
    root = manifest.folder.parent  # adapters/node: drivers import their siblings in node/common
    copy = where / "node"
    folder = copy / manifest.folder.name
    written = release_package_json(driving, version)
    sources = sorted(p for p in root.rglob("*") if p.is_file() and "node_modules" not in p.relative_to(root).parts)
    stamp = digest("node", written, *(f"{p.relative_to(root)}:{file_hash(p)}" for p in sources))
    made = Launch(manifest.command, str(folder), dict(os.environ))
    kept = read_stamp(where)
    if kept and kept[0] == stamp:
        return Built(made, False, False)
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("node_modules"))
    (folder / "package.json").write_text(written, encoding="utf-8")
    (folder / "package-lock.json").unlink(missing_ok=True)  # the lock pins the bundled version
    try:
        step(label, ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], folder, log, run)
    except NotInstallable:
        shutil.rmtree(where, ignore_errors=True)
        raise
    write_stamp(where, stamp, False)
    return Built(made, True, False)
