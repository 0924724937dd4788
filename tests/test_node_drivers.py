"""Node drivers pinned twice: a library's previous major lives in a folder of its own (`adapters/node/<folder>-<major>`,
with its own package.json and package-lock.json, since Node resolves a module's imports from that module's own
folder). Both folders run one source, as one Python adapter class serves both of its pins: the driver's code is in
`adapters/node/common/<folder>-driver.mjs`, which imports no package itself, and each folder's driver.mjs only calls
its `main` with a loader written there (`import()` in that file resolves from that folder's node_modules)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from deltacheck.locations import ADAPTERS_DIR

NODE = ADAPTERS_DIR / "node"
# The folders pinned twice, and the package whose major names the second pin (the library their drivers report).
LIBRARIES = {"ai-sdk": "ai", "openai": "openai"}


def _previous_majors() -> list[tuple[Path, Path, str]]:
    """(the previous major's folder, the current folder, the major) for every `<folder>-<major>` beside `<folder>`."""
    found = []
    for folder in sorted(p for p in NODE.iterdir() if p.is_dir()):
        match = re.fullmatch(r"(.+)-(\d+)", folder.name)
        if match and (NODE / match.group(1)).is_dir():
            found.append((folder, NODE / match.group(1), match.group(2)))
    return found


def _entries(folder: Path) -> list[dict]:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def test_the_previous_majors_are_pinned_beside_the_current_ones():
    assert {current.name for _, current, _ in _previous_majors()} == set(LIBRARIES)


def _code(path: Path) -> str:
    """A JavaScript file's text without its `//` comment lines and blank lines."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("//"))


def _delegation(core: str) -> str:
    """All the code of a thin driver.mjs: run the shared driver with a loader and a base bound to its own folder."""
    return (f"import {{ main }} from '../common/{core}';\n"
            "await main({ load: (name) => import(name), base: import.meta.url });")


def test_both_pins_of_a_library_run_the_shared_driver_with_a_loader_of_their_own():
    for folder, current, _ in _previous_majors():
        core = f"{current.name}-driver.mjs"
        assert (NODE / "common" / core).is_file(), f"the shared driver of {current.name} is not common/{core}"
        assert re.search(r"^export async function main\(\{ load, base \}\)", (NODE / "common" / core).read_text(
            encoding="utf-8"), re.MULTILINE), f"common/{core} exports no main({{ load, base }})"
        for pinned in (current, folder):
            assert _code(pinned / "driver.mjs") == _delegation(core), (
                f"{pinned.name}/driver.mjs must only run ../common/{core} (its code lives there, once)"
            )


def test_each_thin_driver_says_which_major_its_folder_pins():
    for folder, current, _ in _previous_majors():
        library = LIBRARIES[current.name]
        for pinned in (current, folder):
            pins = json.loads((pinned / "package.json").read_text(encoding="utf-8"))["dependencies"]
            first_line = (pinned / "driver.mjs").read_text(encoding="utf-8").splitlines()[0]
            assert f" {library} {pins[library].split('.')[0]} " in first_line, (pinned.name, first_line)


def test_the_shared_driver_code_imports_no_package_itself():
    """A bare import in common/ would resolve from no folder's node_modules (or, moved, from the wrong major's)."""
    for path in sorted((NODE / "common").glob("*.mjs")):
        source = path.read_text(encoding="utf-8")
        static = re.findall(r"^import\s[^;]*?from\s*['\"]([^'\"]+)['\"]", source, re.MULTILINE | re.DOTALL)
        static += re.findall(r"^import\s*['\"]([^'\"]+)['\"]", source, re.MULTILINE)
        assert all(name.startswith(("./", "../", "node:")) for name in static), (path.name, static)
        assert not re.search(r"\bimport\s*\(", _code(path)), f"{path.name} imports dynamically: take a loader instead"


def test_each_pin_of_a_library_reports_the_version_its_own_folder_installed():
    if shutil.which("node") is None:
        pytest.skip("no node on PATH")
    for folder, current, _ in _previous_majors():
        library = LIBRARIES[current.name]
        mode = _entries(folder)[0]["command"][2]
        for pinned in (current, folder):
            installed = pinned / "node_modules" / library / "package.json"
            if not installed.is_file():
                pytest.skip(f"{pinned.name}: no node_modules (npm ci there)")
            hello = subprocess.run(
                ["node", "driver.mjs", mode], cwd=pinned, input='{"cmd": "start", "version": 1}\n{"cmd": "stop"}\n',
                capture_output=True, text=True, timeout=60,
            )
            assert hello.returncode == 0, hello.stderr[-2000:]
            version = json.loads(hello.stdout.splitlines()[0])["implementation"]["version"]
            assert version == json.loads(installed.read_text(encoding="utf-8"))["version"], pinned.name


def test_each_previous_major_adapter_is_a_current_adapter_named_with_its_major():
    for folder, current, major in _previous_majors():
        current_entries = {entry["name"]: entry for entry in _entries(current)}
        for entry in _entries(folder):
            name, _, tag = entry["name"].partition("@")
            assert tag == major, entry["name"]
            assert name in current_entries, f"{entry['name']} has no current adapter {name}"
            assert entry["command"] == current_entries[name]["command"]
            assert entry.get("scope") == current_entries[name].get("scope")


def test_a_previous_major_pins_that_major_of_each_library_the_current_folder_pins():
    for folder, current, major in _previous_majors():
        pinned = json.loads((folder / "package.json").read_text(encoding="utf-8"))["dependencies"]
        current_pins = json.loads((current / "package.json").read_text(encoding="utf-8"))["dependencies"]
        library = LIBRARIES[current.name]
        assert pinned[library].split(".")[0] == major
        assert int(current_pins[library].split(".")[0]) > int(major)
        assert set(pinned) <= set(current_pins)
