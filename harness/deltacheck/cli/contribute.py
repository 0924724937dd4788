"""`deltacheck import` and `deltacheck new`: draft a fixture for the contributor to review."""

from __future__ import annotations

from pathlib import Path

import click

from deltacheck.cli.common import corpus_option, err
from deltacheck.contributing.drafting import (
    BadCapture,
    DraftFailed,
    draft_from_capture,
    draft_new,
    fixture_path,
    write_draft,
)
from deltacheck.corpus.loader import load_corpus
from deltacheck.protocols import PROTOCOLS

title_option = click.option("--title", help="The behaviour the fixture shows, stated as a fact (8-90 characters).")
tag_option = click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="TAG",
    help="A tag from corpus/tags.json (repeatable); default: tags the drafted result shows.",
)
source_option = click.option(
    "--source", help="Where the stream comes from (provider, gateway, date, or documentation section)."
)
output_option = click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the fixture (default: fixtures/<protocol>/<title>.json in the --corpus checkout; "
    "with the corpus an installed deltacheck carries, <title>.json in the current directory).",
)


def _check_options(corpus, title: str | None, tags: tuple[str, ...]) -> None:
    unknown = [t for t in tags if t not in corpus.tags]
    if unknown:
        raise click.BadParameter(
            f"unknown tag(s) {', '.join(unknown)} (vocabulary: {corpus.root / 'tags.json'})", param_hint="--tag"
        )
    if title is not None and not 8 <= len(title) <= 90:
        raise click.BadParameter(f"{len(title)} characters; a title has 8 to 90", param_hint="--title")


def _write(corpus, data, output: Path | None, titled: bool = True) -> None:
    path = fixture_path(corpus, data, output, titled)
    try:
        write_draft(data, path)
    except DraftFailed as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(str(path))
    err.print(
        f"drafted {data['id']} ({data['protocol']}, {len(data['chunks'])} chunks"
        + (", with its own SSE bytes" if "sse" in data else "")
        + "), marked unreviewed: check `expected` "
        "against the provider's documented semantics, write its `basis`, set title and tags, delete `unreviewed`, "
        "then run deltacheck lint",
        markup=False,
    )


@click.command("import")
@click.argument("capture", type=click.Path(dir_okay=False, path_type=Path))
@corpus_option
@title_option
@tag_option
@source_option
@output_option
@click.option(
    "--keep-text",
    is_flag=True,
    help="Keep free text (message text, reasoning, argument values) as captured: for text you own. Ids, "
    "model names and fingerprints are still replaced; API keys and bearer tokens are never written.",
)
def import_capture(
    capture: Path,
    corpus_dir: Path,
    title: str | None,
    tags: tuple[str, ...],
    source: str | None,
    output: Path | None,
    keep_text: bool,
) -> None:
    """Draft a fixture from a captured stream: raw SSE (`curl -N`), JSON lines of chunks, or a HAR file.

    The protocol is detected, the stream redacted (ids, model names, fingerprints and free text replaced,
    the same value always by the same replacement, fragment cut points kept), and the exact SSE bytes
    kept when the framing differs from what the harness would render. `expected` is drafted by the
    reference and the fixture marked unreviewed: lint refuses it until you have checked it. The draft goes
    into the corpus's fixtures/<protocol>/ (installed, with the bundled corpus: the current directory).
    """
    corpus = load_corpus(corpus_dir, check_reference=False)
    _check_options(corpus, title, tags)
    try:
        data = draft_from_capture(corpus, capture, title=title, tags=tags, source=source, keep_text=keep_text)
    except (BadCapture, DraftFailed) as exc:
        raise click.ClickException(str(exc)) from None
    _write(corpus, data, output, titled=title is not None)


@click.command()
@click.option("--protocol", required=True, type=click.Choice(PROTOCOLS), help="The stream format.")
@click.option("--title", required=True, help="The behaviour the fixture shows, stated as a fact (8-90 characters).")
@tag_option
@source_option
@output_option
@corpus_option
def new(
    protocol: str, title: str, tags: tuple[str, ...], source: str | None, output: Path | None, corpus_dir: Path
) -> None:
    """Scaffold a hand-written fixture: a fresh id, a minimal stream to replace, marked unreviewed.

    The draft goes into the corpus's fixtures/<protocol>/ (installed, with the bundled corpus: the current
    directory).
    """
    corpus = load_corpus(corpus_dir, check_reference=False)
    _check_options(corpus, title, tags)
    _write(corpus, draft_new(corpus, protocol, title, tags, source), output)
