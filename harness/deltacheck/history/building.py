"""What every release environment shares: the result of a build, the one-line reason a release cannot
be installed, the stamp that lets a built environment be reused, and running one build step."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from deltacheck.driver.envs import Launch, Runner

STAMP = "deltacheck-history.stamp"
Log = Callable[[str], None]


class NotInstallable(Exception):
    """The release could not be installed (or built); the message is one line naming why."""


@dataclass(frozen=True)
class Built:
    launch: Launch
    built: bool  # False: a cached environment was reused
    constrained: bool  # installed under the bundled pins of everything else (python: the frozen section)
    driven_by: str = ""  # the adapter whose driver was built, when it is not the history's own (an API boundary)
    unpinned: tuple[str, ...] = ()  # python: the adapter's other direct pins left to pip (the release contradicts them)


def step(
    label: str,
    command: Sequence[str],
    cwd: Path,
    log: Log,
    run: Runner,
    *,
    tool: str = "",
    explain: Callable[[str], str] | None = None,
) -> None:
    """Run one build command; NotInstallable names the tool and the line of its output that says why."""
    log(f"{label}: {' '.join(command)}")
    status, output = run(command, cwd)
    if status != 0:
        tool = tool or ("pip install" if "pip" in command else " ".join(command[:2]))
        raise NotInstallable(f"{tool} failed: {(explain or last_error)(output)}")


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
    return clipped(reason)


def clipped(line: str, limit: int = 300) -> str:
    return line if len(line) <= limit else line[: limit - 3] + "…"


def read_stamp(where: Path) -> tuple[str, str] | None:
    try:
        lines = (where / STAMP).read_text(encoding="utf-8").split()
    except OSError:
        return None
    return (lines[0], lines[1]) if len(lines) == 2 else None


def write_stamp(where: Path, stamp: str, constrained: bool) -> None:
    write_state(where, stamp, "constrained" if constrained else "unconstrained")


def write_state(where: Path, stamp: str, state: str) -> None:
    """The stamp, and how the release was installed: constrained, unconstrained or unpinned."""
    (where / STAMP).write_text(f"{stamp}\n{state}\n", encoding="utf-8")


def digest(*parts: str) -> str:
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part.encode() + b"\0")
    return hashed.hexdigest()


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
