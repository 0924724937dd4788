"""The command line of proxy mode: `run --gateway/--gateway-cmd`, `check-gateway`, and the gateways of `score`."""

from __future__ import annotations

import shlex
import signal
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import click
from rich.table import Table

import deltacheck
from deltacheck.cli.common import Seconds, err, say, say_interrupted
from deltacheck.cli.expectations import check_expectations
from deltacheck.corpus.loader import Corpus
from deltacheck.errors import EnvironmentFailed
from deltacheck.files import locked_for_writing, make_parent_folder, write_text_atomically
from deltacheck.gateways.bundled import BundledGateway, find_route, load_gateways
from deltacheck.gateways.check import check_gateway
from deltacheck.gateways.proxy import GatewaySession, GatewaySpec, default_path, run_gateway
from deltacheck.judge.verdict import PASSING, UNSCORED
from deltacheck.locations import default_results_dir, file_stem
from deltacheck.protocols import PROTOCOLS
from deltacheck.reports.export import render_junit
from deltacheck.running.results import ResultsWriter, read_results

GATEWAY_STARTUP_TIMEOUT = 60.0
DEFAULT_UPSTREAM = PROTOCOLS[0]  # the registry lists the default upstream first


def _in_words(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else "".join(items)


def gateway_options(command):
    """The options of proxy mode, shared by `run` and `check-gateway`."""
    for option in reversed(
        [
            click.option(
                "--gateway",
                "gateway_name",
                metavar="NAME",
                help="Proxy mode: a bundled gateway (adapters/gateways/), or one of its routes "
                "(e.g. litellm-proxy-chat-to-responses).",
            ),
            click.option(
                "--gateway-cmd",
                metavar="COMMAND",
                help="Proxy mode: the command that starts your gateway; {port} is where it must listen on "
                "127.0.0.1, {upstream} the base URL it must call (docs/PROTOCOL.md, Gateways).",
            ),
            click.option(
                "--upstream",
                type=click.Choice(PROTOCOLS),
                default=None,
                help="Proxy mode: the protocol the gateway reads upstream (the fixtures'). "
                f"Default: {DEFAULT_UPSTREAM}.",
            ),
            click.option(
                "--downstream",
                type=click.Choice(PROTOCOLS),
                default=None,
                help="Proxy mode: the protocol the gateway streams to its client.",
            ),
            click.option(
                "--gateway-model",
                default="deltacheck",
                show_default=True,
                help="Proxy mode: the `model` of the client request.",
            ),
            click.option(
                "--gateway-path",
                metavar="PATH",
                default=None,
                help="Proxy mode: the gateway's endpoint (default: "
                f"{_in_words([default_path(p) for p in PROTOCOLS])}, by --downstream).",
            ),
            click.option(
                "--gateway-ready",
                metavar="PATH",
                default=None,
                help="Proxy mode: a path to GET until it answers before the run (default: until the port accepts).",
            ),
        ]
    ):
        command = option(command)
    return command


def wants_gateway(gateway_name: str | None, gateway_cmd: str | None) -> bool:
    return gateway_name is not None or gateway_cmd is not None


@dataclass(frozen=True)
class GatewayChoice:
    """The proxy-mode options as given."""

    name: str | None
    command: str | None
    upstream: str | None
    downstream: str | None
    model: str
    path: str | None
    ready: str | None
    startup_timeout: float | None  # None: the bundled gateway's, else GATEWAY_STARTUP_TIMEOUT


def resolve_spec(choice: GatewayChoice) -> tuple[GatewaySpec, BundledGateway | None, float]:
    """The route to run, its bundled gateway if any, and its startup timeout; usage errors name the option."""
    gateway_name, gateway_cmd, upstream, downstream = choice.name, choice.command, choice.upstream, choice.downstream
    model, path, ready, startup_timeout = choice.model, choice.path, choice.ready, choice.startup_timeout
    if not wants_gateway(gateway_name, gateway_cmd) and (upstream or downstream or path or ready):
        raise click.UsageError(
            "--upstream, --downstream, --gateway-path and --gateway-ready need --gateway or --gateway-cmd"
        )
    if (gateway_name is None) == (gateway_cmd is None):
        raise click.UsageError("give exactly one of --gateway NAME and --gateway-cmd COMMAND")
    if gateway_cmd is not None:
        if downstream is None:
            raise click.UsageError("--gateway-cmd needs --downstream PROTOCOL: the protocol your gateway streams")
        try:
            words = shlex.split(gateway_cmd)
        except ValueError as exc:
            raise click.UsageError(f"--gateway-cmd {gateway_cmd!r}: {exc}") from None
        if not words:
            raise click.UsageError(f"--gateway-cmd {gateway_cmd!r} names no program")
        if not any("{port}" in word for word in words):
            say(
                "warning",
                "yellow",
                "--gateway-cmd has no {port}: the gateway must listen on the port in DELTACHECK_GATEWAY_PORT",
            )
        spec = GatewaySpec(
            name=f"gateway-{program_name(words)}",
            command=tuple(words),
            library=program_name(words),
            upstream=upstream or DEFAULT_UPSTREAM,
            downstream=downstream,
            model=model,
            path=path,
            ready_path=ready,
        )
        return spec, None, startup_timeout or GATEWAY_STARTUP_TIMEOUT
    assert gateway_name is not None  # exactly one of --gateway and --gateway-cmd was given, not --gateway-cmd
    gateways, problems = load_gateways()
    for problem in problems:
        say("gateway problem", "yellow", problem)
    try:
        bundled, spec = find_route(gateways, gateway_name, upstream, downstream)
    except LookupError as exc:
        raise click.UsageError(str(exc)) from None
    return spec, bundled, startup_timeout or bundled.startup_timeout


INTERPRETERS = {"python", "python3", "node", "npx", "deno", "bun", "java", "go", "uv", "uvx", "env", "sh", "bash"}


def program_name(words: list[str]) -> str:
    """The gateway's name from its command: the script an interpreter runs, else the program."""
    for word in words:
        base = word.rsplit("/", 1)[-1]
        if base.startswith("-") or base.split(".")[0] in INTERPRETERS or base.startswith("python3."):
            continue
        return base.rsplit(".", 1)[0] if base.endswith((".py", ".js", ".mjs", ".ts")) else base
    return words[0].rsplit("/", 1)[-1]


@contextmanager
def stopped_on_sigterm() -> Iterator[None]:
    """SIGTERM ends the run as Ctrl-C does, so the gateway process is stopped on the way out."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt()

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def build_env(bundled: BundledGateway | None) -> None:
    if bundled is None:
        return
    try:
        if bundled.ensure_env(log=lambda line: err.print(line, markup=False, highlight=False)):
            err.print(f"{bundled.manifest.env_name}: built", markup=False, highlight=False)
    except EnvironmentFailed as exc:
        raise click.ClickException(str(exc)) from None


def run_route(
    spec: GatewaySpec,
    corpus: Corpus,
    ids: set[str],
    results_path: Path | None,
    timeout: float,
    max_timeouts: int,
    startup_timeout: float,
    session: GatewaySession | None = None,
) -> tuple[Counter[str], dict[str, str], Path]:
    """Run one gateway route over the fixtures of its upstream protocol; write and summarise the results."""
    results_path = results_path or default_results_dir() / f"{file_stem(spec.name)}.jsonl"
    make_parent_folder(results_path)
    fixtures = corpus.select({spec.upstream}, ids)
    verdicts: dict[str, str] = {}
    notes: list[str] = []
    err.print(
        f"{spec.name}: {spec.upstream} upstream, {spec.downstream} downstream on POST {spec.endpoint} "
        f"(the gateway gets up to {startup_timeout:g} s to listen)",
        markup=False,
        highlight=False,
    )
    interrupted = False
    with locked_for_writing(results_path) as handle:
        writer = ResultsWriter(handle)
        writer.header(
            tool="deltacheck",
            tool_version=deltacheck.__version__,
            corpus_version=corpus.version,
            contract_version=deltacheck.CONTRACT_VERSION,
            adapter=spec.describe(),
            timeout=timeout,
        )
        try:
            with stopped_on_sigterm():
                for record in run_gateway(
                    spec, corpus, fixtures, timeout, max_timeouts, startup_timeout, notes, session
                ):
                    writer.record(record.to_json())
                    verdicts[record.verdict.fixture] = record.verdict.verdict
                    if record.verdict.verdict not in PASSING | UNSCORED:
                        say(
                            record.verdict.verdict,
                            "red",
                            f"{record.verdict.fixture} {record.title}: {record.verdict.message}",
                        )
        except KeyboardInterrupt:
            interrupted = True
        writer.footer(interrupted=interrupted)
    for note in notes:
        say("gateway", "red", note)
    if interrupted:
        say_interrupted(spec.name, sum(writer.counts.values()), len(fixtures), "", results_path)
        sys.exit(130)
    _summary(spec, writer.counts, results_path)
    return writer.counts, verdicts, results_path


def _summary(spec: GatewaySpec, counts: Counter[str], results_path: Path) -> None:
    table = Table(title=f"{spec.name}: results in {results_path}", title_justify="left")
    for column in ("upstream → downstream", "passed / scored", "fail", "error", "crash", "timeout", "n/a", "skip"):
        table.add_column(column)
    scored = sum(v for k, v in counts.items() if k not in UNSCORED)
    table.add_row(
        f"{spec.upstream} → {spec.downstream}",
        f"{counts['pass']} / {scored}",
        *(str(counts.get(k, 0)) for k in ("fail", "error", "crash", "timeout", "n/a", "skip")),
    )
    err.print(table)
    if scored and counts["error"] + counts["crash"] + counts["timeout"] == scored:
        say("gateway", "red", f"{spec.name}: no fixture got a judgeable answer; the verdicts say why")


def score_gateways(
    corpus: Corpus, results_dir: Path, timeout: float, max_timeouts: int, names: tuple[str, ...] = ()
) -> tuple[list[Path], list[str]]:
    """Every bundled gateway route (or those named): build the environments, run, write results files.

    Returns the results files written and the routes not run (their environment failed).
    """
    gateways, problems = load_gateways()
    for problem in problems:
        say("gateway problem", "yellow", problem)
    written: list[Path] = []
    not_run: list[str] = list(problems)
    for bundled in gateways:
        specs = [s for s in bundled.specs() if not names or s.name in names or bundled.name in names]
        if not specs:
            continue
        try:
            bundled.ensure_env(log=lambda line: err.print(line, markup=False, highlight=False))
        except EnvironmentFailed as exc:
            say("not run", "red", f"{bundled.name}: {exc}")
            not_run += [s.name for s in specs]
            continue
        with GatewaySession(specs[0], corpus, bundled.startup_timeout) as session:  # one start for all its routes
            for spec in specs:
                path = results_dir / f"{file_stem(spec.name)}.jsonl"
                run_route(spec, corpus, set(), path, timeout, max_timeouts, bundled.startup_timeout, session)
                written.append(path)
    return written, not_run


def run_proxy_mode(
    corpus: Corpus,
    choice: GatewayChoice,
    protocols: tuple[str, ...],
    fixture_ids: tuple[str, ...],
    results_path: Path | None,
    junit_path: Path | None,
    timeout: float,
    max_timeouts: int,
    expectations_path: Path | None,
    expectations,
    update_expectations: bool,
) -> int:
    """`deltacheck run --gateway/--gateway-cmd`: the exit status, as `run` gives it for an adapter."""
    if protocols:
        raise click.UsageError("in proxy mode the fixtures' protocol is --upstream, not --protocol")
    spec, bundled, startup = resolve_spec(choice)
    other = [f.id for f in corpus.fixtures if f.id in fixture_ids and f.protocol != spec.upstream]
    if other:
        raise click.UsageError(
            f"fixture {', '.join(other)} is not {spec.upstream}, the protocol {spec.name} reads upstream"
        )
    build_env(bundled)
    counts, verdicts, results_path = run_route(
        spec, corpus, set(fixture_ids), results_path, timeout, max_timeouts, startup
    )
    if junit_path is not None:
        write_text_atomically(junit_path, render_junit([read_results(results_path)], corpus.version))
    if expectations_path is not None:
        return check_expectations(expectations_path, expectations, spec.name, corpus, verdicts, update_expectations)
    return 1 if sum(v for k, v in counts.items() if k not in PASSING | UNSCORED) else 0


def check_gateway_command(choice: GatewayChoice, corpus: Corpus, timeout: float) -> None:
    spec, bundled, startup_timeout = resolve_spec(choice)
    build_env(bundled)
    err.print(
        f"starting {' '.join(spec.command)}: waiting up to {startup_timeout:g} s for it to listen (--startup-timeout)",
        markup=False,
        highlight=False,
    )
    passed = True
    with stopped_on_sigterm():
        for check in check_gateway(spec, corpus, timeout, startup_timeout):
            passed &= check.passed
            click.echo(
                f"{'PASS' if check.passed else 'FAIL'}  {check.name}" + (f": {check.detail}" if check.detail else "")
            )
    sys.exit(0 if passed else 1)


startup_option = click.option(
    "--startup-timeout",
    type=Seconds(),
    default=None,
    help=f"Seconds the gateway may take to listen (default: the bundled gateway's, else {GATEWAY_STARTUP_TIMEOUT:g}).",
)
