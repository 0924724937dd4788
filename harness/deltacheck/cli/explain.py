"""`deltacheck explain`: a fixture for a bug report, what a library did with it, and a reproduction."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from deltacheck.cli.common import (
    Seconds,
    adapter_cmd_option,
    adapter_option,
    console,
    corpus_option,
    open_adapter,
    out,
    split_command,
    started,
    startup_timeout_option,
)
from deltacheck.contributing.explain import Explanation, render_markdown, render_text, served_request
from deltacheck.contributing.repro import REPRO_LANGUAGES
from deltacheck.corpus.loader import Corpus, load_corpus
from deltacheck.errors import DriverFailed, EnvironmentFailed
from deltacheck.model import Fixture
from deltacheck.running.runner import DEFAULT_TIMEOUT, run_fixtures


def load_fixture(corpus_dir: Path, fixture_id: str) -> tuple[Corpus, Fixture]:
    corpus = load_corpus(corpus_dir, check_reference=False)
    fixture = corpus.by_id().get(fixture_id)
    if fixture is None:
        problems = [p for p in corpus.problems if p.fixture_id == fixture_id]
        if problems:
            raise click.ClickException("this fixture does not load: " + "; ".join(map(str, problems)))
        # a usage error (exit 2), as `run` and `fuzz` say of an unknown fixture
        raise click.UsageError(f"no fixture with id {fixture_id} in {corpus_dir}")
    return corpus, fixture


@click.command()
@click.argument("fixture_id")
@corpus_option
@adapter_option
@adapter_cmd_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="markdown: ready to paste into an issue (citation first, fenced JSON, the raw stream collapsed).",
)
@click.option(
    "--repro",
    "repro_language",
    type=click.Choice(list(REPRO_LANGUAGES)),
    help="Instead, print a standalone script that feeds this fixture's bytes to the library of --adapter "
    "(default: the provider's own SDK in that language; a MODULE:CLASS or file.py:CLASS adapter is inlined) "
    "or to the driver of --adapter-cmd (python only), prints what it assembled and exits 1 where it diverges.",
)
@click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds for the run.")
@startup_timeout_option
def explain(
    fixture_id: str,
    corpus_dir: Path,
    adapter_name: str | None,
    adapter_cmd: str | None,
    fmt: str,
    repro_language: str | None,
    timeout: float,
    startup_timeout: float,
) -> None:
    """Print a fixture as you would paste it into a bug report.

    With --adapter (or --adapter-cmd) the fixture is run through that adapter, and the library's name
    and exact version, the verdict, the observed result, the first divergence and the full diff are added.
    """
    corpus, fixture = load_fixture(corpus_dir, fixture_id)
    if repro_language is not None:
        from deltacheck.contributing.repro import ReproUnavailable, reproduction

        if adapter_name is not None and adapter_cmd is not None:
            raise click.UsageError("give at most one of --adapter NAME and --adapter-cmd COMMAND")
        command = split_command(adapter_cmd) if adapter_cmd is not None else None
        try:
            script = reproduction(
                fixture, corpus.cite(fixture.id), repro_language, adapter_name, command, startup_timeout
            )
        except ReproUnavailable as exc:
            raise click.UsageError(str(exc)) from None
        if fmt == "markdown":  # for an issue: the script in a fenced block
            from deltacheck.contributing.explain import fence

            script = fence(script, "python" if repro_language == "python" else "js") + "\n"
        click.echo(script, nl=False)
        return
    explanation = Explanation(fixture, corpus.cite(fixture.id))
    if adapter_name is not None or adapter_cmd is not None:
        explanation = _run(corpus, fixture, adapter_name, adapter_cmd, timeout, startup_timeout)
    if fmt == "markdown":
        served = served_request(fixture, explanation.adapter)
        out.print(render_markdown(explanation, served.sse, served.binary), markup=False, end="")
    else:
        out.print(render_text(explanation), markup=False)


def _run(
    corpus: Corpus,
    fixture: Fixture,
    adapter_name: str | None,
    adapter_cmd: str | None,
    timeout: float,
    startup_timeout: float,
) -> Explanation:
    adapter = open_adapter(adapter_name, adapter_cmd, startup_timeout)
    try:
        with started(adapter):
            if fixture.protocol not in adapter.protocols:
                raise click.UsageError(
                    f"fixture {fixture.id} is {fixture.protocol}, which adapter {adapter.name!r} "
                    f"does not speak (it speaks {', '.join(sorted(adapter.protocols))})"
                )
            (record,) = run_fixtures(adapter, corpus, [fixture], timeout)
            described = adapter.describe()
    except (EnvironmentFailed, DriverFailed) as exc:
        raise click.ClickException(str(exc)) from None
    return Explanation(
        fixture,
        corpus.cite(fixture.id),
        described,
        record.verdict,
        findings=_findings_upstream(described.get("name", ""), record.verdict.to_json()),
        reproduce=reproduce_commands(fixture.id, adapter_name, adapter_cmd),
    )


def _findings_upstream(adapter: str, record: dict) -> tuple:
    """Each finding the run shows, with what the library's tracker says of it (the bundled upstream data)."""
    from deltacheck.judge.findings import distinct_findings
    from deltacheck.judge.upstream import load_upstream

    upstream = load_upstream()
    for problem in upstream.problems:
        console("err").print(f"warning: upstream data left out: {problem}", markup=False, highlight=False)
    return tuple((finding, tuple(upstream.of(adapter, finding))) for finding in distinct_findings([record]))


def reproduce_commands(fixture_id: str, adapter_name: str | None, adapter_cmd: str | None) -> tuple[str, ...]:
    """This explanation's command, and the standalone script's where one can be written (not JVM or Go adapters)."""
    if adapter_name is None:
        given = f"--adapter-cmd {shlex.quote(str(adapter_cmd))}"
        return (
            f"deltacheck explain {fixture_id} {given} --format markdown",
            f"deltacheck explain {fixture_id} {given} --repro python",
        )
    commands = [f"deltacheck explain {fixture_id} --adapter {adapter_name} --format markdown"]
    from deltacheck.adapter import is_adapter_spec, registered_adapters
    from deltacheck.driver.external import ExternalAdapter

    if is_adapter_spec(adapter_name):
        return (*commands, f"deltacheck explain {fixture_id} --adapter {shlex.quote(adapter_name)} --repro python")
    factory = registered_adapters().get(adapter_name)
    if isinstance(factory, ExternalAdapter) and factory.manifest.language in REPRO_LANGUAGES:
        language = factory.manifest.language
        commands.append(f"deltacheck explain {fixture_id} --adapter {adapter_name} --repro {language}")
    return tuple(commands)
