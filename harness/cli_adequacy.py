"""`deltacheck fuzz` and `deltacheck mutants`: the commands that test the corpus's teeth."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click
from rich.console import Console

import deltacheck
from deltacheck.corpus import DEFAULT_CORPUS, Corpus, load_corpus
from deltacheck.fuzz import FixtureFuzz, counterexample_fixture, fuzz_adapter, write_fixture
from deltacheck.mutants import MUTANTS, run_mutants
from deltacheck.reference import PROTOCOLS

err = Console(stderr=True, highlight=False)
DEFAULT_EXAMPLES = 25


def write_fuzz_results(path: Path, adapter, corpus: Corpus, findings: list[FixtureFuzz], examples: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        header = {"kind": "header", "tool_version": deltacheck.__version__, "corpus_version": corpus.version,
                  "adapter": adapter.describe(), "examples": examples}
        handle.write(json.dumps(header, ensure_ascii=False) + "\n")
        for finding in findings:
            handle.write(json.dumps(finding.to_json(), ensure_ascii=False) + "\n")


def write_mutation_results(path: Path, corpus: Corpus, timeout: float) -> Counter[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    killed: Counter[str] = Counter()
    with path.open("w", encoding="utf-8") as handle:
        header = {"kind": "header", "tool_version": deltacheck.__version__, "corpus_version": corpus.version,
                  "mutants": [m.describe() for m in MUTANTS]}
        handle.write(json.dumps(header, ensure_ascii=False) + "\n")
        for record in run_mutants(corpus, timeout):
            killed[record["mutant"]] += int(record["killed"])
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
    return killed


def run_fuzz(adapter, corpus: Corpus, fixtures, examples: int, timeout: float, robustness: bool) -> list[FixtureFuzz]:
    def progress(finding: FixtureFuzz) -> None:
        if finding.status == "failed":
            err.print(f"[red]{finding.mode} failure[/] {finding.fixture} ({', '.join(finding.edits)}): {finding.message[:200]}")

    return fuzz_adapter(adapter, corpus, fixtures, examples, timeout, robustness, progress)


def summarize_fuzz(name: str, findings: list[FixtureFuzz]) -> None:
    table: dict[tuple[str, str], Counter[str]] = {}
    examples: Counter[tuple[str, str]] = Counter()
    for finding in findings:
        table.setdefault((finding.protocol, finding.mode), Counter())[finding.status] += 1
        examples[(finding.protocol, finding.mode)] += finding.examples
    for (protocol, mode), counts in sorted(table.items()):
        err.print(f"{name} {protocol} {mode}: {counts['survived']} fixtures survived, {counts['failed']} failed, "
                  f"{counts['not fuzzed']} not fuzzed; {examples[(protocol, mode)]} streams tried")


@click.command()
@click.option("--adapter", "adapter_name", required=True, help="Adapter name (see `deltacheck adapters`).")
@click.option("--corpus", "corpus_dir", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_CORPUS,
              show_default="the bundled corpus/")
@click.option("--protocol", "protocols", multiple=True, type=click.Choice(PROTOCOLS))
@click.option("--fixture", "fixture_ids", multiple=True, metavar="ID")
@click.option("--examples", type=int, default=DEFAULT_EXAMPLES, show_default=True, help="Streams tried per fixture and mode.")
@click.option("--timeout", type=float, default=10.0, show_default=True)
@click.option("--robustness/--no-robustness", default=True, show_default=True, help="Also try damaged streams.")
@click.option("--write-fixtures", is_flag=True, help="Save each shrunk invariance counterexample as a new fixture.")
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Default: results/fuzz-<adapter>.jsonl")
def fuzz(adapter_name, corpus_dir, protocols, fixture_ids, examples, timeout, robustness, write_fixtures, results_path):
    """Search other valid (and broken) streams of each fixture for one the adapter fails."""
    from deltacheck.adapter import get_adapter
    from deltacheck.locations import default_results_dir
    from deltacheck.errors import UnknownAdapter

    corpus = load_corpus(corpus_dir)
    try:
        adapter = get_adapter(adapter_name)
    except UnknownAdapter as exc:
        raise click.UsageError(str(exc)) from None
    from deltacheck.cli import _started

    with _started(adapter):
        findings = run_fuzz(adapter, corpus, corpus.select(protocols, fixture_ids), examples, timeout, robustness)
    described = adapter.describe()
    write_fuzz_results(results_path or default_results_dir() / f"fuzz-{adapter.name}.jsonl", adapter, corpus, findings, examples)
    summarize_fuzz(adapter.name, findings)
    if write_fixtures:
        seeds = corpus.by_id()
        for finding in findings:
            if finding.mode == "invariance" and finding.status == "failed":
                data = counterexample_fixture(corpus, seeds[finding.fixture], finding,
                                              f"{adapter.name} ({described['library']} {described['version']})")
                path = write_fixture(corpus, data)
                corpus = load_corpus(corpus_dir)  # the next new id must not collide with this one
                err.print(f"wrote {path} ({data['id']})")
    raise SystemExit(1 if any(f.status == "failed" for f in findings) else 0)


@click.command()
@click.option("--corpus", "corpus_dir", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_CORPUS,
              show_default="the bundled corpus/")
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Default: results/mutants.jsonl")
def mutants(corpus_dir, results_path):
    """Run every mutant over the corpus; print which fixtures kill which mutant, and the kill rate."""
    from deltacheck.locations import default_results_dir

    corpus = load_corpus(corpus_dir)
    killed = write_mutation_results(results_path or default_results_dir() / "mutants.jsonl", corpus, timeout=5.0)
    for mutant in MUTANTS:
        count = killed[mutant.name]
        err.print(f"{'killed' if count else '[red]SURVIVED[/]'} {mutant.name}: {count} fixture(s) — {mutant.bug}")
    survivors = [m.name for m in MUTANTS if not killed[m.name]]
    err.print(f"kill rate: {len(MUTANTS) - len(survivors)} / {len(MUTANTS)}")
    raise SystemExit(1 if survivors else 0)
