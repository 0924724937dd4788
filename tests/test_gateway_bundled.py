"""The bundled gateways (adapters/gateways/) and how REPORT.md shows gateway routes.

The LiteLLM proxy and claude-code-router tests start the real gateway; they skip, saying why, when
its environment is not built (`deltacheck run --gateway NAME` or `deltacheck score` builds it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltacheck.corpus.loader import load_corpus
from deltacheck.gateways.proxy import run_gateway
from deltacheck.gateways.bundled import BadGateway, _read, find_route, load_gateways
from deltacheck.reports.scorecard import render_report
from deltacheck.running.results import read_results

GAP = "DC-8499"


def test_the_bundled_gateways_load_with_their_routes():
    gateways, problems = load_gateways()
    assert problems == []
    names = {name for g in gateways for name in g.route_names()}
    assert {"litellm-proxy-chat-to-chat", "litellm-proxy-chat-to-anthropic", "litellm-proxy-chat-to-responses",
            "litellm-proxy-responses-to-responses", "litellm-proxy-gemini-to-chat", "litellm-proxy-gemini-to-anthropic",
            "claude-code-router-chat-to-anthropic"} <= names
    litellm = next(g for g in gateways if g.name == "litellm-proxy")
    assert litellm.manifest.env_name == "litellm_proxy"  # not the litellm adapter's environment
    assert "litellm==1.110.2" in (litellm.folder / "requirements.txt").read_text()


def test_a_route_is_found_by_its_name_or_by_gateway_and_downstream():
    gateways, _ = load_gateways()
    _, spec = find_route(gateways, "litellm-proxy", "openai-chat", "openai-responses")
    assert spec.name == "litellm-proxy-chat-to-responses" and spec.model == "deltacheck-responses-bridge"
    _, spec = find_route(gateways, "claude-code-router-chat-to-anthropic", None, None)
    assert spec.endpoint == "/v1/messages"
    with pytest.raises(LookupError, match="none of them matches"):
        find_route(gateways, "claude-code-router", None, "openai-responses")
    with pytest.raises(LookupError, match="name one, or narrow it"):
        find_route(gateways, "litellm-proxy", None, "openai-responses")  # from Chat and from Responses


@pytest.mark.parametrize("definition, words", [
    ("[]", "not a JSON object"),
    ("{", "not readable JSON"),
    ('{"name": "x", "library": "x", "version": "1", "language": "python", "command": ["x"], "routes": []}',
     "/requirements"),
    ('{"name": "x", "library": "x", "version": "1", "language": "node", "command": ["x"], "routes": '
     '[{"upstream": "openai-chat", "downstream": "grpc"}]}', "/routes/0/downstream"),
    ('{"name": "x", "library": "x", "version": "1", "language": "node", "command": [], "routes": []}', "/command"),
])
def test_a_bad_gateway_definition_is_one_message_naming_the_field(tmp_path, definition, words):
    folder = tmp_path / "gateways" / "bad"
    folder.mkdir(parents=True)
    (folder / "gateway.json").write_text(definition)
    with pytest.raises(BadGateway, match="gateways/bad/gateway.json: .*" + words.replace("/", "/")):
        _read(folder / "gateway.json")


def _route(name: str):
    gateways, _ = load_gateways()
    bundled, spec = find_route(gateways, name, None, None)
    if not bundled.env_ready():
        pytest.skip(f"{bundled.manifest.env_name} is not built (deltacheck run --gateway {name} builds it)")
    return bundled, spec


# Gemini fixtures every translation judges (no signature-only subject, so never n/a): parallel calls, two candidates,
# cumulative usage.
GEMINI_SAMPLE = ("DC-5TE4", "DC-PGS9", "DC-Q5TG")


@pytest.mark.parametrize("route", ["litellm-proxy-chat-to-chat", "litellm-proxy-chat-to-anthropic",
                                   "litellm-proxy-chat-to-responses", "litellm-proxy-responses-to-responses",
                                   "litellm-proxy-gemini-to-chat", "litellm-proxy-gemini-to-anthropic",
                                   "claude-code-router-chat-to-anthropic"])
def test_a_bundled_gateway_starts_and_every_fixture_it_answers_is_judged(route):
    bundled, spec = _route(route)
    corpus = load_corpus()
    if spec.upstream == "gemini":
        fixtures = [f for f in corpus.select({spec.upstream}, set()) if f.id in GEMINI_SAMPLE]
    else:
        fixtures = [f for f in corpus.select({spec.upstream}, set())
                    if f.id in (GAP, "DC-JMED") or "parallel-calls" in f.tags][:3]
    assert fixtures
    notes: list[str] = []
    records = list(run_gateway(spec, corpus, fixtures, 30.0, 5, bundled.startup_timeout, notes))
    assert notes == []
    for record in records:
        assert record.verdict.verdict in ("pass", "fail"), record.verdict.message
        assert "validity" in record.verdict.axes
        assert record.verdict.observed is not None  # the downstream stream was assembled


def test_report_gives_each_gateway_route_its_own_row_with_its_translation_pair(tmp_path):
    header = {"kind": "header", "format": 1, "corpus_version": "1.3.0", "adapter": {
        "name": "litellm-proxy-chat-to-responses", "library": "litellm (proxy server)", "version": "1.110.2",
        "protocols": ["openai-chat"], "capabilities": ["usage"], "capability_notes": {"refusal": "x", "events": "y"},
        "code_path": "proxy", "gateway": {"upstream": "openai-chat", "downstream": "openai-responses",
                                          "endpoint": "/v1/responses"}}}
    records = [
        {"kind": "result", "fixture": GAP, "adapter": "litellm-proxy-chat-to-responses", "protocol": "openai-chat",
         "verdict": "fail", "axes": {"identity": True, "validity": False}, "message": "invalid downstream stream: x"},
        {"kind": "result", "fixture": "DC-JMED", "adapter": "litellm-proxy-chat-to-responses", "protocol": "openai-chat",
         "verdict": "pass", "axes": {"content": True, "validity": True}},
        {"kind": "footer", "counts": {}, "interrupted": False}]
    path = tmp_path / "litellm-proxy-chat-to-responses.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [header, *records]) + "\n")
    report = render_report([read_results(path)], "1.3.0", 1)
    assert "## Gateways" in report
    row = next(line for line in report.splitlines() if line.startswith("| [litellm-proxy-chat-to-responses](") and "openai-chat →" in line)
    # score, spec violations, their verdicts, strictness, compatibility, policy divergence, passed, n/a, skip
    assert row == ("| [litellm-proxy-chat-to-responses](site/implementations/litellm-proxy-chat-to-responses.html) "
                   "| openai-chat → openai-responses | 1 / 2 | 1 | 1 / 0 / 0 / 0 "
                   "| 0 | 0 | 0 | 1 | 0 | 0 | 1 / 2 | refusal |")
    assert render_report([read_results(path)], "1.3.0", 1) == report  # the same results, the same bytes


def test_report_has_no_gateways_section_without_gateway_results(tmp_path):
    path = tmp_path / "reference.jsonl"
    path.write_text(json.dumps({"kind": "header", "adapter": {"name": "reference"}}) + "\n")
    assert "## Gateways" not in render_report([read_results(path)], "1.3.0", 1)


def test_score_runs_the_gateway_routes_and_reports_each_pair_as_its_own_row(tmp_path, monkeypatch):
    """`deltacheck score` with a gateway definition for the in-repo mini gateway (no environment to build)."""
    from click.testing import CliRunner

    import sys as _sys

    from deltacheck.cli import gateway as cli_gateway
    from deltacheck.cli import main

    folder = tmp_path / "gateways" / "mini"
    folder.mkdir(parents=True)
    mini = Path(__file__).resolve().parent / "gateways" / "mini_gateway.py"
    (folder / "gateway.json").write_text(json.dumps({
        "name": "mini", "library": "tests/gateways/mini_gateway.py", "version": "0", "language": "node",
        "command": [_sys.executable, str(mini), "--port", "{port}", "--upstream", "{upstream}", "--writer", "weave"],
        "routes": [{"upstream": "openai-chat", "downstream": "openai-responses"},
                   {"upstream": "openai-chat", "downstream": "anthropic-messages"}]}))
    monkeypatch.setattr(cli_gateway, "load_gateways", lambda: load_gateways(tmp_path / "gateways"))
    from deltacheck.gateways import proxy as gateway_module

    starts = tmp_path / "starts"  # a file: the gateways may run in a worker process of score's
    original_start = gateway_module.GatewayProcess.start
    monkeypatch.setattr(gateway_module.GatewayProcess, "start",
                        lambda self: (starts.open("a").write("start\n"), original_start(self)))
    results, report = tmp_path / "results", tmp_path / "REPORT.md"
    outcome = CliRunner().invoke(main, ["score", "--adapter", "reference", "--gateway", "mini", "--examples", "0",
                                        "--results-dir", str(results), "--output", str(report)])
    assert outcome.exit_code == 0, outcome.output
    text = report.read_text()
    assert "| [mini-chat-to-responses](site/implementations/mini-chat-to-responses.html) | openai-chat → openai-responses |" in text
    assert "| [mini-chat-to-anthropic](site/implementations/mini-chat-to-anthropic.html) | openai-chat → anthropic-messages |" in text
    # each failure's message is on the route's page of the site
    site = tmp_path / "site"
    files = [str(p) for p in sorted(results.glob("*.jsonl")) if not p.name.startswith(("fuzz-", "cost-", "mutants"))]
    assert CliRunner().invoke(main, ["site", *files, "--out", str(site)]).exit_code == 0
    page = (site / "implementations" / "mini-chat-to-responses.html").read_text()
    assert "response.completed output omits output_index 1 (function_call lookup)" in page  # the weave writer, killed
    assert starts.read_text() == "start\n"  # one gateway process serves both routes
