"""The action's inputs, read from the environment action.yml maps them to, and checked up front.

A composite action's inputs reach a script only through the `env:` mapping of its step; each
input here is read from the variable named beside it, and tests/test_github_action.py holds this
table and action.yml's mapping to each other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from deltacheck.protocols import PROTOCOLS

# input name in action.yml -> the environment variable its step maps it to
INPUT_VARIABLES = {
    "adapter": "INPUT_ADAPTER",
    "adapter-cmd": "INPUT_ADAPTER_CMD",
    "expectations": "INPUT_EXPECTATIONS",
    "protocol": "INPUT_PROTOCOL",
    "results-dir": "INPUT_RESULTS_DIR",
}
DEFAULT_RESULTS_DIR = "deltacheck-results"
# Set in the workflow's own `env:` (not an input: an input the step maps would hide a job-level value).
SITE_URL_VARIABLE = "DELTACHECK_SITE_URL"


class InputProblem(ValueError):
    """One input (or environment variable) the action cannot use; the message names it."""

    def __init__(self, name: str, message: str, what: str = "input") -> None:
        super().__init__(f"{what} {name}: {message}")
        self.input = name


@dataclass(frozen=True)
class ActionInputs:
    adapter: str | None
    adapter_cmd: str | None
    expectations: Path | None
    protocols: tuple[str, ...]
    results_dir: Path
    site_url: str | None

    def given(self) -> dict[str, str]:
        """Input name -> the text given, for the inputs that were given (to say which one an error is about)."""
        values = {
            "adapter": self.adapter,
            "adapter-cmd": self.adapter_cmd,
            "expectations": str(self.expectations) if self.expectations else None,
        }
        return {name: value for name, value in values.items() if value}


def read_inputs(environ: Mapping[str, str]) -> ActionInputs:
    """The inputs, each checked; InputProblem names the first one that is wrong."""

    def value(name: str) -> str | None:
        text = environ.get(INPUT_VARIABLES[name], "").strip()
        return text or None  # GitHub passes an input left out as an empty string

    adapter, adapter_cmd = value("adapter"), value("adapter-cmd")
    if adapter is None and adapter_cmd is None:
        raise InputProblem(
            "adapter",
            "give `adapter` (a bundled adapter name, MODULE:CLASS or path/to/file.py:CLASS) "
            "or `adapter-cmd` (a driver command)",
        )
    if adapter is not None and adapter_cmd is not None:
        raise InputProblem("adapter", "give `adapter` or `adapter-cmd`, not both")
    return ActionInputs(
        adapter=adapter,
        adapter_cmd=adapter_cmd,
        expectations=_expectations(value("expectations")),
        protocols=_protocols(value("protocol") or ""),
        results_dir=_results_dir(value("results-dir") or DEFAULT_RESULTS_DIR),
        site_url=_site_url(environ.get(SITE_URL_VARIABLE, "").strip()),
    )


def _expectations(text: str | None) -> Path | None:
    if text is None:
        return None
    path = Path(text)
    if not path.is_file():
        raise InputProblem(
            "expectations",
            f"no such file {text} (relative to {Path.cwd()}); write one with "
            f"`deltacheck run --adapter ... --expectations {text} --update-expectations` and commit it",
        )
    return path


def _protocols(text: str) -> tuple[str, ...]:
    """A space- or comma-separated list; each one a protocol deltacheck knows."""
    names = tuple(name for name in re.split(r"[\s,]+", text) if name)
    for name in names:
        if name not in PROTOCOLS:
            raise InputProblem("protocol", f"{name!r} is not one of {', '.join(PROTOCOLS)}")
    return tuple(dict.fromkeys(names))


def _results_dir(text: str) -> Path:
    path = Path(text)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputProblem("results-dir", f"cannot create {text}: {exc.strerror or exc}") from None
    return path


def _site_url(text: str) -> str | None:
    """The results site's address, for links; only an http(s) address without spaces or markup becomes a link."""
    if not text:
        return None
    if not re.fullmatch(r"https?://[^\s()<>\[\]`\"']+", text):
        raise InputProblem(SITE_URL_VARIABLE, f"{text!r} is not an http(s) address", what="environment variable")
    return text.rstrip("/")
