"""A bad value from an implementation costs that fixture only: `error` with one line, and the run goes on."""

from __future__ import annotations

import json
import math
from enum import Enum

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from deltacheck.cli import main
from deltacheck.corpus.loader import PROBLEMS_ASKED, fast_result_check, load_corpus, result_validator, schema_problems
from deltacheck.driver.subprocess_adapter import _outcome_of
from deltacheck.judge.plain_json import MAX_DEPTH, NotPlainJson, already_plain, plain_json
from deltacheck.judge.verdict import BrokeProtocol, Returned, judge

CORPUS = load_corpus()
FIXTURE = next(f for f in CORPUS.fixtures if f.expected is not None and f.protocol == "openai-chat")
CAPABILITIES = frozenset({"usage", "finish_reason", "finish_detail", "error"})


def nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value


class ReprRaises:
    def __repr__(self) -> str:
        raise RuntimeError("repr raised")

    __str__ = __repr__


class LyingStr(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        raise RuntimeError("repr raised")


class LyingDict(dict):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq raised")

    def items(self):
        raise RuntimeError("items raised")

    __hash__ = None  # type: ignore[assignment]


def expected() -> dict:
    return json.loads(json.dumps(FIXTURE.expected))


def with_usage(value) -> dict:
    return {**expected(), "usage": {"x": value}}


def self_containing() -> dict:
    result = expected()
    result["choices"][0]["parts"].append(result)
    return result


NOT_PLAIN = {
    "object": lambda: object(),
    "set": lambda: {1, 2},
    "bytes": lambda: b"{}",
    "contains itself": self_containing,
    "nested 500 deep": lambda: {**expected(), "usage": nested(500)},
    "nested 100000 deep": lambda: {**expected(), "usage": nested(100_000)},
    "NaN": lambda: with_usage(math.nan),
    "infinity": lambda: with_usage(-math.inf),
    "huge int": lambda: with_usage(10**5000),
    "int key": lambda: {**expected(), 1: 2},
    "repr raises": lambda: with_usage(ReprRaises()),
    "repr-raising key": lambda: {**expected(), ReprRaises(): 1},
    "complex": lambda: with_usage(1 + 0j),
}


def judged(result):
    return judge(FIXTURE, Returned(result), CAPABILITIES, result_validator(), None, fast_result_check())


@pytest.mark.parametrize("make", NOT_PLAIN.values(), ids=NOT_PLAIN.keys())
def test_a_result_that_is_not_plain_json_is_an_error_of_one_line(make):
    verdict = judged(make())
    assert verdict.verdict == "error"
    assert verdict.message.startswith("returned something that is not plain JSON: ")
    assert "\n" not in verdict.message and len(verdict.message) < 300
    json.dumps(verdict.to_json(), allow_nan=False)  # the results line can be written


def test_a_result_with_thousands_of_broken_parts_is_asked_about_a_bounded_number_of_problems():
    # 100,000 such parts once cost 30 minutes and 5.8 GB of jsonschema errors (bench/reliability.py)
    broken = {"choices": [{"index": 0, "parts": [{"type": "text", "text": "x"}] * 5_000}]}
    assert len(schema_problems(result_validator(), broken)) == PROBLEMS_ASKED
    verdict = judged(broken)
    assert verdict.verdict == "error" and verdict.message.startswith("returned something that is not a canonical result: /")


def test_subclasses_are_judged_as_their_plain_values_and_their_methods_never_run():
    result = expected()
    reason = Enum("Reason", {"VALUE": result["choices"][0]["finish_reason"]}, type=str)  # an SDK's str enum
    result["choices"][0]["finish_reason"] = reason.VALUE
    assert judged(LyingDict(result)).verdict == "pass"  # judged on the value, whatever its __eq__ or items() say
    lying = expected()
    lying["choices"][0]["parts"] = [{**p, "type": LyingStr("not-a-part-type")} for p in lying["choices"][0]["parts"]]
    if lying["choices"][0]["parts"]:
        assert judged(lying).verdict in ("fail", "error")  # a str whose __eq__ says True never passes


def test_tuples_are_arrays_as_json_writes_them():
    result = expected()
    result["choices"] = tuple(result["choices"])
    assert judged(result).verdict == "pass"


def test_the_expected_result_itself_is_judged_as_is():
    assert already_plain(FIXTURE.expected) and judged(expected()).verdict == "pass"


def test_a_pointer_says_where_and_a_deep_one_is_cut():
    with pytest.raises(NotPlainJson) as caught:
        plain_json({"a": [1, {"b/c": {3}}]})
    assert str(caught.value).startswith("/a/1/b~1c: a value of type set")
    with pytest.raises(NotPlainJson) as deep:
        plain_json(nested(MAX_DEPTH * 10))
    assert f"deeper than {MAX_DEPTH}" in str(deep.value) and len(str(deep.value)) < 200


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
)
ANY_VALUES = st.recursive(
    JSON_VALUES | st.floats() | st.binary(max_size=3) | st.complex_numbers() | st.builds(object),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner) | st.frozensets(st.integers(), max_size=2)
    | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_plain_json_is_kept_as_it_is(value):
    assert json.dumps(plain_json(value), sort_keys=True) == json.dumps(value, sort_keys=True)


@settings(max_examples=300, deadline=None)
@given(ANY_VALUES)
def test_anything_is_copied_as_json_or_refused_with_a_reason_and_the_judge_never_raises(value):
    try:
        copy = plain_json(value)
    except NotPlainJson as exc:
        assert exc.problem
    else:
        json.dumps(copy, allow_nan=False)
    verdict = judged({**expected(), "usage": value})
    assert verdict.verdict in ("pass", "fail", "error")


@pytest.mark.parametrize("depth", [1, 63, 64, 65, 500, 999, 1000, 1001, 3000, 100_000])
@pytest.mark.parametrize("shape", ["result", "usage", "traceback", "reason", "bare"])
def test_a_driver_reply_of_any_depth_is_one_outcome_never_a_raise(shape, depth):
    opened, closed = "[" * depth, "]" * depth
    line = {
        "result": f'{{"seq":1,"result":{opened}{closed}}}',
        "usage": '{"seq":1,"result":{"choices":[],"usage":' + '{"a":' * depth + "1" + "}" * depth + ',"error":null}}',
        "traceback": f'{{"seq":1,"errored":{{"message":"x","traceback":{opened}{closed}}}}}',
        "reason": f'{{"seq":1,"skipped":{{"reason":{opened}{closed}}}}}',
        "bare": opened + closed,
    }[shape]
    outcome = _outcome_of(line.encode(), 1)
    assert len(repr(outcome)) < 2000
    if isinstance(outcome, Returned):
        assert judged(outcome.result).verdict == ("error" if depth >= MAX_DEPTH else "fail")
    else:
        assert isinstance(outcome, BrokeProtocol)


def test_a_driver_reply_with_nan_breaks_the_protocol():
    assert isinstance(_outcome_of(b'{"seq":1,"result":{"usage":NaN}}', 1), BrokeProtocol)


BAD_ADAPTER = '''
import os
from deltacheck import CAPABILITIES, Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble

class Bad(Adapter):
    name, library, version, code_path = NAME, "deltacheck", "0", "the reference, with a bad value first"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset(CAPABILITIES) - {"events"}

    def assemble(self, request):
        if request.fixture_id == FIRST:
            return BAD
        return assemble(request.protocol, request.chunks).result
'''


@pytest.mark.parametrize("bad", ["object()", "{1, 2}", "b'x'", "float('nan')", "_deep()", "_selfref()"])
def test_run_scores_every_fixture_when_one_result_is_not_plain_json(bad, tmp_path):
    source = BAD_ADAPTER + "\ndef _deep():\n    v = {}\n    for _ in range(5000):\n        v = {'a': v}\n    return v\n" \
        "\ndef _selfref():\n    v = {}\n    v['v'] = v\n    return v\n" + f"\nBAD = {bad}\n"
    ids = [f.id for f in CORPUS.fixtures if f.protocol == "openai-chat" and f.expected is not None][:3]
    adapter_file = tmp_path / f"bad_{tmp_path.name.replace('-', '_')}.py"  # a module name of its own
    adapter_file.write_text(f"FIRST, NAME = {ids[0]!r}, {adapter_file.stem!r}\n" + source)
    args = ["run", "--adapter", f"{adapter_file}:Bad", "--results", str(tmp_path / "out.jsonl")]
    for fixture_id in ids:
        args += ["--fixture", fixture_id]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    verdicts = [r["verdict"] for r in records if r.get("kind") == "result"]
    assert verdicts[0] == "error" and verdicts[1:] == ["pass", "pass"], verdicts
    assert records[-1]["kind"] == "footer"


class MessageRaises(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ raised")


def test_an_exception_whose_message_cannot_be_read_is_still_an_error_verdict():
    from deltacheck.running.runner import call_adapter

    class Raising:
        def assemble(self, request):
            raise MessageRaises()

    outcome = call_adapter(Raising(), FIXTURE.request(), 5)  # type: ignore[arg-type]
    assert outcome.message.startswith("MessageRaises: (its message could not be read")
    verdict = judge(FIXTURE, outcome, CAPABILITIES, result_validator(), None, fast_result_check())
    assert verdict.verdict == "error"


@pytest.mark.parametrize("command", [["run", "--adapter", "reference"], ["fuzz", "--adapter", "reference"], ["explain"]])
def test_an_unknown_fixture_is_the_same_usage_error_for_every_command(command, tmp_path):
    args = [*command, "DC-N0NE"] if command == ["explain"] else [*command, "--fixture", "DC-N0NE"]
    if command[0] in ("run", "fuzz"):
        args += ["--results", str(tmp_path / "out.jsonl")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "no fixture with id DC-N0NE" in result.output and "Traceback" not in result.output


# -- an implementation that ends the process, and Ctrl-C ------------------------------------------

ENDING_ADAPTER = '''
import os
from deltacheck import CAPABILITIES, Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble

class Ending(Adapter):
    name, library, version, code_path = NAME, "deltacheck", "0", "the reference, ending the run on one fixture"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset(CAPABILITIES) - {"events"}

    def assemble(self, request):
        if request.fixture_id == LAST:
            END()
        return assemble(request.protocol, request.chunks).result
'''
CHAT_IDS = [f.id for f in CORPUS.fixtures if f.protocol == "openai-chat" and f.expected is not None][:3]


def _ending_adapter(tmp_path, end: str) -> str:
    adapter_file = tmp_path / f"ending_{tmp_path.name.replace('-', '_')}.py"  # a module name of its own
    adapter_file.write_text(f"LAST, NAME = {CHAT_IDS[2]!r}, {adapter_file.stem!r}\n" + ENDING_ADAPTER + f"\ndef END():\n    {end}\n")
    return f"{adapter_file}:Ending"


def test_an_adapter_that_ends_the_process_leaves_the_fixture_it_was_running_named(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    results = tmp_path / "out.jsonl"
    args = [str(Path(sys.executable).with_name("deltacheck")), "run", "--adapter", _ending_adapter(tmp_path, "os._exit(3)")]
    args += ["--results", str(results), *(a for i in CHAT_IDS for a in ("--fixture", i))]
    ended = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert ended.returncode == 3, ended.stderr  # the process itself is gone: its code is the adapter's
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["fixture"] for r in lines if r["kind"] == "result"] == CHAT_IDS[:2]  # nothing recorded is lost
    assert lines[-1] == {"kind": "running", "fixture": CHAT_IDS[2]}

    reported = CliRunner().invoke(main, ["report", str(results), "--output", str(tmp_path / "R.md")])
    assert reported.exit_code == 0, reported.output
    said = " ".join(reported.output.split())
    assert f"the run stopped while fixture {CHAT_IDS[2]} was running" in said and "2 fixture(s) recorded" in said


def test_ctrl_c_says_the_run_was_interrupted_and_prints_no_summary(tmp_path):
    results = tmp_path / "out.jsonl"
    args = ["run", "--adapter", _ending_adapter(tmp_path, "raise KeyboardInterrupt"), "--results", str(results)]
    result = CliRunner().invoke(main, args + [a for i in CHAT_IDS for a in ("--fixture", i)])
    assert result.exit_code == 130, result.output
    said = " ".join(result.output.split())
    assert said.startswith("interrupted ending_")
    assert f": the run was stopped, during {CHAT_IDS[2]}; 2 of 3 fixture(s) recorded" in said
    assert "passed / scored" not in result.output and "Traceback" not in result.output
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert lines[-1]["kind"] == "footer" and lines[-1]["interrupted"] is True
    from deltacheck.running.results import read_results

    read = read_results(results)
    assert read.running == CHAT_IDS[2] and read.ending is not None and "interrupted" in read.ending


def test_a_worker_that_died_is_reported_with_the_fixture_it_was_running(tmp_path):
    from deltacheck.cli.score_jobs import _Display

    (tmp_path / "lib.jsonl").write_text('{"kind": "header"}\n{"kind": "running", "fixture": "DC-AAAA"}\n')
    display = _Display(["lib"], 2, CORPUS, tmp_path)
    display.died("lib", "its worker process died (abruptly)")
    (outcome,) = display.outcomes
    assert outcome.not_run is not None and "while fixture DC-AAAA was running" in outcome.not_run


@pytest.mark.parametrize("ending", ["", '{"kind": "header"}\n{"kind": "running"', "\xff"])
def test_a_results_file_that_cannot_say_what_was_running_says_nothing(ending, tmp_path):
    from deltacheck.running.results import running_when_it_ended

    path = tmp_path / "lib.jsonl"
    path.write_bytes(ending.encode("latin-1"))
    assert running_when_it_ended(path) is None
    assert running_when_it_ended(tmp_path / "missing.jsonl") is None


def test_a_driver_that_ends_its_process_costs_one_fixture_and_the_run_goes_on(tmp_path, monkeypatch):
    import sys
    from pathlib import Path

    monkeypatch.setenv("BREAK_ON", CHAT_IDS[1])
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)  # `-m tests.drivers…` from the checkout
    results = tmp_path / "out.jsonl"
    args = ["run", "--adapter-cmd", f"{sys.executable} -m tests.drivers.crash_on_run", "--results", str(results)]
    result = CliRunner().invoke(main, args + [a for i in CHAT_IDS for a in ("--fixture", i)])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    verdicts = [r["verdict"] for r in map(json.loads, results.read_text().splitlines()) if r["kind"] == "result"]
    assert verdicts == ["pass", "crash", "pass"]


def test_a_ten_megabyte_exception_message_is_cut_in_what_run_prints_and_records(tmp_path):
    results = tmp_path / "out.jsonl"
    adapter = _ending_adapter(tmp_path, "raise ValueError('x' * 10_000_000)")
    result = CliRunner().invoke(main, ["run", "--adapter", adapter, "--results", str(results), "--fixture", CHAT_IDS[2]])
    assert result.exit_code == 1 and "Traceback" not in result.output
    (record,) = [r for r in map(json.loads, results.read_text().splitlines()) if r["kind"] == "result"]
    assert record["verdict"] == "error" and record["message"].startswith("raised: ValueError: xxx")
    assert "(9,999,000 more characters not shown)" in record["message"] and len(record["message"]) < 2_100
    assert len(result.output) < 5_000 and len(json.dumps(record)) < 30_000  # its traceback (diff) is cut too


def test_the_pytest_plugin_refuses_an_unknown_fixture_with_pytests_usage_code_as_the_readme_says(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "2 for a usage error" in readme and "pytest's own usage-error code, 4" in readme
    typo = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "--deltacheck-adapter", "reference",
                           "--deltacheck-fixture", "DC-N0NE"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert typo.returncode == 4, typo.stdout + typo.stderr
    assert "--deltacheck-fixture DC-N0NE: no such fixture" in typo.stderr


def test_a_recorded_traceback_names_the_checkout_as_repo_before_it_is_cut():
    # The cut of a long traceback must fall at the same place whatever the checkout's path is long,
    # or a committed report differs from one generated in another clone.
    from deltacheck.judge.verdict import MAX_TRACEBACK_CHARS, Raised
    from deltacheck.locations import CHECKOUT, PACKAGE_DIR

    root = str(CHECKOUT or PACKAGE_DIR.parent)
    frames = "".join(f"  at {root}/adapters/node/x.js:{n}\n" for n in range(2000))
    recorded = Raised("Error: boom", traceback=frames).traceback
    expected = "".join(f"  at <repo>/adapters/node/x.js:{n}\n" for n in range(2000))
    assert recorded.startswith(expected[:MAX_TRACEBACK_CHARS])
    assert root not in recorded
    assert recorded.endswith(f"({len(expected) - MAX_TRACEBACK_CHARS:,} more characters not shown)")


def test_a_recorded_message_and_diff_name_the_checkout_as_repo():
    # A gateway's error text in the observed result names files under the checkout (its venv):
    # the record, and the committed report made from it, must not depend on where the clone lies.
    from deltacheck.judge.verdict import Verdict
    from deltacheck.locations import CHECKOUT, PACKAGE_DIR
    from deltacheck.running.runner import RunRecord

    root = str(CHECKOUT or PACKAGE_DIR.parent)
    verdict = Verdict(FIXTURE.id, FIXTURE.protocol, "fail", message=f"raised in {root}/x.py",
                      diff=f'+    "message": "File \\"{root}/.venvs/x/site.py\\""')
    record = RunRecord.of("an-adapter", verdict, 1.0, FIXTURE).to_json()
    assert root not in json.dumps(record)
    assert "<repo>/.venvs/x/site.py" in record["diff"] and record["message"] == "raised in <repo>/x.py"
