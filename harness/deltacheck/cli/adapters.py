"""`adapters`, `envs`, `check-driver` and `check-gateway`: the implementations and their environments."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.table import Table

from deltacheck.adapter import registered_adapters
from deltacheck.cli.common import (
    Seconds,
    corpus_option,
    err,
    out,
    say,
    split_command,
    startup_timeout_option,
    warn_manifest_problems,
)
from deltacheck.cli.gateway import GatewayChoice, check_gateway_command, gateway_options, startup_option
from deltacheck.corpus.loader import load_corpus
from deltacheck.driver.check import check_driver
from deltacheck.driver.envs import relock as relock_requirements
from deltacheck.driver.external import ExternalAdapter, probe_all
from deltacheck.driver.subprocess_adapter import Hello, SubprocessAdapter
from deltacheck.errors import DriverFailed, EnvironmentFailed, UnknownAdapter
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.pins import outdated as pinned_versions
from deltacheck.pins import read as pin_files
from deltacheck.pins import registries
from deltacheck.running.runner import DEFAULT_TIMEOUT

# -- adapters ------------------------------------------------------------------------------------


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["pretty", "json"]),
    default=None,
    help="Default: pretty on a terminal, json otherwise.",
)
def adapters(fmt: str | None) -> None:
    """List the adapters with their library, version, protocols and capabilities.

    Manifest adapters are described by their driver's hello when their environment exists
    (`deltacheck envs` builds it); listing never builds one.
    """
    warn_manifest_problems()
    registry = registered_adapters()
    external = [factory for factory in registry.values() if isinstance(factory, ExternalAdapter)]
    hellos = dict(zip((e.name for e in external), probe_all(external)))
    described = []
    for name, factory in registry.items():
        if not isinstance(factory, ExternalAdapter):
            described.append(factory.describe())
            continue
        hello = hellos[name]
        entry = factory.describe(hello if isinstance(hello, Hello) else None)
        if isinstance(hello, DriverFailed):
            entry["problem"] = hello.message
        described.append(entry)
    if (fmt or ("pretty" if out.is_terminal else "json")) == "json":
        click.echo(json.dumps(described, indent=2))
        return
    table = Table()
    for column in ("adapter", "library", "version", "protocols", "capabilities", "code path"):
        table.add_column(column, overflow="fold")
    for a in described:
        library = a["library"] or (
            f"driver failed: {a['problem']}" if a.get("problem") else f"(env {a['env']}: run deltacheck envs)"
        )
        table.add_row(
            a["name"],
            library,
            a["version"] or "",
            "\n".join(a["protocols"]),
            ", ".join(a["capabilities"]),
            a["code_path"],
        )
    out.print(table)


# -- envs ----------------------------------------------------------------------------------------


@click.command()
@click.option("--adapter", "adapter_names", multiple=True, help="Only these manifest adapters (default: all).")
@click.option("--rebuild", is_flag=True, help="Rebuild even when the stamp says the environment is up to date.")
@click.option(
    "--relock",
    is_flag=True,
    help="First rewrite each Python adapter's requirements file: its direct pins, then the full set they resolve to.",
)
@click.option(
    "--outdated",
    is_flag=True,
    help="Build nothing: list every pin (Python requirements, package.json, poms and their version properties, "
    "go.mod; adapters and gateways) behind the newest release its registry serves, one line each: file, package, "
    "pinned, newest. Pre-releases are not newer; a second pinned version kept on purpose (an `<adapter>@<tag>`) is "
    "compared with the newest release of its own major. A registry that cannot answer is one line; exit status 0.",
)
@click.option(
    "--frozen",
    is_flag=True,
    help="With --outdated: also the pins kept only so every machine builds the same environment (a requirements "
    "file's frozen section, go.mod's indirect requirements).",
)
def envs(adapter_names: tuple[str, ...], rebuild: bool, relock: bool, outdated: bool, frozen: bool) -> None:
    """Create or update manifest adapters' environments (.venvs/<name>, or the manifest's `setup`).

    With --outdated, list the pins behind the newest release instead.
    """
    if frozen and not outdated:
        raise click.UsageError("--frozen goes with --outdated")
    if outdated and (rebuild or relock):
        raise click.UsageError("--outdated builds nothing: leave out --rebuild and --relock")
    problems = warn_manifest_problems()
    registry = registered_adapters()
    external = {name: f for name, f in registry.items() if isinstance(f, ExternalAdapter)}
    for name in adapter_names:
        if name not in registry:
            raise click.UsageError(str(UnknownAdapter(name, list(registry))))
        if name not in external:
            raise click.UsageError(f"{name!r} runs in-process; it has no environment of its own")
    if outdated:
        _list_outdated(adapter_names, frozen)
        return
    chosen = [external[name] for name in (adapter_names or external)]
    done: set[str] = set()
    failed = False
    for adapter in chosen:
        env_name = adapter.manifest.env_name
        if env_name in done:
            continue
        done.add(env_name)
        users = ", ".join(a.name for a in chosen if a.manifest.env_name == env_name)
        try:
            if relock and adapter.manifest.language == "python":
                path = relock_requirements(
                    adapter.manifest, adapter.envs_dir, log=lambda line: err.print(line, markup=False, highlight=False)
                )
                click.echo(f"{env_name}: re-locked {path}")
            built = adapter.ensure_env(rebuild=rebuild)
        except EnvironmentFailed as exc:
            say("failed", "red", str(exc))
            failed = True
            continue
        click.echo(f"{env_name}: {'built' if built else 'up to date'} (used by {users})")
    # Each driver says what it is once, now, so `deltacheck adapters` can list them without starting any;
    # a driver that cannot start is the run's problem, not the environment's, and is only noted here.
    for adapter, hello in zip(chosen, probe_all(chosen)):
        if isinstance(hello, DriverFailed):
            say("note", "yellow", f"{adapter.name}: its environment is built, but {hello}")
    if failed or problems:
        sys.exit(1)


def _list_outdated(adapter_names: tuple[str, ...], frozen: bool) -> None:
    every = pin_files.bundled_pins(ADAPTERS_DIR, adapter_names)
    pins = [pin for pin in every if frozen or not pin.frozen]
    click.echo(f"asking the registries about {len(pins)} pins ...", err=True)
    outcome = pinned_versions.outdated(pins, registries.PUBLIC)
    for line in pinned_versions.lines(outcome, ADAPTERS_DIR.parent):
        click.echo(line)
    left_out = len(every) - len(pins)
    click.echo(pinned_versions.summary(outcome) + (f" ({left_out} frozen pins left out: --frozen)" if left_out else ""))


# -- check-driver --------------------------------------------------------------------------------


@click.command("check-driver")
@click.option("--adapter-cmd", metavar="COMMAND", required=True, help="The driver command to check.")
@corpus_option
@click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds per fixture.")
@startup_timeout_option
def check_driver_command(adapter_cmd: str, corpus_dir: Path, timeout: float, startup_timeout: float) -> None:
    """Check that a program speaks the driver protocol: handshake, one result per protocol, clean stdout, clean stop."""
    corpus = load_corpus(corpus_dir, check_reference=False)
    passed = True
    # A driver that never says hello would otherwise hold the terminal silently until the timeout.
    click.echo(
        f"starting {adapter_cmd}: waiting up to {startup_timeout:g} s for its hello (--startup-timeout)", err=True
    )
    with SubprocessAdapter(split_command(adapter_cmd), startup_timeout=startup_timeout) as adapter:
        for check in check_driver(adapter, corpus, timeout):
            passed &= check.passed
            click.echo(
                f"{'PASS' if check.passed else 'FAIL'}  {check.name}" + (f": {check.detail}" if check.detail else "")
            )
    sys.exit(0 if passed else 1)


@click.command("check-gateway")
@gateway_options
@corpus_option
@click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds per fixture.")
@startup_option
def check_gateway(
    gateway_name: str | None,
    gateway_cmd: str | None,
    upstream: str | None,
    downstream: str | None,
    gateway_model: str,
    gateway_path: str | None,
    gateway_ready: str | None,
    corpus_dir: Path,
    timeout: float,
    startup_timeout: float | None,
) -> None:
    """Check that a gateway is wired up for proxy mode: it listens, streams the declared protocol, calls the replay, stops."""
    check_gateway_command(
        GatewayChoice(
            gateway_name, gateway_cmd, upstream, downstream, gateway_model, gateway_path, gateway_ready, startup_timeout
        ),
        load_corpus(corpus_dir, check_reference=False),
        timeout,
    )
