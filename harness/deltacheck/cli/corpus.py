"""`lint`, `serve` and `new-id`: the corpus itself."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from deltacheck.cli.common import console, corpus_option
from deltacheck.corpus.loader import load_corpus
from deltacheck.protocols import PROTOCOLS

# -- lint ----------------------------------------------------------------------------------------


@click.command()
@corpus_option
def lint(corpus_dir: Path) -> None:
    """Validate every fixture: schema, tags, ids, chunk shapes, reference agreement."""
    corpus = load_corpus(corpus_dir)
    for problem in corpus.problems:
        click.echo(str(problem))
    total = len(corpus.fixtures) + len({p.path for p in corpus.problems})
    if corpus.problems:
        click.echo(
            f"{sum(p.stands_for for p in corpus.problems)} problem(s) in {len({p.path for p in corpus.problems})} "
            f"of {total} file(s)",
            err=True,
        )
        sys.exit(1)
    counts = Counter(f.protocol for f in corpus.fixtures)
    click.echo(
        f"corpus {corpus.version}: {len(corpus.fixtures)} fixtures OK ("
        + ", ".join(f"{p} {counts[p]}" for p in PROTOCOLS)
        + ")"
    )


@click.command()
@corpus_option
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Loopback port (0: any free port)."
)
def serve(corpus_dir: Path, port: int) -> None:
    """Serve every fixture as SSE on 127.0.0.1, for clients in any language."""
    import time

    from deltacheck.running.serve import LOOPBACK, start_server

    corpus = load_corpus(corpus_dir)
    try:
        server = start_server(
            corpus.fixtures, port, log=lambda line: console("err").print(line, markup=False, highlight=False)
        )
    except OSError as exc:  # most often: the port is in use
        raise click.ClickException(f"--port {port}: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    host, bound = LOOPBACK, server.server_port  # the address start_server bound, and the port it got
    example = corpus.fixtures[0].id if corpus.fixtures else "DC-XXXX"
    console("err").print(
        f"serving {len(corpus.fixtures)} fixtures; base URL http://{host}:{bound}/<FIXTURE-ID>/v1 "
        f"(e.g. http://{host}:{bound}/{example}/v1); Ctrl-C stops",
        markup=False,
        highlight=False,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()


@click.command("new-id")
@corpus_option
def new_id(corpus_dir: Path) -> None:
    """Print a fixture id no fixture (and no retired fixture) uses."""
    from deltacheck.adequacy.fuzz import new_fixture_id

    click.echo(new_fixture_id(load_corpus(corpus_dir, check_reference=False)))
