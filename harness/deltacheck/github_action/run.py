"""Run `deltacheck run` in this process, as the command line would run it, and keep its exit status.

The action adds nothing to the run: the same command, options and exit status a maintainer gets
at a terminal. Only an error is reworded, to name the action input it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from deltacheck.github_action.inputs import ActionInputs

RESULTS_FILE = "results.jsonl"
JUNIT_FILE = "junit.xml"


@dataclass(frozen=True)
class RunOutcome:
    exit_code: int
    results_path: Path
    junit_path: Path
    error: str | None = None  # one line, when the run could not start or stopped on an error


def run_arguments(inputs: ActionInputs) -> list[str]:
    """The `deltacheck run` command line the inputs stand for."""
    arguments = ["run"]
    if inputs.adapter is not None:
        arguments += ["--adapter", inputs.adapter]
    if inputs.adapter_cmd is not None:
        arguments += ["--adapter-cmd", inputs.adapter_cmd]
    for name in inputs.protocols:
        arguments += ["--protocol", name]
    arguments += ["--results", str(inputs.results_dir / RESULTS_FILE), "--junit", str(inputs.results_dir / JUNIT_FILE)]
    if inputs.expectations is not None:
        arguments += ["--expectations", str(inputs.expectations)]
    return arguments


def run_deltacheck(inputs: ActionInputs) -> RunOutcome:
    from deltacheck.cli import main  # the whole command line, imported once the inputs are known to be usable

    def outcome(code: int, error: str | None = None) -> RunOutcome:
        return RunOutcome(code, inputs.results_dir / RESULTS_FILE, inputs.results_dir / JUNIT_FILE, error)

    for stale in (inputs.results_dir / RESULTS_FILE, inputs.results_dir / JUNIT_FILE):
        stale.unlink(missing_ok=True)  # a summary is only ever of this run
    try:
        # standalone_mode=False: click hands back its errors instead of printing them with a usage banner
        returned = main.main(args=run_arguments(inputs), prog_name="deltacheck", standalone_mode=False)
    except SystemExit as exit:  # `run` ends with sys.exit(status)
        return outcome(_status(exit.code))
    except click.ClickException as exc:
        return outcome(exc.exit_code, _naming_the_input(exc.format_message(), inputs))
    except click.Abort:
        return outcome(130, "interrupted")
    return outcome(returned if isinstance(returned, int) else 0)


def _status(code: object) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _naming_the_input(message: str, inputs: ActionInputs) -> str:
    """The command line's error, prefixed with the action input whose value it quotes (if one does)."""
    one_line = " ".join(message.split())
    for name, value in inputs.given().items():
        quoted = (repr(value), f"`{value}`", f'"{value}"')  # how the command line's messages quote a value
        if any(form in one_line for form in quoted) or one_line.startswith(f"{value}:"):
            return f"input {name}: {one_line}"
    return f"deltacheck run: {one_line}"
