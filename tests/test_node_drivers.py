"""Node drivers pinned twice: a library's previous major lives in a folder of its own (`adapters/node/<folder>-<major>`,
with its own package.json and package-lock.json, since Node resolves a driver's imports from the driver file's own
folder) and runs the current folder's driver source unchanged, as one Python adapter class serves both of its pins."""

from __future__ import annotations

import json
import re
from pathlib import Path

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


def test_a_previous_major_runs_the_current_driver_source_unchanged():
    for folder, current, _ in _previous_majors():
        assert (folder / "driver.mjs").read_bytes() == (current / "driver.mjs").read_bytes(), (
            f"{folder.name}/driver.mjs differs from {current.name}/driver.mjs: copy it over (one source serves both pins)"
        )


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
