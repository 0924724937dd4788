"""What a step hands back to GitHub: outputs (`$GITHUB_OUTPUT`), the job summary (`$GITHUB_STEP_SUMMARY`),
and an error annotation. Run outside GitHub (neither file set), the summary goes to stdout.
"""

from __future__ import annotations

import re
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path

OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def output_lines(outputs: Mapping[str, str]) -> str:
    """`name=value` lines; a value on several lines as `name<<DELIMITER`, a delimiter the value does not hold."""
    lines = []
    for name, value in outputs.items():
        if not OUTPUT_NAME.match(name):
            raise ValueError(f"output name {name!r} is not a valid GitHub output name")
        if "\n" not in value and "\r" not in value:
            lines.append(f"{name}={value}\n")
            continue
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        while delimiter in value:  # never, in practice; but a value must not end the block early
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(lines)


def write_outputs(outputs: Mapping[str, str], environ: Mapping[str, str]) -> None:
    target = environ.get("GITHUB_OUTPUT")
    if target:
        _append(Path(target), output_lines(outputs))


def write_summary(markdown: str, environ: Mapping[str, str]) -> None:
    target = environ.get("GITHUB_STEP_SUMMARY")
    if target:
        _append(Path(target), markdown)
    else:
        sys.stdout.write(markdown)
        sys.stdout.flush()


def report_error(message: str, environ: Mapping[str, str]) -> None:
    """One line on stderr: an error annotation on GitHub (the runner reads workflow commands there too), else plain."""
    if environ.get("GITHUB_ACTIONS") == "true":
        print(f"::error title=deltacheck::{_command_data(message)}", file=sys.stderr)
    else:
        print(f"Error: {message}", file=sys.stderr)


def _command_data(text: str) -> str:
    """A workflow command's message, escaped as the runner reads it (so it stays one command on one line)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
        if not text.endswith("\n"):
            handle.write("\n")
