"""`deltacheck fuzz` and `deltacheck mutants`: the commands that test the corpus's teeth."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

import deltacheck
from deltacheck.cli.common import (
    Seconds,
    adapter_cmd_option,
    adapter_option,
    corpus_option,
    err,
    open_adapter,
    say,
    started,
    startup_timeout_option,
    writable_file,
)
from deltacheck.corpus.loader import Corpus, load_corpus
from deltacheck.errors import DriverFailed
from deltacheck.files import locked_for_writing
from deltacheck.protocols import PROTOCOLS

DEFAULT_EXAMPLES = 25


def write_fuzz_results(path: Path, adapter, corpus: Corpus, findings: list, examples: int) -> None:
    with locked_for_writing(path) as handle:
        header = {
            "kind": "header",
            "tool_version": deltacheck.__version__,
            "corpus_version": corpus.version,
            "adapter": adapter.describe(),
            "examples": examples,
        }
        handle.write(json.dumps(header, ensure_ascii=False) + "\n")
        for finding in findings:
            handle.write(json.dumps(finding.to_json(), ensure_ascii=False) + "\n")


def write_mutation_results(path: Path, corpus: Corpus, timeout: float) -> Counter[str]:
    from deltacheck.adequacy.mutants import MUTANTS, run_mutants

    killed: Counter[str] = Counter()
    with locked_for_writing(path) as handle:
        header = {
            "kind": "header",
            "tool_version": deltacheck.__version__,
            "corpus_version": corpus.version,
            "mutants": [m.describe() for m in MUTANTS],
        }
        handle.write(json.dumps(header, ensure_ascii=False) + "\n")
        for record in run_mutants(corpus, timeout):
            killed[record["mutant"]] += int(record["killed"])
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
    return killed


def run_fuzz(adapter, corpus: Corpus, fixtures, examples: int, timeout: float, robustness: bool) -> list:
    from deltacheck.adequacy.fuzz import fuzz_adapter  # hypothesis: imported only when fuzzing

    def progress(finding) -> None:
        if finding.status == "failed":
            say(
                f"{finding.mode} failure",
                "red",
                f"{finding.fixture} ({', '.join(finding.edits)}): {finding.message[:200]}",
            )

    return fuzz_adapter(adapter, corpus, fixtures, examples, timeout, robustness, progress)


def summarize_fuzz(name: str, findings: list) -> None:
    table: dict[tuple[str, str], Counter[str]] = {}
    examples: Counter[tuple[str, str]] = Counter()
    for finding in findings:
        table.setdefault((finding.protocol, finding.mode), Counter())[finding.status] += 1
        examples[(finding.protocol, finding.mode)] += finding.examples
    for (protocol, mode), counts in sorted(table.items()):
        err.print(
            f"{name} {protocol} {mode}: {counts['survived']} fixtures survived, {counts['failed']} failed, "
            f"{counts['not fuzzed']} not fuzzed; {examples[(protocol, mode)]} streams tried"
        )


@click.command()
@adapter_option
@adapter_cmd_option
@corpus_option
@click.option("--protocol", "protocols", multiple=True, type=click.Choice(PROTOCOLS))
@click.option("--fixture", "fixture_ids", multiple=True, metavar="ID")
@click.option(
    "--examples",
    type=click.IntRange(min=1),
    default=DEFAULT_EXAMPLES,
    show_default=True,
    help="Streams tried per fixture and mode.",
)
@click.option("--timeout", type=Seconds(), default=10.0, show_default=True)
@click.option("--robustness/--no-robustness", default=True, show_default=True, help="Also try damaged streams.")
@click.option("--write-fixtures", is_flag=True, help="Save each shrunk invariance counterexample as a new fixture.")
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=writable_file,
    help="Default: results/fuzz-<adapter>.jsonl",
)
@startup_timeout_option
def fuzz(
    adapter_name,
    adapter_cmd,
    corpus_dir,
    protocols,
    fixture_ids,
    examples,
    timeout,
    robustness,
    write_fixtures,
    results_path,
    startup_timeout,
):
    """Search other valid (and broken) streams of each fixture for one the adapter fails."""
    from deltacheck.adequacy.fuzz import counterexample_fixture, write_fixture
    from deltacheck.locations import BUNDLED_CORPUS, CHECKOUT, default_results_dir, file_stem

    if write_fixtures and CHECKOUT is None and Path(corpus_dir).resolve() == BUNDLED_CORPUS.resolve():
        raise click.UsageError(
            "--write-fixtures writes into the corpus: give --corpus DIR (a checkout of the corpus), "
            "not the installed one"
        )
    corpus = load_corpus(corpus_dir)
    unknown = corpus.unknown_ids(fixture_ids)
    if unknown:
        raise click.UsageError(f"no fixture with id {', '.join(unknown)} in {corpus_dir}")
    adapter = open_adapter(adapter_name, adapter_cmd, startup_timeout)
    try:
        with started(adapter):
            findings = run_fuzz(adapter, corpus, corpus.select(protocols, fixture_ids), examples, timeout, robustness)
    except DriverFailed as exc:
        raise click.ClickException(str(exc)) from None
    described = adapter.describe()
    write_fuzz_results(
        results_path or default_results_dir() / f"fuzz-{file_stem(adapter.name)}.jsonl",
        adapter,
        corpus,
        findings,
        examples,
    )
    summarize_fuzz(adapter.name, findings)
    if write_fixtures:
        seeds = corpus.by_id()
        for finding in findings:
            if finding.mode == "invariance" and finding.status == "failed":
                data = counterexample_fixture(
                    corpus,
                    seeds[finding.fixture],
                    finding,
                    f"{adapter.name} ({described['library']} {described['version']})",
                )
                path = write_fixture(corpus, data)
                corpus = load_corpus(corpus_dir)  # the next new id must not collide with this one
                err.print(f"wrote {path} ({data['id']})")
    raise SystemExit(1 if any(f.status == "failed" for f in findings) else 0)


@click.command()
@corpus_option
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=writable_file,
    help="Default: results/mutants.jsonl",
)
def mutants(corpus_dir, results_path):
    """Run every mutant over the corpus; print which fixtures kill which mutant, and the kill rate."""
    from deltacheck.adequacy.mutants import MUTANTS
    from deltacheck.locations import default_results_dir

    corpus = load_corpus(corpus_dir)
    killed = write_mutation_results(results_path or default_results_dir() / "mutants.jsonl", corpus, timeout=5.0)
    for mutant in MUTANTS:
        count = killed[mutant.name]
        say(
            "killed" if count else "SURVIVED",
            "" if count else "red",
            f"{mutant.name}: {count} fixture(s) — {mutant.bug}",
        )
    survivors = [m.name for m in MUTANTS if not killed[m.name]]
    err.print(f"kill rate: {len(MUTANTS) - len(survivors)} / {len(MUTANTS)}")
    raise SystemExit(1 if survivors else 0)
