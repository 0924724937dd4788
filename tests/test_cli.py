"""The root command group lists every command from its own table, and the table tells the truth."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import click
import click.testing

from deltacheck.cli import COMMANDS, main


def _first_paragraph(command: click.Command) -> str:
    return " ".join(inspect.cleandoc(command.help or "").split("\n\n")[0].split())


def test_each_listed_summary_is_the_first_paragraph_of_its_commands_docstring() -> None:
    for name, (module, function, summary) in COMMANDS.items():
        command = getattr(importlib.import_module(module), function)
        assert isinstance(command, click.Command), name
        assert command.name == name, f"{module}.{function} is the command {command.name!r}, listed as {name!r}"
        assert summary == _first_paragraph(command), name


def test_every_command_defined_in_a_cli_module_is_listed() -> None:
    modules = {module for module, _, _ in COMMANDS.values()}
    listed = {(module, function) for module, function, _ in COMMANDS.values()}
    for module in modules:
        for function, value in vars(importlib.import_module(module)).items():
            if isinstance(value, click.Command) and getattr(value.callback, "__module__", None) == module:
                assert (module, function) in listed, f"{module}.{function} is a command `deltacheck --help` does not list"


def test_help_imports_no_command_module() -> None:
    """What makes `--help` quick: only the root group is imported."""
    code = ("import sys; from click.testing import CliRunner; from deltacheck.cli import main; "
            "CliRunner().invoke(main, ['--help']); "
            "print(sorted(m for m in sys.modules if m.startswith(('deltacheck.cli_', 'deltacheck.corpus.loader', 'jsonschema', "
            "'hypothesis', 'rich'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_a_command_runs_through_the_lazy_group() -> None:
    outcome = click.testing.CliRunner().invoke(main, ["lint"])
    assert outcome.exit_code == 0 and "fixtures OK" in outcome.output
