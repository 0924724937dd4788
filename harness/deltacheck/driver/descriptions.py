"""What each manifest adapter's driver says of itself (its hello), recorded so listing needs no driver.

`deltacheck adapters` would otherwise start every driver (a library import each: ~25 s for the
bundled ones). The hello is recorded when the environment is built, or the first time a listing
had to start the driver, under `<envs>/descriptions/<adapter>.json`, with the digest of what the
hello is made from: the environment's stamp, the driver's own sources (for Python drivers the
harness and adapter modules, for Node drivers the .mjs/.js files; JVM and Go drivers are built
artifacts, which the stamp already covers), and the protocols' capability reasons the harness fills
into every hello. Any change there makes the record stale, and it is probed again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from deltacheck.driver.envs import STAMP_FILE, env_dir
from deltacheck.driver.manifests import Manifest
from deltacheck.files import write_text_atomically
from deltacheck.locations import PACKAGE_DIR
from deltacheck.protocols import all_protocols

RECORDS = "descriptions"
SKIPPED_DIRS = frozenset({"node_modules", "target", "__pycache__", ".venvs"})
DRIVER_SOURCES = {"python": (".py",), "node": (".mjs", ".js", ".cjs")}


def _source_files(roots: list[Path], suffixes: tuple[str, ...]) -> list[Path]:
    found = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            found += [Path(folder) / name for name in sorted(files) if name.endswith(suffixes)]
    return found


def digest(manifest: Manifest, envs_dir: Path, adapters_dir: Path) -> str:
    """A hash of everything the driver's hello is made from."""
    hashed = hashlib.sha256(manifest.name.encode())
    stamp = env_dir(manifest, envs_dir) / STAMP_FILE
    hashed.update(stamp.read_bytes() if stamp.is_file() else b"no stamp")
    hashed.update(json.dumps([p.capability_notes for p in all_protocols()], sort_keys=True).encode())
    suffixes = DRIVER_SOURCES.get(manifest.language)
    if suffixes:
        roots = [PACKAGE_DIR, adapters_dir] if manifest.language == "python" else [manifest.build_root]
        for path in _source_files(roots, suffixes):
            hashed.update(str(path).encode())
            hashed.update(path.read_bytes())
    return hashed.hexdigest()


def _record_path(manifest: Manifest, envs_dir: Path) -> Path:
    return envs_dir / RECORDS / f"{manifest.name}.json"


def _read(manifest: Manifest, envs_dir: Path) -> dict[str, Any]:
    try:
        record = json.loads(_record_path(manifest, envs_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def recorded(manifest: Manifest, envs_dir: Path, adapters_dir: Path) -> dict[str, Any] | None:
    """The recorded hello (as `Hello.describe()` gave it) when it is still what the driver would say."""
    record = _read(manifest, envs_dir)
    if record.get("digest") != digest(manifest, envs_dir, adapters_dir):
        return None
    hello = record.get("hello")
    return hello if isinstance(hello, dict) else None


def record(manifest: Manifest, envs_dir: Path, adapters_dir: Path, hello: dict[str, Any]) -> None:
    """Keep `hello` as the driver's description, unless it is already kept for the same sources."""
    wanted = {"digest": digest(manifest, envs_dir, adapters_dir), "hello": hello}
    if _read(manifest, envs_dir) != wanted:
        write_text_atomically(_record_path(manifest, envs_dir), json.dumps(wanted, indent=2, ensure_ascii=False) + "\n")
