"""Reading JSON data files with a message instead of a traceback, and writing output files so that a
crash, a kill or a second run at the same time never leaves a corrupt one.

Results files are written line by line (a run killed mid-way keeps every record already written), so
they are locked instead of replaced: a second run writing the same file is refused. Documents that
are written whole (REPORT.md, REPORT.html, JUnit XML, expectations) are replaced atomically.
"""

from __future__ import annotations

import fcntl
import json
import os
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


@contextmanager
def locked_for_writing(path: Path) -> Iterator[IO[str]]:
    """The file, emptied and held under an exclusive lock until the block ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
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
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read_json_data(path: Path) -> tuple[Any, str | None]:
    """(the parsed JSON, None), or (None, what is wrong with the file, in a few words)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"unreadable: {exc}"
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
