"""`deltacheck site`: the results site (pages, badges, JSON) from the results files REPORT.md reads."""

from __future__ import annotations

from pathlib import Path

import click

from deltacheck.cli.common import corpus_option, err
from deltacheck.cli.scoring import chosen_inputs, results_dirs_option, site_url_option
from deltacheck.corpus.loader import load_corpus
from deltacheck.errors import InvalidResults
from deltacheck.judge.upstream import load_upstream
from deltacheck.locations import CONTRACT_PATH, default_report
from deltacheck.reports.inputs import read_inputs
from deltacheck.site.facts import SiteFacts
from deltacheck.site.pages import NotASite, build_site


@click.command()
@click.argument("results_files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@results_dirs_option
@corpus_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    show_default="site/ beside REPORT.md",
    help="The folder to write the site to (a site written there before is replaced whole).",
)
@site_url_option
def site(
    results_files: tuple[Path, ...],
    results_dirs: tuple[Path, ...],
    corpus_dir: Path,
    out: Path | None,
    site_url: str | None,
) -> None:
    """Write the results site (a page per fixture and implementation, badges, JSON) from results files.

    It reads what `deltacheck report` reads (default: every results/*.jsonl, with the fuzz, cost and
    mutant results beside them; --results DIR, repeatable, merges several runs' folders) and opens
    from file:// or any static host.
    """
    files = chosen_inputs(results_files, results_dirs)
    out = out or default_report().parent / "site"
    try:
        inputs = read_inputs(files)
    except InvalidResults as exc:
        raise click.ClickException(str(exc)) from None
    upstream = load_upstream()
    for problem in upstream.problems:
        err.print(f"warning: upstream data left out: {problem}", markup=False, highlight=False)
    contract = CONTRACT_PATH.read_text(encoding="utf-8") if CONTRACT_PATH.exists() else ""
    facts = SiteFacts(inputs, load_corpus(corpus_dir, check_reference=False), upstream, contract)
    try:
        count = build_site(facts, out, site_url)
    except (NotASite, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    err.print(f"wrote {out}/index.html ({count} files) from {len(inputs.results)} results file(s)")
