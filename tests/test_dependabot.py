""".github/dependabot.yml covers every manifest the repository pins, and is a configuration Dependabot accepts.

A new adapter folder (a requirements file, a package.json, a pom.xml, a go.mod) without an entry of
its ecosystem fails here, so no pin is left out of the weekly pull requests by oversight.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from deltacheck.driver.envs import direct_requirements
from deltacheck.driver.manifests import load_manifests

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".github" / "dependabot.yml"
# Where manifests live that nothing installs from: build outputs and the test suite's own sample project.
NOT_MANIFEST_FOLDERS = {"node_modules", "target", "__pycache__", ".venv", ".venvs", ".git", "tests", "build"}


def _is_manifest(path: Path) -> str | None:
    """The Dependabot ecosystem that reads this file, if any."""
    name = path.name
    if name.startswith("requirements") and name.endswith(".txt") or name in ("pyproject.toml", "constraints.txt"):
        return "pip"
    if name == "package.json":
        return "npm"
    if name == "pom.xml":  # Dependabot reads pom.xml only; a second pin's pom-<version>.xml is left alone
        return "maven"
    if name == "go.mod":
        return "gomod"
    return None


def manifest_folders(root: Path) -> set[tuple[str, str]]:
    """(ecosystem, "/folder") for every folder of the repository holding a manifest."""
    found = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name not in NOT_MANIFEST_FOLDERS]
        relative = Path(folder).relative_to(root).as_posix()
        for name in files:
            ecosystem = _is_manifest(Path(name))
            if ecosystem:
                found.add((ecosystem, "/" if relative == "." else "/" + relative))
    # The github-actions ecosystem reads .github/workflows/ and a root action.yml (this repository is an action too)
    if (root / ".github" / "workflows").is_dir() or (root / "action.yml").is_file():
        found.add(("github-actions", "/"))
    return found


def covered_folders(config: dict) -> set[tuple[str, str]]:
    covered = set()
    for entry in config["updates"]:
        for folder in entry.get("directories") or [entry["directory"]]:
            covered.add((entry["package-ecosystem"], folder.rstrip("/") or "/"))
    return covered


def uncovered(root: Path, config: dict) -> list[str]:
    return sorted(f"{ecosystem} {folder}" for ecosystem, folder in manifest_folders(root) - covered_folders(config))


def _config() -> dict:
    return YAML(typ="safe").load(CONFIG.read_text(encoding="utf-8"))


def _entry(config: dict, ecosystem: str, folder: str) -> dict:
    return next(
        e
        for e in config["updates"]
        if e["package-ecosystem"] == ecosystem and folder in (e.get("directories") or [e["directory"]])
    )


def _project(requirement: str) -> str:
    name = requirement.split("==", 1)[0].split("[", 1)[0].strip()
    return name.lower().replace("_", "-").replace(".", "-")


def test_every_manifest_folder_has_an_entry_of_its_ecosystem():
    missing = uncovered(ROOT, _config())
    assert not missing, f"folders with manifests but no entry in .github/dependabot.yml: {', '.join(missing)}"


def test_an_entry_names_only_folders_that_hold_its_manifests():
    stale = covered_folders(_config()) - manifest_folders(ROOT)
    assert not stale, f".github/dependabot.yml names folders without such manifests: {sorted(stale)}"


def test_a_new_adapter_folder_without_an_entry_is_found(tmp_path):
    (tmp_path / "adapters" / "mylib").mkdir(parents=True)
    (tmp_path / "adapters" / "mylib" / "requirements.txt").write_text("mylib==1.0\n")
    (tmp_path / "adapters" / "jvm" / "newlib").mkdir(parents=True)
    (tmp_path / "adapters" / "jvm" / "newlib" / "pom.xml").write_text("<project/>\n")
    (tmp_path / "adapters" / "node" / "x" / "node_modules" / "y").mkdir(parents=True)
    (tmp_path / "adapters" / "node" / "x" / "node_modules" / "y" / "package.json").write_text("{}\n")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    config = {"updates": [{"package-ecosystem": "pip", "directory": "/adapters/mylib"}]}
    assert uncovered(tmp_path, config) == ["github-actions /", "maven /adapters/jvm/newlib"]


def test_a_root_action_yml_needs_a_github_actions_entry(tmp_path):
    (tmp_path / "action.yml").write_text("runs: {using: composite, steps: []}\n")
    assert uncovered(tmp_path, {"updates": []}) == ["github-actions /"]


@pytest.mark.parametrize("folder", sorted(f for e, f in manifest_folders(ROOT) if e == "pip" and f != "/"))
def test_a_python_entry_allows_its_folders_direct_pins_and_nothing_else(folder):
    entry = _entry(_config(), "pip", folder)
    allowed = {_project(rule["dependency-name"]) for rule in entry.get("allow", [])}
    assert allowed, f"{folder}: without `allow`, Dependabot bumps every frozen transitive pin on its own"
    excluded = entry.get("exclude-paths", [])
    files = [
        path
        for path in sorted((ROOT / folder.lstrip("/")).glob("requirements*.txt"))
        if not any(fnmatch.fnmatch(path.relative_to(ROOT).as_posix(), p) for p in excluded)
    ]
    pinned = {
        _project(line) for path in files for line in path.read_text(encoding="utf-8").splitlines() if "==" in line
    }
    assert allowed <= pinned, f"{folder}: `allow` names what no requirements file pins: {sorted(allowed - pinned)}"
    # Files split into the adapter's own pins and a frozen section: each of its own pins is bumped.
    direct = {
        _project(line)
        for path in files
        if path.read_text(encoding="utf-8").startswith("# What the adapter imports")
        for line in direct_requirements(path.read_text(encoding="utf-8"))
    }
    assert direct <= allowed, f"{folder}: direct pins Dependabot would never bump: {sorted(direct - allowed)}"


def test_a_requirements_file_that_keeps_a_previous_version_is_left_out():
    """Dependabot would move a kept second pin (`<adapter>@<tag>`) to the newest release; `envs --outdated` watches it."""
    config = _config()
    for manifest in load_manifests(ROOT / "adapters").adapters:
        if manifest.language != "python" or "@" not in manifest.name:
            continue
        assert manifest.requirements is not None
        path = (manifest.folder / manifest.requirements).relative_to(ROOT).as_posix()
        entry = _entry(config, "pip", "/" + manifest.folder.relative_to(ROOT).as_posix())
        assert any(fnmatch.fnmatch(path, p) for p in entry.get("exclude-paths", [])), (
            f"{path} keeps {manifest.name}'s version: list it in its entry's exclude-paths"
        )


def test_every_excluded_path_names_a_file_of_its_entry():
    for entry in _config()["updates"]:
        folders = entry.get("directories") or [entry["directory"]]
        for pattern in entry.get("exclude-paths", []):
            files = [path for folder in folders for path in (ROOT / folder.lstrip("/")).iterdir() if path.is_file()]
            matches = [path for path in files if fnmatch.fnmatch(path.relative_to(ROOT).as_posix(), pattern)]
            assert matches, f"exclude-paths {pattern!r} of {folders} matches no file"


def test_the_configuration_validates_against_the_published_dependabot_schema():
    """check-jsonschema carries SchemaStore's dependabot-2.0 schema (`vendor.dependabot`)."""
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.dependabot", str(CONFIG)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_catches_a_wrong_key(tmp_path):
    broken = tmp_path / "dependabot.yml"
    broken.write_text(CONFIG.read_text(encoding="utf-8").replace("allow:", "allowed:", 1), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.dependabot", str(broken)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "'allowed' was unexpected" in done.stdout
