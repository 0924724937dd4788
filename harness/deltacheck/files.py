"""Reading JSON data files with a message instead of a traceback, and writing output files so that a
crash, a kill or a second run at the same time never leaves a corrupt one.

Results files are written line by line (a run killed mid-way keeps every record already written), so
they are locked instead of replaced: a second run writing the same file is refused. Documents that
are written whole (REPORT.md, JUnit XML, expectations) are replaced atomically, and
keep the permissions a plain write would give them: an existing file keeps its mode, a new one gets
the user's umask (these files are meant to be committed and published, not kept private).
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


class FileBusy(RuntimeError):
    """Another run is writing this results file right now."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path}: another deltacheck run is writing this file now; wait for it, or give "
            f"this run another file (--results)"
        )
        self.path = path


class OutputUnusable(ValueError):
    """An output file's folder cannot be made: a file stands where a folder must be."""


def make_parent_folder(path: Path) -> None:
    """The folder an output file goes into, made if missing; OutputUnusable naming what is in the way."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        in_the_way = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), path.parent)
        raise OutputUnusable(
            f"{path}: cannot create its folder, {in_the_way} is a file; move it, or name another output "
            f"file (--results FILE)"
        ) from None


@contextmanager
def locked_for_writing(path: Path) -> Iterator[IO[str]]:
    """The file, emptied and held under an exclusive lock until the block ends."""
    make_parent_folder(path)
    handle = path.open("a", encoding="utf-8")  # "a", not "w": nothing is truncated before the lock is held
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise FileBusy(path) from None
    with handle:
        handle.truncate(0)
        yield handle


def write_text_atomically(path: Path, text: str) -> None:
    """Write a whole document: readers see the old file or the new one, never half of either."""
    make_parent_folder(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            os.fchmod(out.fileno(), _mode_for(path))  # mkstemp creates 0600, which a plain write never would
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _mode_for(path: Path) -> int:
    """The mode the file has now, or, for a new file, what the user's umask gives a plain write."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process's umask (reading it means setting it; it is put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_json_data(path: Path) -> tuple[Any, str | None]:
    """(the parsed JSON, None), or (None, what is wrong with the file, in a few words)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"unreadable: {exc}"
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
