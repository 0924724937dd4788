"""Proxy mode, end to end, against the tiny in-repo gateway (tests/gateways/mini_gateway.py).

The mini gateway translates OpenAI Chat upstream into Chat, Responses or Anthropic downstream; with
`--writer weave` it is the weave-os/router ResponsesWriter of seed 001, whose `response.completed`
output drops a call past a gap in the upstream indices. DC-8499 is that gap.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from deltacheck.gateways.proxy import GatewaySpec, run_gateway

MINI = Path(__file__).resolve().parent / "gateways" / "mini_gateway.py"
GAP = "DC-8499"  # two calls at upstream indices 0 and 2
TEXT, TOOL_CALL = "DC-JMED", "DC-0PNK"  # plain text; one tool call at index 0


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


def mini(downstream: str, *extra: str, name: str = "mini") -> GatewaySpec:
    return GatewaySpec(name=name, command=(sys.executable, str(MINI), "--port", "{port}", "--upstream", "{upstream}",
                                           *extra), upstream="openai-chat", downstream=downstream)


def run(corpus, spec: GatewaySpec, ids, timeout: float = 10.0, startup: float = 10.0, notes=None):
    fixtures = [f for f in corpus.fixtures if f.id in ids]
    return {r.verdict.fixture: r.verdict for r in run_gateway(spec, corpus, fixtures, timeout, 5, startup, notes)}


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


# -- the seed router's bug, in proxy terms --------------------------------------------------------


def test_the_weave_router_writer_is_killed_by_the_index_gap_on_the_downstream_responses_output(corpus):
    verdict = run(corpus, mini("openai-responses", "--writer", "weave"), [GAP])[GAP]
    assert verdict.verdict == "fail"
    assert verdict.axes["validity"] is False
    assert "response.completed output omits output_index 1 (function_call lookup)" in verdict.message


def test_the_weave_router_writer_passes_without_a_gap_so_the_gap_is_what_kills_it(corpus):
    verdicts = run(corpus, mini("openai-responses", "--writer", "weave"), [TEXT, TOOL_CALL])
    assert {v.verdict for v in verdicts.values()} == {"pass"}


@pytest.mark.parametrize("downstream", ["openai-chat", "openai-responses", "anthropic-messages"])
def test_a_faithful_gateway_keeps_both_calls_of_the_gap_in_every_downstream_protocol(corpus, downstream):
    verdict = run(corpus, mini(downstream), [GAP])[GAP]
    assert verdict.verdict == "pass", verdict.message
    assert verdict.axes["validity"] is True
    assert verdict.axes["identity"] is True


def test_translation_is_judged_on_the_shared_view_with_fields_without_counterpart_listed(corpus):
    verdict = run(corpus, mini("anthropic-messages"), [GAP])[GAP]
    assert "refusal" in verdict.na and "item_id" in verdict.na and "multiple_choices" in verdict.na
    assert verdict.observed["choices"][0]["finish_reason"] == "tool_use"  # Anthropic's own word, mapped to tool_calls


# -- the gateway's own failures -------------------------------------------------------------------


def test_a_gateway_that_exits_at_start_gets_an_error_per_fixture_and_an_overall_note(corpus):
    notes: list[str] = []
    verdicts = run(corpus, mini("openai-responses", "--misbehave", "exit"), [TEXT, GAP], notes=notes)
    assert {v.verdict for v in verdicts.values()} == {"error"}
    assert all("exited with status 3 before listening" in v.message for v in verdicts.values())
    assert "no configuration, giving up" in verdicts[TEXT].message  # its own last words
    assert len(notes) == 1 and "did not start" in notes[0]


def test_a_gateway_command_that_does_not_exist_is_an_error_per_fixture(corpus):
    spec = GatewaySpec(name="nothing", command=("/nonexistent/gateway", "{port}"), upstream="openai-chat",
                       downstream="openai-chat")
    verdicts = run(corpus, spec, [TEXT, GAP])
    assert {v.verdict for v in verdicts.values()} == {"error"}
    assert verdicts[GAP].message == "the gateway did not start: cannot start `/nonexistent/gateway {port}`: " \
                                    "No such file or directory"


def test_a_gateway_that_never_listens_gets_an_error_naming_the_startup_timeout(corpus):
    verdicts = run(corpus, mini("openai-responses", "--misbehave", "never-listen"), [TEXT], startup=1.0)
    assert verdicts[TEXT].verdict == "error"
    assert "did not listen on its 127.0.0.1 port" in verdicts[TEXT].message and "--startup-timeout" in verdicts[TEXT].message


@pytest.mark.parametrize("misbehave, downstream, verdict, words", [
    ("http-500", "openai-responses", "error", "answered HTTP 500: {\"error\": {\"message\": \"mini gateway"),
    ("json-body", "openai-responses", "error", "answered with a non-stream body (content-type 'application/json')"),
    ("wrong-protocol", "openai-responses", "error", "it streams openai-chat, not the declared openai-responses"),
    ("no-done", "openai-chat", "fail", "invalid downstream stream: the stream ends without data: [DONE]"),
    ("unstopped-block", "anthropic-messages", "fail", "message_delta while block(s) [0] are open"),
])
def test_a_misbehaving_gateway_gets_a_verdict_with_one_clear_message(corpus, misbehave, downstream, verdict, words):
    got = run(corpus, mini(downstream, "--misbehave", misbehave), [TEXT])[TEXT]
    assert got.verdict == verdict
    assert words in got.message
    assert "\n" not in got.message


def test_a_stream_that_ends_when_the_gateway_closes_the_connection_is_read_whole(corpus):
    verdict = run(corpus, mini("openai-responses", "--misbehave", "close-delimited"), [GAP])[GAP]
    assert verdict.verdict == "pass", verdict.message


def test_a_flooding_gateway_is_cut_off_with_an_error(corpus):
    verdict = run(corpus, mini("openai-chat", "--misbehave", "flood"), [TEXT], timeout=30.0)[TEXT]
    assert verdict.verdict == "error"
    assert verdict.message.startswith("streamed more than 16777216 bytes and was cut off")


def test_a_hanging_gateway_times_out_and_the_run_stops_asking_after_max_timeouts(corpus):
    spec = mini("openai-responses", "--misbehave", "hang")
    fixtures = [f for f in corpus.fixtures if f.protocol == "openai-chat"][:3]
    records = list(run_gateway(spec, corpus, fixtures, 0.5, 2, 10.0))
    assert [r.verdict.verdict for r in records] == ["timeout", "timeout", "skip"]
    assert "--max-timeouts" in records[2].verdict.message


def test_the_gateway_process_is_gone_after_the_run_and_after_an_interruption(corpus, monkeypatch):
    from deltacheck.gateways import proxy as gateway_module

    started = []
    original = gateway_module.GatewayProcess.start

    def remember(self):
        original(self)
        started.append(self.port)

    monkeypatch.setattr(gateway_module.GatewayProcess, "start", remember)
    fixtures = [f for f in corpus.fixtures if f.id in (TEXT, TOOL_CALL)]
    list(run_gateway(mini("openai-chat"), corpus, fixtures, 10.0, 5, 10.0))
    records = run_gateway(mini("openai-chat"), corpus, fixtures, 10.0, 5, 10.0)
    next(records)
    assert listening(started[-1])
    records.close()
    assert started and not any(listening(port) for port in started)


# -- the command line -----------------------------------------------------------------------------


def command(*extra: str) -> str:
    return " ".join([sys.executable, str(MINI), "--port", "{port}", "--upstream", "{upstream}", *extra])


def test_run_gateway_cmd_writes_a_results_file_whose_header_names_the_translation(tmp_path):
    results = tmp_path / "weave.jsonl"
    outcome = CliRunner().invoke(main, ["run", "--gateway-cmd", command("--writer", "weave"), "--downstream",
                                        "openai-responses", "--fixture", GAP, "--results", str(results)])
    assert outcome.exit_code == 1, outcome.output
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[0]["adapter"]["name"] == "gateway-mini_gateway"
    assert lines[0]["adapter"]["gateway"] == {"upstream": "openai-chat", "downstream": "openai-responses",
                                              "endpoint": "/v1/responses"}
    assert lines[1]["verdict"] == "fail" and "(function_call lookup)" in lines[1]["message"]
    assert lines[-1]["kind"] == "footer"


@pytest.mark.parametrize("args, words", [
    (["--gateway-cmd", "x"], "--gateway-cmd needs --downstream"),
    (["--gateway-cmd", "x", "--downstream", "openai-chat", "--adapter", "reference"], "not both"),
    (["--gateway-cmd", "x", "--downstream", "openai-chat", "--protocol", "openai-chat"], "--upstream, not --protocol"),
    (["--gateway", "no-such-gateway"], "no bundled gateway 'no-such-gateway'"),
    (["--gateway", "litellm-proxy"], "name one, or narrow it with --upstream/--downstream"),
    (["--gateway-cmd", "", "--downstream", "openai-chat"], "--gateway-cmd '' names no program"),
    (["--gateway-cmd", "gw 'unclosed", "--downstream", "openai-chat"], "No closing quotation"),
    (["--adapter", "reference", "--downstream", "openai-chat"], "need --gateway or --gateway-cmd"),
])
def test_run_proxy_mode_usage_errors_name_the_option(args, words):
    outcome = CliRunner().invoke(main, ["run", *args])
    assert outcome.exit_code == 2
    assert words in outcome.output


def test_run_refuses_a_fixture_of_another_protocol_than_the_upstream(corpus):
    responses = next(f for f in corpus.fixtures if f.protocol == "openai-responses").id
    outcome = CliRunner().invoke(main, ["run", "--gateway-cmd", "x", "--downstream", "openai-chat", "--fixture", responses])
    assert outcome.exit_code == 2
    assert f"fixture {responses} is not openai-chat, the protocol gateway-x reads upstream" in outcome.output


def test_check_gateway_passes_a_faithful_gateway_and_fails_one_that_does_not_start():
    good = CliRunner().invoke(main, ["check-gateway", "--gateway-cmd", command(), "--downstream", "openai-responses"])
    assert good.exit_code == 0, good.output
    assert "FAIL" not in good.output and good.output.count("PASS") == 5
    bad = CliRunner().invoke(main, ["check-gateway", "--gateway-cmd", command("--misbehave", "exit"),
                                    "--downstream", "openai-responses"])
    assert bad.exit_code == 1
    assert "FAIL  starts and listens on 127.0.0.1: the gateway exited with status 3" in bad.output


def test_check_gateway_fails_a_gateway_that_streams_another_protocol():
    outcome = CliRunner().invoke(main, ["check-gateway", "--gateway-cmd", command("--misbehave", "wrong-protocol"),
                                        "--downstream", "anthropic-messages"])
    assert outcome.exit_code == 1
    assert "it streams openai-chat, not the declared anthropic-messages" in outcome.output


def interruptible(args: list[str]) -> list[str]:
    """`args` started with Ctrl-C's default disposition, as a terminal starts a command. A shell without job
    control starts background jobs (a CI step, `make test &`) with SIGINT ignored, every process they start
    inherits that across exec, and Python then installs no KeyboardInterrupt handler: SIGINT would do nothing."""
    reset = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
    return [sys.executable, "-c", reset, *args]


@pytest.mark.parametrize("ignored_here", [False, True], ids=["as-a-terminal-starts-it", "sigint-ignored-by-the-suite"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_the_run_records_what_was_done_and_stops_the_gateway(tmp_path, sig, ignored_here):
    pidfile, results = tmp_path / "gateway.pid", tmp_path / "results.jsonl"
    deltacheck = Path(sys.executable).with_name("deltacheck")
    # ignored_here: the suite itself started as a background job, SIGINT ignored (the flaky `[2]` of issue 21)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignored_here else None
    try:
        run = subprocess.Popen(interruptible([str(deltacheck), "run", "--gateway-cmd",
                                              command("--misbehave", "hang", "--pidfile", str(pidfile)),
                                              "--downstream", "openai-responses", "--timeout", "60",
                                              "--results", str(results)]),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 20
    while not pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # the first request is now hanging in the gateway
    gateway_pid = int(pidfile.read_text())
    run.send_signal(sig)
    assert run.wait(timeout=20) == 130
    with pytest.raises(ProcessLookupError):
        os.kill(gateway_pid, 0)
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[-1] == {**lines[-1], "kind": "footer", "interrupted": True}
    assert b"Traceback" not in run.stderr.read()


def test_hostile_text_from_a_gateway_is_printed_as_one_plain_line(corpus):
    from deltacheck.gateways.judge import Capture, judge_gateway

    fixture = corpus.by_id()[TEXT]
    body = b"\x1b[31m[bold]boom[/bold]\x1b[0m\nsecond line\x07"
    verdict = judge_gateway(fixture, "openai-chat", "openai-responses", Capture(500, "text/plain", body), corpus, 10.0)
    assert verdict.message.startswith("answered HTTP 500: [bold]boom[/bold] second line")
    assert "\x1b" not in verdict.message and "\n" not in verdict.message and "\x07" not in verdict.message


def test_check_gateway_fails_a_lost_call_but_only_names_a_usage_difference():
    from deltacheck.gateways.check import _carries
    from deltacheck.judge.verdict import Verdict

    lost = Verdict("DC-0PNK", "openai-chat", "fail", "/choices/0/parts/1: expected tool_call, missing",
                   axes={"identity": False, "usage": True, "validity": True})
    usage_only = Verdict("DC-0PNK", "openai-chat", "fail", "/usage: expected null, got {}",
                         axes={"identity": True, "usage": False, "validity": True})
    invalid = Verdict("DC-0PNK", "openai-chat", "fail", "invalid downstream stream: x",
                      axes={"identity": True, "validity": False})
    assert _carries("x", lost).passed is False
    assert _carries("x", invalid).passed is False
    check = _carries("x", usage_only)
    assert check.passed is True and "will fail it on usage" in check.detail
