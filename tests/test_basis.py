"""Every fixture names what its expected result rests on, and lint refuses a basis it cannot back."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.basis import contract_sections
from deltacheck.corpus.loader import DEFAULT_CORPUS, load_corpus
from deltacheck.protocols import all_protocols
from tests.corpus_builder import TEXT_FIXTURE, fixture, make_corpus

CHAT_DOCS = "OpenAI chat completion chunk object (https://platform.openai.com/docs/api-reference/chat-streaming/streaming)"


def basis_problems(tmp_path, basis=None, **changes):
    """(field, message) of each problem lint finds in a text fixture with this basis (or none, for None)."""
    data = fixture(TEXT_FIXTURE, **changes)
    if basis is None:
        del data["basis"]
    else:
        data["basis"] = basis
    root = Path(tempfile.mkdtemp(dir=tmp_path))  # a corpus of its own for every call
    corpus = load_corpus(make_corpus(root, {"openai-chat/text.json": data}))
    assert all(p.path.endswith("openai-chat/text.json") and p.fixture_id == "DC-T3ST" for p in corpus.problems)
    return [(p.field, p.message) for p in corpus.problems]


def test_every_bundled_fixture_names_its_basis_and_observed_ones_their_servers():
    corpus = load_corpus(check_reference=False)
    assert corpus.problems == []
    kinds = {f.basis["kind"] for f in corpus.fixtures}
    assert kinds == {"documented", "observed", "policy"}
    for f in corpus.fixtures:
        assert ("servers" in f.basis) == (f.basis["kind"] == "observed"), f.id
        assert set(f.basis.get("servers", ())) <= set(corpus.servers), f.id


def test_each_protocol_names_a_provider_whose_documentation_the_vocabulary_lists():
    servers = json.loads((DEFAULT_CORPUS / "servers.json").read_text())
    assert {p.provider for p in all_protocols()} == {"openai", "anthropic", "gemini", "bedrock"}
    for spec in all_protocols():
        assert servers[spec.provider]["documentation"], spec.name


def test_a_well_founded_basis_of_each_kind_passes(tmp_path):
    assert basis_problems(tmp_path, {"kind": "documented", "source": CHAT_DOCS}) == []
    assert basis_problems(tmp_path, {"kind": "observed", "source": "vllm-project/vllm#1: sent so", "servers": ["vllm"]}) == []
    assert basis_problems(tmp_path, {"kind": "policy", "source": "CONTRACT.md 3.3 openai-chat rule 2"}) == []


def test_a_fixture_without_a_basis_is_refused_saying_what_to_write(tmp_path):
    ((field, message),) = basis_problems(tmp_path, None)
    assert field == "/" and "'basis' is a required property" in message and "corpus/README.md, Basis" in message


def test_an_observed_basis_without_servers_is_refused(tmp_path):
    observed = {"kind": "observed", "source": "a report of some server"}
    assert [f for f, _ in basis_problems(tmp_path, observed)] == ["/basis/servers"]
    assert [f for f, _ in basis_problems(tmp_path, {**observed, "servers": []})] == ["/basis/servers"]


def test_an_observed_basis_naming_an_unknown_server_is_refused(tmp_path):
    problems = basis_problems(tmp_path, {"kind": "observed", "source": "a report of it", "servers": ["vllm", "vLLM-0.9"]})
    assert problems == [("/basis/servers/1", "unknown server 'vLLM-0.9' (vocabulary: corpus/servers.json)")]


@pytest.mark.parametrize("kind, source", [("documented", CHAT_DOCS), ("policy", "CONTRACT.md 3.3 openai-chat rule 2")])
def test_servers_on_a_basis_that_is_not_observed_are_refused(tmp_path, kind, source):
    ((field, message),) = basis_problems(tmp_path, {"kind": kind, "source": source, "servers": ["openai"]})
    assert field == "/basis/servers" and "only an observed basis names servers" in message


@pytest.mark.parametrize("source", ["the contract decides this", "CONTRACT 3.3 openai-chat rule 2", "CONTRACT.md rule 2"])
def test_a_policy_basis_that_names_no_contract_section_is_refused(tmp_path, source):
    ((field, message),) = basis_problems(tmp_path, {"kind": "policy", "source": source})
    assert field == "/basis/source" and "names the CONTRACT.md section" in message


def test_a_policy_basis_citing_a_section_the_contract_lacks_is_refused(tmp_path):
    assert {"2", "3.3", "4"} <= contract_sections()
    problems = basis_problems(tmp_path, {"kind": "policy", "source": "CONTRACT.md 3.9 openai-chat rule 2"})
    assert problems == [("/basis/source", "CONTRACT.md has no section 3.9")]


@pytest.mark.parametrize(
    "source",
    [
        "OpenAI's chat completion chunk object, which keys choices by index",  # no URL at all
        "Gemini OpenAI compatibility (https://ai.google.dev/gemini-api/docs/openai)",  # another vendor's page
        "Anthropic streaming guide (https://platform.claude.com/docs/en/build-with-claude/streaming)",  # the other provider
        "https://platform.openai.com.example/docs/x, a look-alike host",
    ],
)
def test_a_documented_basis_without_the_providers_documentation_url_is_refused(tmp_path, source):
    ((field, message),) = basis_problems(tmp_path, {"kind": "documented", "source": source})
    assert field == "/basis/source" and "cites openai's documentation of its stream by URL" in message


def test_the_documentation_a_basis_cites_is_the_one_of_the_fixtures_protocol(tmp_path):
    anthropic = json.loads((DEFAULT_CORPUS / "fixtures" / "anthropic-messages" / "text-in-several-deltas.json").read_text())
    corpus = load_corpus(make_corpus(tmp_path, {"anthropic-messages/text.json": {**anthropic, "basis": {
        "kind": "documented", "source": CHAT_DOCS}}}))
    assert [(p.field, "anthropic's documentation" in p.message) for p in corpus.problems] == [("/basis/source", True)]


def test_a_drafts_placeholder_is_one_problem_until_it_is_decided(tmp_path):
    problems = basis_problems(tmp_path, {"kind": "observed", "source": "TODO: what the result rests on", "servers": []})
    assert problems == [("/basis", "not decided: say what the expected result rests on, documented, observed or "
                                    "policy (corpus/README.md, Basis), and replace the TODO source with its citation")]


def test_a_vocabulary_without_a_protocols_provider_is_a_problem_of_its_own(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE})
    servers = json.loads((root / "servers.json").read_text())
    del servers["anthropic"]
    (root / "servers.json").write_text(json.dumps(servers))
    problems = [str(p) for p in load_corpus(root).problems]
    assert problems == [f"{root / 'servers.json'}: <no id>: /: no entry for 'anthropic', "
                        "the provider of the protocol anthropic-messages"]


def test_a_malformed_vocabulary_is_named_and_its_servers_unknown(tmp_path):
    root = make_corpus(tmp_path, {"openai-chat/text.json": fixture(TEXT_FIXTURE, basis={
        "kind": "observed", "source": "vllm-project/vllm#1", "servers": ["vllm"]})})
    (root / "servers.json").write_text(json.dumps({"vllm": {"description": "vLLM's server"}}))
    fields = sorted((p.path.rsplit("/", 1)[-1], p.field) for p in load_corpus(root).problems)
    assert fields == [("servers.json", "/vllm"), ("text.json", "/basis/servers/0")]


def test_lint_prints_one_line_per_basis_problem_naming_the_file(tmp_path):
    root = make_corpus(tmp_path, {
        "openai-chat/a.json": fixture(TEXT_FIXTURE, id="DC-000A", basis={"kind": "observed", "source": "a report of a server"}),
        "openai-chat/b.json": fixture(TEXT_FIXTURE, id="DC-000B", basis={"kind": "policy", "source": "our own choice"}),
    })
    outcome = CliRunner().invoke(main, ["lint", "--corpus", str(root)])
    assert outcome.exit_code == 1
    lines = [line for line in outcome.output.splitlines() if "/basis" in line]
    assert len(lines) == 2
    assert lines[0].startswith("corpus/fixtures/openai-chat/a.json: DC-000A: /basis/servers: an observed basis lists")
    assert lines[1].startswith("corpus/fixtures/openai-chat/b.json: DC-000B: /basis/source: a policy basis names")
