"""`history`: an adapter scored over many releases of its library, and `--bisect`: when each finding
appeared and when it was fixed."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import click

from deltacheck.cli.common import Seconds, corpus_option, say
from deltacheck.corpus.loader import load_corpus
from deltacheck.errors import EnvironmentFailed
from deltacheck.history.scoring import score_release
from deltacheck.history.spec import BadVersionSpec, parse_spec, resolve
from deltacheck.history.store import SCORED
from deltacheck.history.sweep import History, bisect_document, summary_line, write_bisect
from deltacheck.history.target import NoHistory, find_target
from deltacheck.locations import default_results_dir, file_stem
from deltacheck.pins.registries import RegistryUnavailable, served
from deltacheck.running.runner import DEFAULT_MAX_TIMEOUTS, DEFAULT_TIMEOUT


@click.command()
@click.option(
    "--adapter", "adapter_name", required=True, metavar="NAME", help="A manifest adapter (Python, Node, JVM or Go)."
)
@click.option(
    "--versions",
    "spec",
    required=True,
    metavar="SPEC",
    help="Releases of the adapter's library: a list (1.40.0,2.0.1), a range (>=1.40,<4), all, or latest:N.",
)
@click.option(
    "--bisect",
    "bisecting",
    is_flag=True,
    help="Score only the releases a binary search needs to find, per finding, the first release showing it "
    "and the first fixing it (releases already recorded are reused); writes bisect.json.",
)
@click.option(
    "--results",
    "results_root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="results/history",
    help="Where each release's results go: <DIR>/<adapter>/<version>.jsonl.",
)
@click.option(
    "--package",
    default=None,
    metavar="NAME",
    help="The pin each release replaces (default: the adapter's library, the direct pin its name starts with).",
)
@corpus_option
@click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds per fixture.")
@click.option(
    "--max-timeouts",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_TIMEOUTS,
    show_default=True,
    help="After this many timeouts in a row, the rest of a release's fixtures are recorded as skipped.",
)
def history(
    adapter_name: str,
    spec: str,
    bisecting: bool,
    results_root: Path | None,
    package: str | None,
    corpus_dir: Path,
    timeout: float,
    max_timeouts: int,
) -> None:
    """Score an adapter over releases of its library, one environment per release; --bisect finds when each finding appeared and was fixed.

    Each release's results go to results/history/<adapter>/<version>.jsonl; a release that cannot be
    installed, or whose driver cannot start, is recorded there with the reason.
    """
    try:
        target = find_target(adapter_name, package)
        parsed = parse_spec(target.ecosystem, spec)
    except (NoHistory, BadVersionSpec) as exc:
        raise click.UsageError(str(exc)) from None
    try:
        available: list[str] = list(served(target.ecosystem, target.package).versions)
    except RegistryUnavailable as exc:
        if parsed.kind != "list":
            raise click.ClickException(
                f"--versions {spec}: cannot ask {target.ecosystem} for {target.package}: {exc}"
            ) from None
        say("warning", "yellow", f"{target.ecosystem} did not answer ({exc}); the versions listed are taken as given")
        available = list(parsed.versions)
    try:
        versions = resolve(target.ecosystem, parsed, available, target.package)
    except BadVersionSpec as exc:
        raise click.UsageError(str(exc)) from None
    root = results_root or default_results_dir() / "history"
    corpus = load_corpus(corpus_dir)
    score = partial(score_release, target, corpus=corpus, root=root, timeout=timeout, max_timeouts=max_timeouts)
    run = History(target, versions, root, corpus.version, lambda version: score(version))
    say(
        "history",
        "cyan",
        f"{target.adapter}: {target.package} ({target.ecosystem}), {len(versions)} release(s): {versions[0]} … {versions[-1]}",
    )
    try:
        if not bisecting:
            releases = run.sweep()
            unscorable = [r for r in releases if r.status != SCORED]
            say(
                "done",
                "green",
                f"{len(releases) - len(unscorable)} release(s) scored, {len(unscorable)} recorded as unscorable, in {root / file_stem(target.adapter)}",
            )
            return
        newest, bisected, bisector = run.bisect()
    except EnvironmentFailed as exc:
        raise click.ClickException(str(exc)) from None
    document = bisect_document(run, newest, bisected, bisector)
    path = write_bisect(root / file_stem(target.adapter), document)
    if newest is None:
        raise click.ClickException(f"{target.adapter}: no release in {spec!r} could be scored ({path})")
    click.echo(
        f"{target.adapter}: newest scored release {newest}; {len(document['probed'])} release(s) read, {len(run.scored_now)} scored now"
    )
    for entry in document["findings"]:
        click.echo(summary_line(entry))
    for entry in document["unscorable"]:
        click.echo(f"unscorable: {entry['version']} ({entry['status']}): {entry['reason']}")
    if not document["findings"]:
        click.echo("no findings")
    sys.stdout.flush()
