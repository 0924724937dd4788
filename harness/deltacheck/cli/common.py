"""What several commands share: the adapter and corpus options, checked option values, opening the
adapter they name, and the consoles."""

from __future__ import annotations

import math
import os
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from deltacheck.corpus.loader import DEFAULT_CORPUS, layout_problem
from deltacheck.driver.subprocess_adapter import DEFAULT_STARTUP_TIMEOUT, SubprocessAdapter
from deltacheck.errors import ManifestProblem
from deltacheck.running.shards import Shard

# Library and fixture text is never parsed as markup (a message may contain "[/choices]"): colour
# is given explicitly, as in `say`. The consoles `err` and `out` are made on first use (see
# `__getattr__`): `lint` prints plain lines and need not import rich.
CONSOLES: dict[str, dict[str, Any]] = {
    "err": {"stderr": True, "highlight": False, "markup": False},
    "out": {"highlight": False, "soft_wrap": True, "markup": False},
}


def __getattr__(name: str):
    if name not in CONSOLES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rich.console import Console  # noqa: PLC0415

    made = globals()[name] = Console(**CONSOLES[name])
    return made


def console(name: str):
    """`err` or `out`, made if this is its first use."""
    return globals().get(name) or __getattr__(name)


class Seconds(click.ParamType):
    """A positive, finite number of seconds (click.FloatRange would let nan and inf through)."""

    name = "seconds"

    def convert(self, value, param, ctx) -> float:
        seconds = click.FLOAT.convert(value, param, ctx)
        if not 0 < seconds < math.inf:  # false for nan too
            self.fail(f"{value} is not allowed: it must be a positive number of seconds", param, ctx)
        return seconds


def _corpus_dir(ctx: click.Context, param: click.Parameter, value: Path) -> Path:
    """Refuse a missing or non-corpus directory up front: one usage error, not an empty or broken run."""
    if not value.is_dir():
        raise click.BadParameter(f"{value}: no such directory", ctx, param)
    unusable = layout_problem(value)
    if unusable is not None:
        raise click.BadParameter(f"{value}: {unusable}", ctx, param)
    return value


def writable_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """Check an output file option before any work: its folder is made (as the writer would) and writable."""
    if value is None:
        return value
    try:
        value.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        existing = next((p for p in value.parents if p.exists()), value.parent)
        why = f"{existing} is a file" if not existing.is_dir() else exc.strerror or str(exc)
        raise click.BadParameter(f"{value}: cannot create its folder ({why})", ctx, param) from None
    if value.is_dir() or not os.access(value.parent, os.W_OK) or (value.exists() and not os.access(value, os.W_OK)):
        raise click.BadParameter(f"{value}: not a writable file", ctx, param)
    return value


corpus_option = click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_CORPUS,
    show_default="the bundled corpus/",
    callback=_corpus_dir,
    help="Corpus directory.",
)
adapter_option = click.option(
    "--adapter",
    "adapter_name",
    metavar="NAME|MODULE:CLASS|FILE.py:CLASS",
    help="A bundled adapter (see `deltacheck adapters`), or your own Adapter subclass as MODULE:CLASS "
    "(importable from the current directory or PYTHONPATH) or path/to/file.py:CLASS.",
)
adapter_cmd_option = click.option(
    "--adapter-cmd",
    metavar="COMMAND",
    help="A driver command speaking the protocol (docs/PROTOCOL.md); its hello names it.",
)
startup_timeout_option = click.option(
    "--startup-timeout",
    type=Seconds(),
    default=DEFAULT_STARTUP_TIMEOUT,
    show_default=True,
    help="Seconds a driver may take to answer `start`.",
)


def split_command(command: str) -> list[str]:
    words = shlex.split(command)
    if not words:
        raise click.UsageError(f"--adapter-cmd {command!r} names no program")
    return words


def open_adapter(adapter_name: str | None, adapter_cmd: str | None, startup_timeout: float = DEFAULT_STARTUP_TIMEOUT):
    """The adapter --adapter or --adapter-cmd names (exactly one of them); a usage error names what is wrong."""
    from deltacheck.adapter import get_adapter
    from deltacheck.errors import BadAdapterSpec, EnvironmentFailed, UnknownAdapter

    if (adapter_name is None) == (adapter_cmd is None):
        raise click.UsageError("give exactly one of --adapter NAME and --adapter-cmd COMMAND")
    if adapter_cmd is not None:
        return SubprocessAdapter(split_command(adapter_cmd), startup_timeout=startup_timeout)
    assert adapter_name is not None  # exactly one of the two was given, and it was not --adapter-cmd
    try:
        return get_adapter(adapter_name)
    except (UnknownAdapter, BadAdapterSpec) as exc:
        raise click.UsageError(str(exc)) from None
    except EnvironmentFailed as exc:
        raise click.ClickException(str(exc)) from None


@contextmanager
def started(adapter, stop: Callable[[SubprocessAdapter], None] = SubprocessAdapter.close) -> Iterator[None]:
    """Start a subprocess adapter before anything is written (a bad driver is one clear error); `stop` it after."""
    if not isinstance(adapter, SubprocessAdapter):
        yield
        return
    adapter.start()
    try:
        yield
    finally:
        stop(adapter)


def say(label: str, style: str, text: str) -> None:
    """A coloured label, then text printed as plain text (never parsed as markup) on stderr."""
    from rich.text import Text

    line = Text(label, style=style)
    line.append(" " + text)
    console("err").print(line, highlight=False)


def say_interrupted(name: str, recorded: int, total: int, running: str, results_path: Path) -> None:
    """After Ctrl-C (or SIGTERM where a run turns it into one): one line saying so, never the summary table of a run that ended."""
    during = f", during {running}" if running else ""
    say(
        "interrupted",
        "red",
        f"{name}: the run was stopped{during}; {recorded} of {total} fixture(s) recorded in {results_path} "
        "(marked interrupted); no summary",
    )


def warn_manifest_problems() -> list[ManifestProblem]:
    """Say each problem of the adapter manifests, as a warning; the run goes on without those entries."""
    from deltacheck.adapter import manifest_problems  # noqa: PLC0415 - the registry is not needed by every command

    problems = manifest_problems()
    for problem in problems:
        say("manifest problem", "yellow", str(problem))
    return problems


class ShardParam(click.ParamType):
    name = "I/N"

    def convert(self, value, param, ctx) -> Shard:
        if isinstance(value, Shard):
            return value
        try:
            return Shard.parse(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


shard_option = click.option(
    "--shard",
    type=ShardParam(),
    default=None,
    help="Score only shard I of N (e.g. 2/3) of the jobs, the same on every machine, into --results-dir; "
    "no REPORT.md: merge the shards with `deltacheck report --results DIR --results DIR ...`.",
)
