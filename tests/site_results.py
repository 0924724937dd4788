"""Small results for the site tests: a corpus of three fixtures (one with a hostile title) scored by the
reference and two miniatures, then `deltacheck site` over them."""

from __future__ import annotations

import copy
from pathlib import Path

from click.testing import CliRunner

from deltacheck.cli import main
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus

HOSTILE_TITLE = 'text with <script>alert("x")</script> & "quotes" is joined'


def hostile_fixture() -> dict:
    fixture = copy.deepcopy(TEXT_FIXTURE)
    fixture["id"] = "DC-H0ST"
    fixture["title"] = HOSTILE_TITLE
    fixture["chunks"][1]["choices"][0]["delta"]["content"] = "<img src=x onerror=alert(1)>\x07"
    fixture["expected"]["choices"][0]["parts"][0]["text"] = "Hel<img src=x onerror=alert(1)>\x07"
    fixture["comment"] = "Joined as CONTRACT.md 3.3 openai-chat rule 2 says."
    return fixture


ADAPTERS = ("reference", "miniature-drops-last-part", "miniature-raises")


def scored(root: Path, adapters: tuple[str, ...] = ADAPTERS) -> tuple[Path, Path]:
    """(corpus, results folder) after `deltacheck score` over the small corpus."""
    corpus = make_corpus(
        root,
        {
            "openai-chat/text.json": TEXT_FIXTURE,
            "openai-chat/tools.json": TOOL_FIXTURE,
            "openai-chat/hostile.json": hostile_fixture(),
        },
    )
    results = root / "results"
    args = ["score", "--corpus", str(corpus), "--results-dir", str(results), "--output", str(root / "REPORT.md")]
    for name in adapters:
        args += ["--adapter", name]
    outcome = CliRunner().invoke(main, args)
    assert outcome.exit_code == 0, outcome.output
    return corpus, results


def build(corpus: Path, results: Path, out: Path, *extra: str) -> Path:
    from deltacheck.reports.inputs import results_files

    files = [str(path) for path in results_files(results)]
    outcome = CliRunner().invoke(main, ["site", *files, "--corpus", str(corpus), "--out", str(out), *extra])
    assert outcome.exit_code == 0, outcome.output
    return out
