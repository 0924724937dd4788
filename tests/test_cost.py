"""The cost axis: scenario specs, generated streams, judging long results, fitting, the budget, the report.

No test here asserts on wall time: timings are synthetic where a test needs them.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from deltacheck.adapter import CAPABILITIES, get_adapter_factory
from deltacheck.cli import main
from tests import miniatures
from deltacheck.corpus.loader import DEFAULT_CORPUS, fast_result_check, result_validator
from deltacheck.cost.timing import (Implementation, Point, fitted_exponent, known_cause, measure_scenario, size_over,
                             stop_reason, time_at)
from deltacheck.reports.cost import BEGIN, END, differences, render_cost, render_cost_summary, split_cost
from deltacheck.cost.long_streams import Scenario, streamed_shapes
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble
from deltacheck.reports.scorecard import render_report
from deltacheck.cost.scenarios import ScenarioSpec, load_scenarios
from deltacheck.judge.verdict import Returned, judge
from tests.corpus_builder import TEXT_FIXTURE, make_corpus

VALIDATOR = result_validator(DEFAULT_CORPUS)
STREAMED = [(protocol, shape) for protocol in PROTOCOLS for shape in streamed_shapes(protocol)]
FAST_CHECK = fast_result_check(DEFAULT_CORPUS)


def spec(protocol="openai-chat", shape="tool", sizes=(100, 300), scenario_id="chat-tool", size=4) -> ScenarioSpec:
    return ScenarioSpec(scenario_id, "a test scenario", protocol, shape, size, tuple(sizes), "corpus/scenarios/x.json")


# -- scenario specs and lint -----------------------------------------------------------------------


def test_the_bundled_scenarios_cover_every_protocol_and_shape_and_lint_clean():
    specs, problems = load_scenarios(DEFAULT_CORPUS)
    assert [str(p) for p in problems] == []
    four_calls = {"openai-chat": "tools4-interleaved", "openai-responses": "tools4", "anthropic-messages": "tools4",
                  "gemini": "tools4", "bedrock-converse": "tools4"}
    assert {(s.protocol, s.shape) for s in specs} == {(p, shape) for p in PROTOCOLS
                                                      for shape in ("text", "tool", four_calls[p])}
    assert all(10_000 in s.sizes for s in specs)  # the report quotes times at 10k fragments


def scenario_corpus(tmp_path: Path, files: dict[str, object]) -> Path:
    root = make_corpus(tmp_path, {"openai-chat/text.json": TEXT_FIXTURE})
    (root / "scenarios").mkdir()
    for name, content in files.items():
        (root / "scenarios" / name).write_text(content if isinstance(content, str) else json.dumps(content))
    return root


GOOD = {"id": "chat-tool", "title": "one long tool call", "protocol": "openai-chat", "shape": "tool",
        "fragment_size": 4, "sizes": [1000, 10000]}


@pytest.mark.parametrize("name, content, field, message", [
    ("chat-tool.json", "{not json", "/", "not JSON"),
    ("chat-tool.json", {**GOOD, "shape": "spiral"}, "/shape", "'spiral' is not one of"),
    ("chat-tool.json", {**GOOD, "sizes": [1000]}, "/sizes", "too short"),
    ("chat-tool.json", {**GOOD, "sizes": [1000, 1000]}, "/sizes", "must increase strictly"),
    ("chat-tool.json", {**GOOD, "chunks": []}, "/", "Additional properties"),
    ("other-name.json", GOOD, "/id", "is named chat-tool.json"),
    ("chat-tool.json", {**GOOD, "protocol": "anthropic-messages", "shape": "tools4-interleaved"}, "/shape",
     "anthropic-messages streams one call after another"),
    ("chat-tool.json", {**GOOD, "protocol": "openai-responses", "shape": "tools4-interleaved"}, "/shape",
     "openai-responses streams one call after another"),
])
def test_a_bad_spec_is_one_problem_naming_its_file(tmp_path, name, content, field, message):
    root = scenario_corpus(tmp_path, {name: content})
    specs, problems = load_scenarios(root)
    assert specs == []
    (problem,) = problems
    assert problem.path == f"corpus/scenarios/{name}" and problem.field == field and message in problem.message


def test_lint_prints_a_bad_spec_as_one_line_and_fails(tmp_path):
    root = scenario_corpus(tmp_path, {"chat-tool.json": GOOD, "broken.json": {**GOOD, "id": "broken", "fragment_size": 0}})
    outcome = CliRunner().invoke(main, ["lint", "--corpus", str(root)])
    assert outcome.exit_code == 1
    lines = [line for line in outcome.output.splitlines() if "scenarios" in line]
    assert lines == ["corpus/scenarios/broken.json: broken: /fragment_size: 0 is less than the minimum of 1"]
    assert "Traceback" not in outcome.output


# -- generation ------------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol, shape", STREAMED)
def test_generation_is_deterministic_and_the_seed_matters(protocol, shape):
    first, again = Scenario(protocol, shape, 500), Scenario(protocol, shape, 500)
    assert json.dumps(first.chunks) == json.dumps(again.chunks)
    assert first.expected_result() == again.expected_result()
    assert json.dumps(Scenario(protocol, shape, 500, seed=14).chunks) != json.dumps(first.chunks)


@pytest.mark.parametrize("protocol, shape", STREAMED)
def test_a_stream_has_n_fragments_of_the_given_size_in_its_protocol_s_chunk_shape(protocol, shape):
    scenario = Scenario(protocol, shape, 400, size=5)
    assert scenario.fragment_count == 400
    assert all(len(piece) == 5 for _, piece in scenario.order)
    schema = json.loads((DEFAULT_CORPUS / "schema" / "chunks.schema.json").read_text())
    validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{protocol}", "$defs": schema["$defs"]})
    assert [e.message for chunk in scenario.chunks for e in validator.iter_errors(chunk)] == []


@pytest.mark.parametrize("protocol", ["openai-responses", "anthropic-messages"])
def test_only_chat_completions_streams_interleave_parallel_calls(protocol):
    with pytest.raises(ValueError, match="one call after another"):
        Scenario(protocol, "tools4-interleaved", 100)


def calls_of(protocol: str, chunks: list[dict]) -> list[int | None]:
    """Which call each chunk belongs to, None for the others. A Gemini streamed call's pieces name no call:
    they belong to the call the last part with a name opened, until its terminal {}."""
    if protocol != "gemini":
        return [call_of(protocol, chunk) for chunk in chunks]
    out, opened, current = [], -1, None
    for chunk in chunks:
        call = chunk["candidates"][0]["content"]["parts"][0].get("functionCall")
        if call is not None and call.get("name"):
            opened += 1
            current = opened
        out.append(current if call is not None else None)
        if call == {}:
            current = None
    return out


def call_of(protocol: str, chunk: dict) -> int | None:
    """Which call a chunk belongs to (its block, output item or tool-call index), None for the others."""
    if protocol == "anthropic-messages":
        return chunk.get("index") if chunk["type"].startswith("content_block") else None
    if protocol == "openai-responses":
        return chunk.get("output_index")
    if protocol == "bedrock-converse":
        ((name, event),) = chunk.items()
        return event.get("contentBlockIndex") if name.startswith("contentBlock") else None
    calls = [c for choice in chunk.get("choices", []) for c in choice["delta"].get("tool_calls", [])]
    return calls[0]["index"] if calls else None


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_four_calls_stream_one_after_another(protocol):
    scenario = Scenario(protocol, "tools4", 200)
    calls = [c for c in calls_of(protocol, scenario.chunks) if c is not None]
    assert calls == sorted(calls) and set(calls) == {0, 1, 2, 3}  # no call's chunks come back after the next began
    if protocol == "anthropic-messages":  # each block is started, fed and stopped before the next starts
        kinds = [chunk["type"] for chunk in scenario.chunks if chunk["type"] != "content_block_delta"]
        assert kinds == ["message_start", *["content_block_start", "content_block_stop"] * 4, "message_delta",
                         "message_stop"]


def test_interleaved_chat_calls_alternate_on_every_fragment():
    scenario = Scenario("openai-chat", "tools4-interleaved", 200)
    calls = [c for c in (call_of("openai-chat", chunk) for chunk in scenario.chunks) if c is not None]
    assert calls[:4] == [0, 1, 2, 3]  # each opened with its id and name first
    assert all(a != b for a, b in zip(calls[4:], calls[5:]))


@pytest.mark.parametrize("protocol, shape", [p for p in STREAMED if p[1] != "text"])
def test_each_call_s_last_fragment_is_where_the_generator_says(protocol, shape):
    scenario = Scenario(protocol, shape, 120)
    owners = calls_of(protocol, scenario.chunks)
    for (_, which), position in scenario.last_fragment.items():
        assert owners[position] == which
        later = owners[position + 1:]
        carries = [c for c, chunk in zip(later, scenario.chunks[position + 1:])
                   if c == which and (("delta" in chunk and chunk["type"].endswith(("arguments.delta", "block_delta")))
                                      or "partialArgs" in json.dumps(chunk) or "contentBlockDelta" in chunk)]
        assert carries == []


@pytest.mark.parametrize("shape", streamed_shapes("openai-responses"))
def test_responses_lifecycle_events_carry_complete_response_objects(shape):
    """Every field a Response from OpenAI carries in the corpus (Response.required plus text) is there."""
    recorded = json.loads((DEFAULT_CORPUS / "fixtures" / "openai-responses" / "plain-text-message.json").read_text())
    lifecycle = {chunk["type"]: chunk["response"] for chunk in recorded["chunks"] if "response" in chunk}
    generated = {chunk["type"]: chunk["response"] for chunk in Scenario("openai-responses", shape, 100).chunks
                 if "response" in chunk}
    assert list(generated) == list(lifecycle) == ["response.created", "response.in_progress", "response.completed"]
    for kind, response in generated.items():
        assert set(response) == set(lifecycle[kind]), kind
        assert set(response["usage"] or {}) == set(lifecycle[kind]["usage"] or {}), kind


@pytest.mark.parametrize("shape", streamed_shapes("openai-chat"))
def test_chat_chunks_carry_the_envelope_and_usage_openai_sends(shape):
    """The fields of OpenAI's chunks with include_usage (a fixture laid out from a recorded capture) are all there."""
    recorded = json.loads((DEFAULT_CORPUS / "fixtures" / "openai-chat" / "two-parallel-calls-in-sequence.json").read_text())
    generated = Scenario("openai-chat", shape, 100).chunks
    recorded_keys = set(recorded["chunks"][0]) - {"obfuscation"}
    assert all(set(chunk) == recorded_keys for chunk in generated)
    assert all(set(chunk["choices"][0]) == set(recorded["chunks"][0]["choices"][0]) for chunk in generated[:-1])
    assert set(generated[-1]["usage"]) == set(recorded["chunks"][-1]["usage"]) and generated[-1]["choices"] == []
    assert all(chunk["usage"] is None for chunk in generated[:-1])


def test_the_expected_result_is_built_from_the_generated_values_not_from_an_assembler():
    scenario = Scenario("anthropic-messages", "tools4", 200)
    expected = scenario.expected_result()
    arguments = [part["arguments"] for part in expected["choices"][0]["parts"]]
    assert arguments == [call["arguments"] for call in scenario.calls]
    for call in scenario.calls:  # each is the JSON object the fragments spell out
        assert list(json.loads(call["arguments"])) == ["content"]
    streamed = {}
    for chunk in scenario.chunks:
        if chunk["type"] == "content_block_delta":
            streamed[chunk["index"]] = streamed.get(chunk["index"], "") + chunk["delta"]["partial_json"]
    assert [streamed[i] for i in range(4)] == arguments
    assert expected["usage"] == {"input_tokens": 7, "output_tokens": 200}
    assert expected["choices"][0]["finish_reason"] == "tool_use"


@pytest.mark.parametrize("scenario_spec", load_scenarios(DEFAULT_CORPUS)[0], ids=lambda s: s.id)
def test_the_reference_assembles_every_scenario_to_its_expected_result(scenario_spec):
    scenario = scenario_spec.generate(scenario_spec.sizes[0])
    outcome = assemble(scenario_spec.protocol, scenario.chunks)
    fixture = scenario_spec.fixture(scenario)
    verdict = judge(fixture, Returned(outcome.result), frozenset(CAPABILITIES), VALIDATOR,
                    ScenarioSpec.fragment_positions(scenario), FAST_CHECK)
    assert verdict.verdict == "pass", verdict.message
    assert outcome.last_fragment == scenario.last_fragment


# -- judging a long result -------------------------------------------------------------------------


class DropsAFragmentOnLongStreams(miniatures._Miniature):
    """The reference, except that past 5,000 chunks it loses one argument fragment in the middle."""
    name = "miniature-cost-drops-a-fragment"

    def assemble(self, request):
        chunks = list(request.chunks)
        if len(chunks) > 5_000:
            del chunks[len(chunks) // 2]
        return assemble(request.protocol, chunks).result


def test_a_wrong_result_at_a_long_n_is_a_failure_with_its_verdict_not_a_time():
    cost = measure_scenario(Implementation(DropsAFragmentOnLongStreams()), spec(sizes=(1_000, 10_000, 30_000)),
                            VALIDATOR, FAST_CHECK)
    assert [p.fragments for p in cost.points] == [1_000]
    assert cost.failure["fragments"] == 10_000 and cost.failure["verdict"] == "fail"
    assert "arguments" in cost.failure["message"]
    assert cost.stopped == "a fail at N=10,000"
    summary = cost.summary()
    assert summary["failure"] == cost.failure and summary["sizes"] == [1_000]


# -- fitting ---------------------------------------------------------------------------------------


def test_the_exponent_is_fitted_on_a_log_log_scale():
    sizes = [1_000, 3_000, 10_000, 30_000]
    assert fitted_exponent(sizes, [2e-6 * n for n in sizes]) == pytest.approx(1.0)
    assert fitted_exponent(sizes, [3e-9 * n ** 2 for n in sizes]) == pytest.approx(2.0)
    assert fitted_exponent([1_000], [0.1]) is None


def test_time_at_10k_is_measured_or_marked_as_interpolated_or_extrapolated():
    quadratic = [1e-8 * n ** 2 for n in (1_000, 3_000)]
    at, basis = time_at(10_000, [1_000, 3_000], quadratic, 2.0)
    assert basis == "extrapolated" and at == pytest.approx(1.0)
    assert time_at(10_000, [1_000, 10_000], [0.1, 1.0], 1.0) == (1.0, "measured")
    assert time_at(10_000, [1_000, 30_000], [0.1, 3.0], 1.0)[1] == "interpolated"


def test_the_size_over_one_second_is_between_measured_sizes_or_extrapolated():
    n, basis = size_over(1.0, [1_000, 3_000], [0.5, 4.5], None)  # t = 5e-7 n^2 crosses 1 s at ~1,414
    assert basis == "measured" and n == pytest.approx(1414, rel=0.01)
    n, basis = size_over(1.0, [1_000, 10_000], [0.01, 0.1], 1.0)
    assert basis == "extrapolated" and n == pytest.approx(100_000)
    assert size_over(1.0, [1_000, 3_000], [1.5, 4.0], 1.0) == (1_000.0, "at most (measured)")


def test_super_linear_growth_is_flagged_with_its_known_cause():
    cost_points = [Point(n, 1e-8 * n ** 2, 1, 1e-6 * n) for n in (1_000, 3_000)]
    from deltacheck.cost.timing import ScenarioCost
    summary = ScenarioCost(spec(), "langchain-openai-chat", cost_points).summary()
    assert summary["super_linear"] and summary["exponent"] == pytest.approx(2.0)
    assert "partial-JSON" in summary["cause"]
    assert known_cause("langchain-openai-chat", "text") is None
    assert known_cause("openai-python-chat", "tool") is None


# -- the budget ------------------------------------------------------------------------------------


class SyntheticTimes(Implementation):
    """Runs the implementation for real (its result is judged) but reports seconds from a formula of N."""

    def __init__(self, adapter, seconds_for):
        super().__init__(adapter)
        self.seconds_for = seconds_for
        self.sizes_run: list[int] = []

    def _timed_run(self, request, timeout):
        _, outcome = super()._timed_run(request, timeout)
        fragments = int(request.fixture_id.rsplit("@", 1)[1])
        self.sizes_run.append(fragments)
        return self.seconds_for(fragments), outcome


def reference():
    return get_adapter_factory("reference")()


def test_a_linear_implementation_is_measured_at_every_size():
    implementation = SyntheticTimes(reference(), lambda n: 1e-4 * n)
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 1_000, 3_000)), VALIDATOR, FAST_CHECK, budget=1.0)
    assert [p.fragments for p in cost.points] == [100, 300, 1_000, 3_000] and cost.stopped is None
    assert cost.summary()["exponent"] == pytest.approx(1.0)


def test_growth_stops_once_one_stream_exceeds_the_budget():
    implementation = SyntheticTimes(reference(), lambda n: 1e-3 * n)  # 1.0 s at 1,000: over at 1,500
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 1_500, 2_000)), VALIDATOR, FAST_CHECK, budget=1.0)
    assert [p.fragments for p in cost.points] == [100, 300, 1_500]
    assert 2_000 not in implementation.sizes_run
    assert cost.stopped == "one stream took 1.50 s at N=1,500, over the 1 s budget"


def test_a_size_predicted_far_over_the_budget_is_not_started():
    implementation = SyntheticTimes(reference(), lambda n: 1e-5 * n ** 2)  # 0.9 s at 300: 90 s predicted at 3,000
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 3_000)), VALIDATOR, FAST_CHECK, budget=1.0)
    assert [p.fragments for p in cost.points] == [100, 300] and 3_000 not in implementation.sizes_run
    assert "would take about 90.0 s" in cost.stopped
    summary = cost.summary()
    assert summary["super_linear"] and summary["n_over_1s_basis"] == "extrapolated"
    assert summary["seconds_at_10k_basis"] == "extrapolated"


def test_a_pause_in_one_run_is_timed_again_and_not_taken_for_growth():
    glitches = {1_000: [0.5]}  # the first timed run at 1,000 is caught by a pause of the machine

    def seconds_for(n):
        return glitches[n].pop() if glitches.get(n) else 1e-5 * n

    implementation = SyntheticTimes(reference(), seconds_for)
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 1_000)), VALIDATOR, FAST_CHECK, budget=1.0)
    assert [p.seconds for p in cost.points] == pytest.approx([1e-3, 3e-3, 1e-2])
    assert cost.points[-1].rounds > 1 and not cost.summary()["super_linear"]


def test_stop_reason_goes_on_under_the_budget():
    assert stop_reason([], 1_000, 1.0) is None
    assert stop_reason([Point(1_000, 0.1, 1)], 3_000, 1.0) is None


def test_an_in_process_implementation_reports_traced_memory_and_the_reference_is_its_own_baseline():
    cost = measure_scenario(Implementation(reference()), spec(sizes=(100, 200)), VALIDATOR, FAST_CHECK)
    assert [p.memory_method for p in cost.points] == [None, "tracemalloc"] and cost.points[-1].peak_memory > 0
    assert cost.summary()["peak_memory_bytes"] == cost.points[-1].peak_memory
    assert all(p.reference_seconds == p.seconds for p in cost.points)


# -- the command -----------------------------------------------------------------------------------


def test_cost_writes_its_results_file(tmp_path):
    root = scenario_corpus(tmp_path, {"chat-tool.json": {**GOOD, "sizes": [100, 200]},
                                      "anthropic-text.json": {**GOOD, "id": "anthropic-text", "protocol": "anthropic-messages",
                                                              "shape": "text", "sizes": [100, 200]}})
    results = tmp_path / "cost.jsonl"
    # A budget no stream of 200 fragments comes near, even on a loaded machine: past the default 0.2 s a
    # scenario stops growing, and which records are written would depend on the machine's load.
    outcome = CliRunner().invoke(main, ["cost", "--adapter", "reference", "--corpus", str(root), "--results", str(results),
                                        "--budget", "60"])
    assert outcome.exit_code == 0, outcome.output
    records = [json.loads(line) for line in results.read_text().splitlines()]
    # A size timed again (growth that looked super-linear on a busy machine, confirm_growth) adds its point once more.
    records = [r for r in records if not r.get("timed_again")]
    assert [r["kind"] for r in records] == ["header", "point", "point", "scenario", "point", "point", "scenario", "footer"]
    assert records[0]["adapter"]["name"] == "reference" and records[0]["mode"] == "in-process"
    assert [r["scenario"] for r in records if r["kind"] == "scenario"] == ["anthropic-text", "chat-tool"]


def test_cost_names_an_unknown_scenario(tmp_path):
    root = scenario_corpus(tmp_path, {"chat-tool.json": GOOD})
    outcome = CliRunner().invoke(main, ["cost", "--adapter", "reference", "--corpus", str(root), "--scenario", "nope",
                                        "--results", str(tmp_path / "c.jsonl")])
    assert outcome.exit_code == 2 and "no scenario with id nope" in outcome.output


def test_cost_exits_1_on_a_wrong_result(tmp_path):
    root = scenario_corpus(tmp_path, {"chat-tool.json": {**GOOD, "sizes": [100, 10_000]}})
    outcome = CliRunner().invoke(main, ["cost", "--adapter", "tests.test_cost:DropsAFragmentOnLongStreams",
                                        "--corpus", str(root), "--results", str(tmp_path / "c.jsonl"),
                                        "--budget", "60"])  # N=10,000 runs however loaded the machine is
    assert outcome.exit_code == 1
    assert "chat-tool at N=10,000" in outcome.output


# -- the report section ----------------------------------------------------------------------------


def cost_run(name: str, rows: list[dict]) -> tuple[dict, list[dict]]:
    header = {"kind": "header", "adapter": {"name": name}}
    return header, [{"kind": "scenario", "protocol": "openai-chat", **row} for row in rows]


LINEAR = {"scenario": "chat-tool", "sizes": [1_000, 10_000, 100_000], "exponent": 1.01, "seconds_at_10k": 0.05,
          "seconds_at_10k_basis": "measured", "reference_seconds_at_10k": 0.01, "n_over_1s": 190_000,
          "n_over_1s_basis": "extrapolated", "peak_memory_bytes": 12_500_000, "memory_method": "driver peak RSS (VmHWM)",
          "super_linear": False, "cause": None, "failure": None}
QUADRATIC = {**LINEAR, "sizes": [1_000, 3_000], "exponent": 1.95, "seconds_at_10k": 20.0,
             "seconds_at_10k_basis": "extrapolated", "n_over_1s": 1_700, "n_over_1s_basis": "measured",
             "super_linear": True, "cause": "re-parses the accumulated arguments"}
FAILED = {**LINEAR, "scenario": "chat-tools4-interleaved", "failure": {"fragments": 1_000, "verdict": "fail",
                                                          "message": "/choices/0/parts/0: arguments | differ"}}


def test_the_cost_section_shows_figures_findings_and_failures_between_markers():
    runs = [cost_run("zeta-lib", [QUADRATIC, FAILED]), cost_run("reference", [LINEAR])]
    text = "\n".join(render_cost(runs))
    assert text.startswith(BEGIN + "\n## Cost") and text.rstrip().endswith(END)
    assert "CI compares everything outside" in text
    lines = text.splitlines()
    reference_row = lines.index(next(l for l in lines if l.startswith("| reference |")))
    assert reference_row < lines.index(next(l for l in lines if l.startswith("| zeta-lib | chat-tool |")))
    assert "| reference | chat-tool | 50.0 ms | 10.0 ms | 5.0x | 1.01 | 190k (extrap.) | 12.5 MB RSS | 1k–100k | – |" in text
    assert "| zeta-lib | chat-tool | 20.00 s (extrap.) | 10.0 ms | 2000.0x | 1.95 | 1.7k (measured) |" in text
    assert "- **zeta-lib** on chat-tool: exponent 1.95; known cause: re-parses the accumulated arguments" in text
    assert "| zeta-lib | chat-tools4-interleaved | FAIL at N=1,000 |" in text
    assert "fail: ` /choices/0/parts/0: arguments | differ `" in text


def test_a_library_s_failure_message_is_one_code_span_never_markup():
    hostile = "raised: <b>**boom**</b> [x](http://e) `tick` ``two``\nnext line"
    runs = [cost_run("zeta-lib", [{**FAILED, "failure": {"fragments": 100, "verdict": "error", "message": hostile}}])]
    line = next(l for l in render_cost(runs) if l.startswith("- **zeta-lib**"))
    assert line.endswith("error: ``` raised: <b>**boom**</b> [x](http://e) `tick` ``two`` next line ```")


def test_the_report_carries_the_cost_section_when_there_are_cost_results():
    text = render_report([], "9.9.9", 1, cost=[cost_run("reference", [LINEAR])])
    assert BEGIN in text and "## Cost" in text and text.index(BEGIN) < text.index("## Cost") < text.index(END)
    assert "| reference | 1 | 5.0x | 1.01 | – | – |" in text  # the summary: one row per implementation
    assert BEGIN not in render_report([], "9.9.9", 1)


def test_the_ci_check_ignores_timings_but_not_rows_or_anything_outside():
    def report(rows, title="# deltacheck report"):
        return f"{title}\n\nbefore\n\n" + "\n".join(render_cost([cost_run("reference", rows)])) + "\nafter\n"

    committed = report([LINEAR])
    slower = report([{**LINEAR, "seconds_at_10k": 0.07, "exponent": 1.4, "super_linear": True}])
    assert differences(committed, slower, "REPORT.md") == []
    (problem,) = differences(committed, report([LINEAR, {**LINEAR, "scenario": "chat-text"}]), "REPORT.md")
    assert "only generated: [('reference', 'chat-text')]" in problem
    (problem,) = differences(committed, report([LINEAR], title="# another report"), "REPORT.md")
    assert "differs outside the cost section" in problem and "+# another report" in problem
    assert split_cost(committed)[1] == [("reference", "chat-tool")]


def test_the_summary_lists_each_implementation_once_and_the_ci_check_reads_its_rows():
    runs = [cost_run("reference", [LINEAR]), cost_run("lib", [LINEAR, {**QUADRATIC, "scenario": "chat-text"}])]
    committed = "\n".join(render_cost_summary(runs, "site/cost.html"))
    assert committed.startswith(BEGIN) and committed.rstrip().endswith(END)
    assert "[site/cost.html](site/cost.html)" in committed
    assert split_cost(committed)[1] == [("reference", "1"), ("lib", "2")]
    assert "| lib | 2 |" in committed and "| chat-text |" in committed  # the super-linear scenario named
    slower = "\n".join(render_cost_summary([cost_run("reference", [{**LINEAR, "seconds_at_10k": 0.09}]), runs[1]], "site/cost.html"))
    assert differences(committed, slower, "REPORT.md") == []
    (problem,) = differences(committed, "\n".join(render_cost_summary(runs[:1], "site/cost.html")), "REPORT.md")
    assert "only committed: [('lib', '2')]" in problem


def test_the_site_cost_page_has_every_row_with_its_times():
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.judge.upstream import Upstream
    from deltacheck.reports.inputs import ReportInputs
    from deltacheck.site.facts import SiteFacts
    from deltacheck.site.sections import section_pages

    facts = SiteFacts(ReportInputs([], cost=[cost_run("lib", [QUADRATIC])]), load_corpus(check_reference=False), Upstream())
    _title, body = section_pages(facts)["cost.html"]
    assert "<td>20.00 s (extrap.)</td>" in body and "<td>lib</td>" in body


def test_the_ci_check_command_exits_1_naming_the_difference(tmp_path):
    from deltacheck.reports.cost import main as check
    committed, generated = tmp_path / "old.md", tmp_path / "REPORT.md"
    committed.write_text("a\n" + BEGIN + "\n| reference | chat-tool | 1 |\n" + END + "\n")
    generated.write_text("a\n" + BEGIN + "\n| reference | chat-tool | 2 |\n" + END + "\n")
    assert check([str(committed), str(generated)]) == 0
    generated.write_text("b\n" + BEGIN + "\n| reference | chat-tool | 2 |\n" + END + "\n")
    assert check([str(committed), str(generated)]) == 1


def test_results_of_the_cost_axis_are_not_read_as_adapter_results(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    root = scenario_corpus(tmp_path, {"chat-tool.json": {**GOOD, "sizes": [100, 200]}})
    runner = CliRunner()
    assert runner.invoke(main, ["run", "--adapter", "reference", "--corpus", str(root),
                                "--results", str(results / "reference.jsonl")]).exit_code == 0
    assert runner.invoke(main, ["cost", "--adapter", "reference", "--corpus", str(root),
                                "--results", str(results / "cost-reference.jsonl")]).exit_code == 0
    outcome = runner.invoke(main, ["report", "--corpus", str(root), "--output", str(tmp_path / "REPORT.md"),
                                   str(results / "reference.jsonl")])
    assert outcome.exit_code == 0, outcome.output
    text = (tmp_path / "REPORT.md").read_text()
    assert "| reference | 1 |" in text.split(BEGIN, 1)[1] and "| [reference](site/implementations/reference.html) | openai-chat | 1 / 1 |" in text
    assert not (tmp_path / "REPORT.html").exists()


def test_the_served_body_is_cut_after_every_event_and_rendered_before_any_timing():
    from deltacheck.cost.scenarios import served_request
    from deltacheck.protocols import render_stream
    scenario = Scenario("openai-responses", "tools4", 40)
    fixture = spec("openai-responses", "tools4").fixture(scenario)
    request = served_request(fixture)
    assert "sse" in vars(request)  # rendered already: no run pays for it
    body = render_stream("openai-responses", scenario.chunks)
    assert request.sse == body
    pieces = request.sse_pieces()
    assert len(pieces) == len(scenario.chunks) and b"".join(pieces) == body
    assert all(piece.startswith(b"event: ") and piece.endswith(b"\n\n") and piece.count(b"\n\n") == 1 for piece in pieces)
    assert request.to_json()["sse_cuts"] == list(request.sse_cuts)


def test_score_times_cost_once_every_other_run_is_over_one_implementation_after_another(tmp_path, monkeypatch):
    import deltacheck.cli.cost as cli_cost

    root = scenario_corpus(tmp_path, {"chat-tool.json": {**GOOD, "sizes": [100, 200]}})
    results = tmp_path / "results"
    seen, timed = [], []
    real_score_cost, real_run_cost = cli_cost.score_cost, cli_cost.run_cost

    def score_cost(factories, corpus_dir, results_dir):
        seen.append(sorted(path.name for path in results_dir.glob("*.jsonl")))
        return real_score_cost(factories, corpus_dir, results_dir)

    def run_cost(adapter, *args, **kwargs):
        timed.append(adapter.name)
        return real_run_cost(adapter, *args, **kwargs)

    monkeypatch.setattr(cli_cost, "score_cost", score_cost)
    monkeypatch.setattr(cli_cost, "run_cost", run_cost)
    outcome = CliRunner().invoke(main, ["score", "--corpus", str(root), "--adapter", "reference", "--adapter",
                                        "miniature-drops-last-part", "--examples", "1", "--results-dir", str(results),
                                        "--output", str(tmp_path / "REPORT.md")])
    assert outcome.exit_code == 0, outcome.output
    # Called once, after the conformance and fuzz results of both were written, and before the report.
    assert seen == [["fuzz-miniature-drops-last-part.jsonl", "fuzz-reference.jsonl", "miniature-drops-last-part.jsonl",
                     "reference.jsonl"]]
    assert timed == ["reference", "miniature-drops-last-part"]
    text = (tmp_path / "REPORT.md").read_text()
    assert "| reference | 1 |" in text and "| miniature-drops-last-part | 1 |" in text


def test_the_explanation_names_the_time_budget_the_runs_shared():
    def with_budget(budget):
        header, records = cost_run("reference", [LINEAR])
        return {**header, "budget_seconds": budget}, records

    assert "exceeds the time budget (0.2 s) (or" in "\n".join(render_cost([with_budget(0.2), with_budget(0.2)]))
    assert "exceeds the time budget (or" in "\n".join(render_cost([with_budget(0.2), with_budget(1.0)]))
    assert "(0.2 s)" in "\n".join(render_cost_summary([with_budget(0.2)], "site/cost.html"))


def test_growth_that_does_not_show_again_is_not_a_finding():
    # The machine is busy while 1,000 is timed: its first run and the immediate re-run are both slow.
    glitches = {1_000: [0.5, 0.5]}

    def seconds_for(n):
        return glitches[n].pop() if glitches.get(n) else 1e-5 * n

    implementation = SyntheticTimes(reference(), seconds_for)
    records = []
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 1_000)), VALIDATOR, FAST_CHECK, budget=1.0,
                            on_point=records.append)
    assert [p.seconds for p in cost.points] == pytest.approx([1e-3, 3e-3, 1e-2])
    assert not cost.summary()["super_linear"]
    assert [r["fragments"] for r in records if r.get("timed_again")] == [100, 300, 1_000]  # the log keeps both looks


def test_growth_that_shows_again_stays_a_finding():
    implementation = SyntheticTimes(reference(), lambda n: 1e-8 * n ** 2)
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 1_000)), VALIDATOR, FAST_CHECK, budget=1.0)
    assert implementation.sizes_run.count(1_000) >= 2  # timed again before it was called growth
    assert cost.summary()["super_linear"] and cost.summary()["exponent"] == pytest.approx(2.0)


def test_a_stream_growing_super_linearly_is_measured_one_size_further_than_the_budget():
    # A cost per fragment hides a quadratic term at the sizes the budget alone reaches.
    implementation = SyntheticTimes(reference(), lambda n: 2e-4 * n + 2e-7 * n ** 2)
    cost = measure_scenario(implementation, spec(sizes=(100, 300, 1_000, 3_000, 10_000)), VALIDATOR, FAST_CHECK,
                            budget=0.2)
    assert [p.fragments for p in cost.points] == [100, 300, 1_000, 3_000]  # 0.4 s at 1,000, over the budget
    assert cost.stopped == "one stream took 2.40 s at N=3,000, over the 1 s a stream growing super-linearly may take"
    assert cost.summary()["super_linear"]
    linear = measure_scenario(SyntheticTimes(reference(), lambda n: 3e-4 * n), spec(sizes=(100, 300, 1_000, 3_000)),
                              VALIDATOR, FAST_CHECK, budget=0.2)
    assert [p.fragments for p in linear.points] == [100, 300, 1_000]  # a linear one stops at the budget
