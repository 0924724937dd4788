"""The documents say what the code does: citations use the current corpus version, commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.loader import DEFAULT_CORPUS

CHECKOUT = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md", "docs/API.md", "docs/PROTOCOL.md", "corpus/README.md"]


def test_citations_in_the_documents_use_the_current_corpus_version():
    version = (DEFAULT_CORPUS / "VERSION").read_text().strip()
    stale = [(doc, cite) for doc in DOCUMENTS
             for cite in re.findall(r"DC-[0-9A-Z]{4}@(\d+\.\d+\.\d+)", (CHECKOUT / doc).read_text())
             if cite != version]
    assert stale == []


def test_every_deltacheck_command_and_option_the_readme_shows_exists():
    readme = (CHECKOUT / "README.md").read_text()
    shell = "\n".join(re.findall(r"```(?:sh|yaml)\n(.*?)```", readme, re.S))
    lines = re.findall(r"(?:^|run: )deltacheck ([a-z-]+)([^\n#]*)", shell, re.M)
    assert len(lines) > 10
    for command, rest in lines:
        help_text = CliRunner().invoke(main, [command, "--help"])
        assert help_text.exit_code == 0, f"`deltacheck {command}` in README.md: {help_text.output}"
        for option in re.findall(r"(?<![\w-])(--[a-z-]+)", rest):
            assert option in help_text.output, f"README.md shows `deltacheck {command} {option}`; --help does not list it"


def test_every_harness_file_the_documents_name_exists():
    documents = [*DOCUMENTS, "CONTRIBUTING.md", "CONTRACT.md", "docs/ARCHITECTURE.md"]
    named = {(doc, path) for doc in documents
             for path in re.findall(r"\bharness/[\w./]*\w", (CHECKOUT / doc).read_text())}
    assert len(named) > 5
    missing = sorted((doc, path) for doc, path in named if not (CHECKOUT / path).exists())
    assert missing == []


def test_every_assembly_rule_of_the_contract_says_what_it_rests_on():
    contract = (CHECKOUT / "CONTRACT.md").read_text()
    rules = contract.split("\n### 3.3 ", 1)[1].split("\n### 3.4 ", 1)[0]
    items = re.findall(r"^(\d+)\. (.*?)(?=^\d+\. |^\S|\Z)", rules, re.S | re.M)
    assert len(items) >= 25
    without = [(number, text[:60]) for number, text in items
               if not text.startswith("**[policy]**") and not re.search(r"\bBasis:\s+(documented|observed)\b", text)]
    assert without == []
    for section in ("## 2. ", "### 3.1 ", "### 3.2 "):  # the general rules fixtures cite
        body = contract.split("\n" + section, 1)[1].split("\n#", 1)[0]
        assert "Basis: " in body, section
