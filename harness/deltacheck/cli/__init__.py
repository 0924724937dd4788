"""The `deltacheck` command line: the root group, which imports a command's module only to run it.

`deltacheck --help` must answer at once, so the list of commands and their one-line summaries
lives here, and a command's module (with the harness behind it) is imported when that command is
run or its own help is asked for. `tests/test_cli.py` checks each summary against the command's
docstring.
"""

from __future__ import annotations

import importlib

import click

import deltacheck
from deltacheck.files import FileBusy, OutputUnusable
from deltacheck.locations import BUNDLED_CORPUS

# name: (module, function, the first paragraph of its docstring)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "lint": (
        "deltacheck.cli.corpus",
        "lint",
        "Validate every fixture: schema, tags, ids, chunk shapes, reference agreement.",
    ),
    "run": (
        "deltacheck.cli.scoring",
        "run",
        "Run fixtures through one adapter, or one gateway (proxy mode), and write one JSON line per fixture.",
    ),
    "score": (
        "deltacheck.cli.scoring",
        "score",
        "Run every adapter over the corpus (building manifest adapters' environments first), then write REPORT.md.",
    ),
    "report": (
        "deltacheck.cli.scoring",
        "report",
        "Write REPORT.md, the summary scorecard, from results files (default: every results/*.jsonl).",
    ),
    "site": (
        "deltacheck.cli.site",
        "site",
        "Write the results site (a page per fixture and implementation, badges, JSON) from results files.",
    ),
    "history": (
        "deltacheck.cli.history",
        "history",
        "Score an adapter over releases of its library, one environment per release; --bisect finds when each "
        "finding appeared and was fixed.",
    ),
    "adapters": (
        "deltacheck.cli.adapters",
        "adapters",
        "List the adapters with their library, version, protocols and capabilities.",
    ),
    "envs": (
        "deltacheck.cli.adapters",
        "envs",
        "Create or update manifest adapters' environments (.venvs/<name>, or the manifest's `setup`).",
    ),
    "check-driver": (
        "deltacheck.cli.adapters",
        "check_driver_command",
        "Check that a program speaks the driver protocol: handshake, one result per protocol, clean "
        "stdout, clean stop.",
    ),
    "check-gateway": (
        "deltacheck.cli.adapters",
        "check_gateway",
        "Check that a gateway is wired up for proxy mode: it listens, streams the declared protocol, "
        "calls the replay, stops.",
    ),
    "serve": (
        "deltacheck.cli.corpus",
        "serve",
        "Serve every fixture as SSE on 127.0.0.1, for clients in any language.",
    ),
    "new-id": ("deltacheck.cli.corpus", "new_id", "Print a fixture id no fixture (and no retired fixture) uses."),
    "fuzz": (
        "deltacheck.cli.adequacy",
        "fuzz",
        "Search other valid (and broken) streams of each fixture for one the adapter fails.",
    ),
    "mutants": (
        "deltacheck.cli.adequacy",
        "mutants",
        "Run every mutant over the corpus; print which fixtures kill which mutant, and the kill rate.",
    ),
    "cost": (
        "deltacheck.cli.cost",
        "cost",
        "Time an implementation on the long-stream scenarios (corpus/scenarios) at growing N.",
    ),
    "explain": ("deltacheck.cli.explain", "explain", "Print a fixture as you would paste it into a bug report."),
    "import": (
        "deltacheck.cli.contribute",
        "import_capture",
        "Draft a fixture from a captured stream: raw SSE (`curl -N`), JSON lines of chunks, or a HAR file.",
    ),
    "new": (
        "deltacheck.cli.contribute",
        "new",
        "Scaffold a hand-written fixture: a fresh id, a minimal stream to replace, marked unreviewed.",
    ),
}


def _print_version(ctx: click.Context, _param, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    try:
        corpus_version = (BUNDLED_CORPUS / "VERSION").read_text(encoding="utf-8").strip()
    except OSError:
        corpus_version = "missing"
    click.echo(f"deltacheck {deltacheck.__version__}, corpus {corpus_version}, contract {deltacheck.CONTRACT_VERSION}")
    ctx.exit()


class _Commands(click.Group):
    """The command group. Commands are imported on demand; an output file another run holds is one
    error line, whichever command met it."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            module, function, _ = COMMANDS[name]
            self.add_command(getattr(importlib.import_module(module), function), name)
        return self.commands.get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        # A command not imported yet is shortened from its summary as click shortens a docstring.
        rows = [
            (
                name,
                click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit)
                if name in COMMANDS
                else self.commands[name].get_short_help_str(limit),
            )
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except FileBusy as exc:
            raise click.ClickException(str(exc)) from None
        except OutputUnusable as exc:
            raise click.UsageError(str(exc)) from None


@click.group(cls=_Commands)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the tool, corpus and contract versions.",
)
def main() -> None:
    """Conformance suite for streaming assembly in LLM client libraries."""
