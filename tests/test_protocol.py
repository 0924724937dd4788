"""The driver protocol: schemas, the generic driver, SubprocessAdapter's handling of every failure,
manifests, environments and the CLI commands built on them.

Fake drivers (tests/drivers/) each break at exactly one protocol step; every failure must give its
verdict with the offending output quoted, and the next fixture must still run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.adapter import CAPABILITIES, get_adapter_factory
from deltacheck.cli import main
from deltacheck.corpus.loader import load_corpus
from deltacheck.driver.envs import STAMP_FILE, ensure_env, env_state, launch
from deltacheck.errors import DriverFailed, EnvironmentFailed
from deltacheck.driver.external import ExternalAdapter, external_adapters
from deltacheck.driver.manifests import load_manifests
from deltacheck.driver.messages import request_from_wire, run_request, start_request, stop_request
from deltacheck.driver.message_schemas import MESSAGES, message_problems, schema
from deltacheck.protocols import PROTOCOLS, protocol
from deltacheck.running.runner import run_fixtures
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from deltacheck.judge.verdict import Crashed

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 2.0  # per fixture; every fake answers a good request in milliseconds


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


@pytest.fixture(scope="module")
def two_fixtures(corpus):
    """The two shortest openai-chat fixtures: the first is where a fake breaks, the second must still pass."""
    return sorted((f for f in corpus.fixtures if f.protocol == "openai-chat"), key=lambda f: (len(f.chunks), f.id))[:2]


def python_driver(entry: str, **options) -> SubprocessAdapter:
    return SubprocessAdapter([sys.executable, "-m", "deltacheck.driver", entry], cwd=str(REPO), startup_timeout=20, **options)


def fake_driver(name: str, break_on: str = "", **options) -> SubprocessAdapter:
    options.setdefault("startup_timeout", 20)
    return SubprocessAdapter([sys.executable, "-m", f"tests.drivers.{name}"], cwd=str(REPO),
                             env={**os.environ, "BREAK_ON": break_on}, **options)


def run_both(adapter: SubprocessAdapter, corpus, fixtures, timeout: float = TIMEOUT):
    with adapter:
        return [record.verdict for record in run_fixtures(adapter, corpus, fixtures, timeout)]


# -- schemas -------------------------------------------------------------------------------------


def walk(node, path="#"):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for position, value in enumerate(node):
            yield from walk(value, f"{path}/{position}")


@pytest.mark.parametrize("message", MESSAGES)
def test_every_protocol_schema_describes_every_property_and_allows_no_other(message):
    for path, node in walk(schema(message)):
        if "properties" in node:
            assert node.get("additionalProperties") is False, f"{message} {path} allows additional properties"
            for name, prop in node["properties"].items():
                assert "description" in prop, f"{message} {path}/properties/{name} has no description"


def test_the_protocol_version_is_pinned_in_both_start_messages():
    assert schema("start-request")["properties"]["version"]["const"] == 1
    assert schema("start-reply")["properties"]["version"]["const"] == 1


def test_the_hello_schema_knows_exactly_the_harness_protocols_and_capabilities():
    implementation = schema("start-reply")["properties"]["implementation"]["properties"]
    assert set(implementation["protocols"]["items"]["enum"]) == set(PROTOCOLS)
    assert set(implementation["capabilities"]["items"]["enum"]) == set(CAPABILITIES)


def test_the_messages_the_harness_sends_are_valid(two_fixtures):
    assert message_problems("start-request", start_request()) == []
    assert message_problems("run-request", run_request(7, two_fixtures[0].request())) == []
    assert message_problems("stop-request", stop_request()) == []


def test_a_run_reply_carries_exactly_one_answer():
    assert message_problems("run-reply", {"seq": 1, "result": {}}) == []
    assert message_problems("run-reply", {"seq": 1, "skipped": {"reason": "no"}}) == []
    (problem,) = message_problems("run-reply", {"seq": 1, "result": {}, "errored": {"message": "x"}})
    assert "exactly one of result, errored, skipped; this one carries result, errored" in problem
    assert "carries none" in message_problems("run-reply", {"seq": 1})[0]


def test_a_driver_receives_the_exact_sse_bytes_the_harness_sent(two_fixtures):
    wire = run_request(1, two_fixtures[0].request())["request"]
    wire["sse"] = "data: served verbatim\n\n"
    assert request_from_wire(wire).sse == b"data: served verbatim\n\n"


# -- the generic Python driver -------------------------------------------------------------------


def test_the_driver_imports_nothing_heavy():
    code = ("import sys, deltacheck.driver.python; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'click', 'rich', 'jsonschema', 'referencing', 'fastjsonschema'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_reference_behind_the_driver_passes_every_fixture(corpus):
    verdicts = run_both(python_driver("deltacheck.adapters.reference:ReferenceAdapter"), corpus, corpus.fixtures)
    assert len(verdicts) == len(corpus.fixtures)
    assert [(v.fixture, v.verdict, v.message) for v in verdicts if v.verdict != "pass"] == []


def test_the_driver_describes_the_adapter_like_in_process():
    reference = get_adapter_factory("reference")
    with python_driver("deltacheck.adapters.reference:ReferenceAdapter") as adapter:
        assert adapter.describe() == {**reference.describe(), "language": "python"}


def test_what_a_library_prints_to_stdout_goes_to_stderr(corpus, two_fixtures):
    verdicts = run_both(python_driver("tests.drivers.chatty_adapter:PrintsToStdout"), corpus, two_fixtures)
    assert [v.verdict for v in verdicts] == ["pass", "pass"]


def test_an_exception_in_the_adapter_is_an_error_with_its_traceback(corpus, two_fixtures):
    error, _ = run_both(python_driver("tests.miniatures:Raises"), corpus, two_fixtures)
    assert error.verdict == "error"
    # the shortest fixture may accept a rejection naming `index` (rule 5): the message then says this is not one
    assert error.message.startswith("raised: RuntimeError: boom in the library")
    assert "Traceback" in error.diff and "boom in the library" in error.diff


def test_an_async_adapter_runs_behind_the_driver(corpus, two_fixtures):
    verdicts = run_both(python_driver("tests.miniatures:AsyncReference"), corpus, two_fixtures)
    assert [v.verdict for v in verdicts] == ["pass", "pass"]


def test_an_entry_that_cannot_be_imported_fails_the_start_with_the_traceback():
    with pytest.raises(DriverFailed) as failure:
        python_driver("deltacheck.adapters.no_such_module:Nothing").start()
    assert "exited with status 1 before answering `start`" in failure.value.message
    assert "ModuleNotFoundError: No module named 'deltacheck.adapters.no_such_module'" in failure.value.message


# -- each way a driver can break, and the restart after it --------------------------------------


def test_a_driver_that_dies_on_start_fails_with_its_stderr():
    with pytest.raises(DriverFailed) as failure:
        fake_driver("crash_on_start").start()
    assert "exited with status 3 before answering `start`" in failure.value.message
    assert "ImportError: No module named 'fancy_sdk'" in failure.value.message


def test_a_driver_that_cannot_start_crashes_every_fixture_without_retrying(two_fixtures):
    adapter = fake_driver("crash_on_start")
    first = adapter.run_request(two_fixtures[0].request(), TIMEOUT)
    started = time.monotonic()
    second = adapter.run_request(two_fixtures[1].request(), TIMEOUT)
    assert isinstance(first, Crashed) and "fancy_sdk" in first.message
    assert second == first and time.monotonic() - started < 0.1


def test_a_driver_speaking_another_protocol_version_is_refused():
    with pytest.raises(DriverFailed) as failure:
        fake_driver("wrong_version").start()
    assert "it speaks protocol version 2; this harness speaks 1" in failure.value.message
    assert '{"cmd": "start", "version": 2' in failure.value.message


def test_a_driver_that_never_answers_start_times_out():
    with pytest.raises(DriverFailed, match=r"no reply to `start` within 0.5 s"):
        fake_driver("hang_on_start", startup_timeout=0.5).start()


def test_a_manifest_adapter_must_call_itself_by_the_manifest_name():
    with pytest.raises(DriverFailed, match=r"it calls itself 'fake', but the manifest names it 'openai-python-chat'"):
        fake_driver("wrong_seq", expected_name="openai-python-chat").start()


def test_a_crash_mid_run_is_a_crash_quoting_stderr_and_the_next_fixture_runs(corpus, two_fixtures):
    crash, after = run_both(fake_driver("crash_on_run", two_fixtures[0].id), corpus, two_fixtures)
    assert crash.verdict == "crash"
    assert f"exited with status 1 while running {two_fixtures[0].id}" in crash.message
    assert "Fatal Python error: the assembler exploded" in crash.message
    assert after.verdict == "pass"


def test_a_hang_is_killed_as_a_timeout_and_the_next_fixture_runs(corpus, two_fixtures):
    started = time.monotonic()
    hang, after = run_both(fake_driver("hang_on_run", two_fixtures[0].id), corpus, two_fixtures, timeout=0.5)
    # the first run of a fresh driver gets FIRST_RUN_FACTOR times the limit (the library's lazy loading), and a
    # timeout is confirmed by a run TIMEOUT_CONFIRM_FACTOR times as long, on the driver started again: 0.5 x 3 x 3
    assert (hang.verdict, hang.message) == ("timeout", "no result within 4.5 s")
    assert after.verdict == "pass"
    assert time.monotonic() - started < 10


def test_only_the_first_run_of_a_fresh_driver_may_take_longer_than_the_limit(corpus, two_fixtures):
    # 1 s for the first fixture with a 0.5 s limit: it is the driver's first run, so it passes
    first, after = run_both(fake_driver("slow_to_load", two_fixtures[0].id), corpus, two_fixtures, timeout=0.5)
    assert (first.verdict, after.verdict) == ("pass", "pass")
    # 1 s for the second fixture with a 0.1 s limit: the driver is warm by then, so that is a timeout, and the
    # confirming run (0.1 x 3, on the driver started again: x 3) is still shorter than 1 s
    first, slow = run_both(fake_driver("slow_to_load", two_fixtures[1].id), corpus, two_fixtures, timeout=0.1)
    assert first.verdict == "pass" and (slow.verdict, slow.message) == ("timeout", "no result within 0.9 s")


def test_a_line_that_is_not_json_is_an_error_quoting_it_and_the_next_fixture_runs(corpus, two_fixtures):
    error, after = run_both(fake_driver("nonjson_on_run", two_fixtures[0].id), corpus, two_fixtures)
    assert error.verdict == "error"
    assert error.message == ("the driver broke the protocol: expected a JSON reply to run #1, "
                             "got 'Streaming started... 3 chunks received'")
    assert after.verdict == "pass"


def test_a_reply_with_the_wrong_seq_is_an_error_quoting_it_and_the_next_fixture_runs(corpus, two_fixtures):
    error, after = run_both(fake_driver("wrong_seq", two_fixtures[0].id), corpus, two_fixtures)
    assert error.verdict == "error"
    assert "reply carries seq 2, expected 1: '{\"seq\": 2, \"result\": {" in error.message
    assert after.verdict == "pass"


def test_a_reply_with_two_answers_is_an_error_and_the_next_fixture_runs(corpus, two_fixtures):
    error, after = run_both(fake_driver("two_answers", two_fixtures[0].id), corpus, two_fixtures)
    assert error.verdict == "error"
    assert "this one carries result, errored" in error.message and '"errored": {"message": "also this"}' in error.message
    assert after.verdict == "pass"


def test_an_offending_line_is_quoted_up_to_300_characters(corpus, two_fixtures):
    error, _ = run_both(fake_driver("wrong_seq", two_fixtures[0].id), corpus, two_fixtures)
    quoted = error.message.split(": ", 2)[-1]
    assert quoted.startswith("'{\"seq\": 2") and "(cut at 300 of" in quoted


def test_a_result_that_is_not_canonical_is_judged_as_garbage_like_in_process(corpus, two_fixtures):
    garbage, after = run_both(fake_driver("garbage_result", two_fixtures[0].id), corpus, two_fixtures)
    assert garbage.verdict == "error"
    assert garbage.message.startswith("returned something that is not a canonical result:")
    assert "'lots' is not of type 'array'" in garbage.message
    assert garbage.observed == {"choices": "lots"}
    assert after.verdict == "pass"


def test_a_skip_from_the_driver_is_a_skip_verdict_with_its_reason(corpus, two_fixtures):
    skip, after = run_both(fake_driver("skip", two_fixtures[0].id), corpus, two_fixtures)
    assert (skip.verdict, skip.message, skip.axes) == ("skip", "this SDK build has no streaming client", {})
    assert after.verdict == "pass"


def test_a_well_behaved_driver_stops_cleanly():
    adapter = fake_driver("skip")
    adapter.start()
    stopped = adapter.stop()
    assert (stopped.status, stopped.stray_output, stopped.clean) == (0, (), True)


def test_a_driver_that_ignores_stop_is_killed():
    adapter = fake_driver("ignores_stop", stop_timeout=0.3)
    adapter.start()
    assert adapter.stop().status is None


# -- manifests and environments ------------------------------------------------------------------


def write_manifest(folder: Path, entries, requirements=("requirements.txt",)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in requirements:
        (folder / name).write_text("somelib==1.0\n")
    path = folder / "manifest.json"
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries))
    return path


def python_entry(name: str, requirements: str = "requirements.txt", entry: str = "deltacheck.adapters.x.adapter:X"):
    return {"name": name, "entry": entry, "requirements": requirements, "language": "python"}


def test_manifests_load_with_one_env_per_folder_and_requirements_file(tmp_path):
    write_manifest(tmp_path / "somelib", [python_entry("somelib-chat"), python_entry("somelib-chat@2", "requirements-2.txt")],
                   requirements=("requirements.txt", "requirements-2.txt"))
    write_manifest(tmp_path / "node" / "ai-sdk", [{"name": "ai-sdk", "language": "node", "command": ["node", "driver.mjs"],
                                                   "setup": ["npm", "ci"]}], requirements=())
    loaded = load_manifests(tmp_path)
    assert loaded.problems == ()
    assert {m.name: m.env_name for m in loaded.adapters} == {"somelib-chat": "somelib", "somelib-chat@2": "somelib-2",
                                                            "ai-sdk": "node-ai-sdk"}


def test_each_bad_manifest_is_named_by_file_and_field_and_the_rest_still_load(tmp_path):
    write_manifest(tmp_path / "good", [python_entry("good")])
    write_manifest(tmp_path / "notjson", "[{")
    write_manifest(tmp_path / "noentry", [{"name": "no-entry", "requirements": "requirements.txt", "language": "python"}])
    write_manifest(tmp_path / "norequirements", [python_entry("no-requirements", "requirements-9.txt")])
    write_manifest(tmp_path / "twice", [python_entry("good")])
    write_manifest(tmp_path / "object", python_entry("an-object"))
    loaded = load_manifests(tmp_path)
    assert [m.name for m in loaded.adapters] == ["good"]
    found = {(p.path.split("/")[-2], p.field): p.message for p in loaded.problems}
    assert found[("notjson", "/")].startswith("not JSON")
    assert found[("noentry", "/0")] == "'entry' is a required property"
    assert "'requirements-9.txt' does not exist" in found[("norequirements", "/0/requirements")]
    assert "'good' is also declared in" in found[("twice", "/0/name")]
    assert "is not of type 'array'" in found[("object", "/")]


def test_a_manifest_cannot_take_an_in_process_adapters_name(tmp_path):
    write_manifest(tmp_path / "impostor", [python_entry("reference")])
    adapters, problems = external_adapters({"reference"}, tmp_path, tmp_path / "envs")
    assert adapters == {}
    assert [(p.field, p.message) for p in problems] == [("/0/name", "adapter name 'reference' is taken by an in-process adapter")]


def test_the_registry_lists_manifest_adapters_without_importing_them(tmp_path, monkeypatch):
    import deltacheck.adapter
    import deltacheck.driver.external
    write_manifest(tmp_path / "somelib", [python_entry("somelib-chat", entry="deltacheck.adapters.somelib.adapter:Chat")])
    monkeypatch.setattr(deltacheck.driver.external, "ADAPTERS_DIR", tmp_path)
    registry = deltacheck.adapter.registered_adapters()
    assert isinstance(registry["somelib-chat"], ExternalAdapter) and "reference" in registry
    assert "deltacheck.adapters.somelib.adapter" not in sys.modules
    assert registry["somelib-chat"].describe()["env"] == "missing"


class Commands:
    """Records what ensure_env would run, and answers with a canned status."""

    def __init__(self, status: int = 0, output: str = "") -> None:
        self.status, self.output, self.run = status, output, []

    def __call__(self, command, cwd):
        self.run.append(list(command))
        return self.status, self.output


def test_a_python_env_is_built_once_and_rebuilt_when_the_requirements_change(tmp_path):
    write_manifest(tmp_path / "adapters" / "somelib", [python_entry("somelib-chat")])
    (manifest,) = load_manifests(tmp_path / "adapters").adapters
    envs, commands = tmp_path / "envs", Commands()
    assert ensure_env(manifest, envs_dir=envs, run=commands, log=lambda line: None) is True
    assert [c[1:3] for c in commands.run] == [["-m", "venv"], ["-m", "pip"]]
    assert commands.run[1][-2:] == ["-r", str(manifest.folder / "requirements.txt")]
    assert (env_state(manifest, envs), ensure_env(manifest, envs_dir=envs, run=commands, log=lambda line: None)) == ("ready", False)
    (manifest.folder / "requirements.txt").write_text("somelib==2.0\n")
    assert env_state(manifest, envs) == "stale"
    assert ensure_env(manifest, envs_dir=envs, run=commands, log=lambda line: None) is True
    assert len(commands.run) == 4


def test_a_failed_install_names_the_command_and_quotes_its_output_and_leaves_no_stamp(tmp_path):
    write_manifest(tmp_path / "adapters" / "somelib", [python_entry("somelib-chat")])
    (manifest,) = load_manifests(tmp_path / "adapters").adapters
    commands = Commands(1, "ERROR: No matching distribution found for somelib==1.0")
    with pytest.raises(EnvironmentFailed) as failure:
        ensure_env(manifest, envs_dir=tmp_path / "envs", run=commands, log=lambda line: None)
    assert "`" + " ".join(commands.run[0]) + "` failed" in str(failure.value)
    assert "No matching distribution found for somelib==1.0" in str(failure.value)
    assert not (tmp_path / "envs" / "somelib" / STAMP_FILE).exists()


def test_node_setup_runs_in_its_folder_once_per_package_lock(tmp_path):
    folder = tmp_path / "adapters" / "node" / "ai-sdk"
    write_manifest(folder, [{"name": "ai-sdk", "language": "node", "command": ["node", "driver.mjs"], "setup": ["npm", "ci"]}],
                   requirements=())
    (folder / "package-lock.json").write_text("{}")
    (manifest,) = load_manifests(tmp_path / "adapters").adapters
    envs, commands = tmp_path / "envs", Commands()
    ensure_env(manifest, envs_dir=envs, run=commands, log=lambda line: None)
    ensure_env(manifest, envs_dir=envs, run=commands, log=lambda line: None)
    assert commands.run == [["npm", "ci"]]
    (folder / "package-lock.json").write_text('{"lockfileVersion": 3}')
    assert env_state(manifest, envs) == "stale"
    spec = launch(manifest, envs_dir=envs, adapters_dir=tmp_path / "adapters")
    assert (spec.command, spec.cwd, spec.env["DELTACHECK_ADAPTER_NAME"]) == (("node", "driver.mjs"), str(folder), "ai-sdk")


def fake_python_env(manifest, envs: Path) -> None:
    """What `ensure_env` leaves behind, with the system's python standing in for the venv's."""
    ensure_env(manifest, envs_dir=envs, run=Commands(), log=lambda line: None)
    bin_dir = envs / manifest.env_name / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)


CHATTY_ADAPTER = (Path(__file__).parent / "drivers" / "chatty_adapter.py").read_text()


def test_a_manifest_adapter_runs_through_the_driver_under_its_manifest_name(tmp_path, corpus, two_fixtures):
    # The adapters folder is mapped onto `deltacheck.adapters` in the driver, wherever it lies.
    write_manifest(tmp_path / "adapters" / "chatty", [
        python_entry("chatty@2", entry="deltacheck.adapters.chatty.adapter:NamedFromEnvironment")])
    (tmp_path / "adapters" / "chatty" / "adapter.py").write_text(CHATTY_ADAPTER)
    adapters, problems = external_adapters(set(), tmp_path / "adapters", tmp_path / "envs")
    assert problems == []
    fake_python_env(adapters["chatty@2"].manifest, tmp_path / "envs")
    adapter = adapters["chatty@2"]()
    assert adapter is adapters["chatty@2"]()  # one driver per adapter, however often it is asked for
    verdicts = run_both(adapter, corpus, two_fixtures)
    assert adapter.hello.name == "chatty@2"
    assert [v.verdict for v in verdicts] == ["pass", "pass"]
    assert adapters["chatty@2"].probe().library == "tests.drivers"


def test_the_scope_a_manifest_declares_is_in_the_running_adapters_description(tmp_path, corpus, two_fixtures):
    # The results header is the running adapter's describe(): severity reads the scope from it (CONTRACT.md 4.4).
    entry = python_entry("chatty@2", entry="deltacheck.adapters.chatty.adapter:NamedFromEnvironment")
    write_manifest(tmp_path / "adapters" / "chatty", [{**entry, "scope": "provider", "scope_note": "its vendor's SDK"}])
    (tmp_path / "adapters" / "chatty" / "adapter.py").write_text(CHATTY_ADAPTER)
    adapters, _ = external_adapters(set(), tmp_path / "adapters", tmp_path / "envs")
    fake_python_env(adapters["chatty@2"].manifest, tmp_path / "envs")
    adapter = adapters["chatty@2"]()
    run_both(adapter, corpus, two_fixtures)
    assert (adapter.describe()["scope"], adapter.describe()["scope_note"]) == ("provider", "its vendor's SDK")
    assert adapters["chatty@2"].describe()["scope"] == "provider"


def test_a_hello_is_recorded_and_read_back_until_the_driver_sources_change(tmp_path):
    write_manifest(tmp_path / "adapters" / "chatty", [
        python_entry("chatty@2", entry="deltacheck.adapters.chatty.adapter:NamedFromEnvironment")])
    (tmp_path / "adapters" / "chatty" / "adapter.py").write_text(CHATTY_ADAPTER)
    adapters, _ = external_adapters(set(), tmp_path / "adapters", tmp_path / "envs")
    fake_python_env(adapters["chatty@2"].manifest, tmp_path / "envs")
    first = adapters["chatty@2"].probe()
    (tmp_path / "envs" / adapters["chatty@2"].manifest.env_name / "bin" / "python").unlink()  # no driver can start now
    assert adapters["chatty@2"].probe() == first  # read from the record
    (tmp_path / "adapters" / "chatty" / "adapter.py").write_text(CHATTY_ADAPTER + "\n# changed\n")
    with pytest.raises(DriverFailed):  # the record is stale: the driver is asked again
        adapters["chatty@2"].probe()


def test_a_recorded_hello_is_stale_once_a_protocols_reasons_change(tmp_path, monkeypatch):
    # The harness fills the protocols' capability reasons into every hello, so they are part of what it is made from.
    write_manifest(tmp_path / "adapters" / "chatty", [
        python_entry("chatty@2", entry="deltacheck.adapters.chatty.adapter:NamedFromEnvironment")])
    (tmp_path / "adapters" / "chatty" / "adapter.py").write_text(CHATTY_ADAPTER)
    adapters, _ = external_adapters(set(), tmp_path / "adapters", tmp_path / "envs")
    fake_python_env(adapters["chatty@2"].manifest, tmp_path / "envs")
    adapters["chatty@2"].probe()
    (tmp_path / "envs" / adapters["chatty@2"].manifest.env_name / "bin" / "python").unlink()
    monkeypatch.setitem(protocol(PROTOCOLS[0]).capability_notes, "item_id", "a reason reworded")
    with pytest.raises(DriverFailed):
        adapters["chatty@2"].probe()


# -- the CLI -------------------------------------------------------------------------------------


def test_run_scores_any_program_speaking_the_protocol_under_the_name_from_its_hello(tmp_path, two_fixtures):
    results = tmp_path / "out.jsonl"
    command = f"{sys.executable} -m deltacheck.driver deltacheck.adapters.reference:ReferenceAdapter"
    outcome = CliRunner().invoke(main, ["run", "--adapter-cmd", command, "--fixture", two_fixtures[0].id,
                                        "--results", str(results)])
    assert outcome.exit_code == 0, outcome.output
    header, running, record, _ = (json.loads(line) for line in results.read_text().splitlines())
    assert running == {"kind": "running", "fixture": two_fixtures[0].id}
    assert (header["adapter"]["name"], header["adapter"]["language"]) == ("reference", "python")
    assert (record["fixture"], record["verdict"]) == (two_fixtures[0].id, "pass")


def test_run_wants_exactly_one_adapter_option():
    outcome = CliRunner().invoke(main, ["run"])
    assert outcome.exit_code == 2 and "exactly one of --adapter NAME and --adapter-cmd COMMAND" in outcome.output


def test_run_reports_a_driver_that_cannot_start_as_one_clear_error(tmp_path):
    outcome = CliRunner().invoke(main, ["run", "--adapter-cmd", f"{sys.executable} -m tests.drivers.crash_on_start",
                                        "--results", str(tmp_path / "out.jsonl")])
    assert outcome.exit_code == 1
    assert "exited with status 3 before answering `start`" in outcome.output and "fancy_sdk" in outcome.output
    assert not (tmp_path / "out.jsonl").exists()


def test_check_driver_passes_a_good_driver_check_by_check():
    command = f"{sys.executable} -m deltacheck.driver deltacheck.adapters.reference:ReferenceAdapter"
    outcome = CliRunner().invoke(main, ["check-driver", "--adapter-cmd", command])
    assert outcome.exit_code == 0, outcome.output
    lines = [line for line in outcome.output.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert lines[0].startswith("PASS  answers `start` with a valid hello: reference: deltacheck")
    assert sum(line.startswith("PASS  answers an ") for line in lines) == 2 * len(PROTOCOLS)
    assert lines[-2:] == ["PASS  writes nothing but protocol lines to stdout", "PASS  exits with status 0 on `stop`"]


def test_check_driver_fails_a_driver_that_writes_chatter_to_stdout(monkeypatch):
    monkeypatch.setenv("BREAK_ON", "*")
    outcome = CliRunner().invoke(main, ["check-driver", "--adapter-cmd", f"{sys.executable} -m tests.drivers.nonjson_on_run",
                                        "--timeout", str(TIMEOUT)])
    assert outcome.exit_code == 1
    assert "FAIL  writes nothing but protocol lines to stdout: DC-" in outcome.output
    assert "Streaming started... 3 chunks received" in outcome.output


@pytest.fixture
def repo_of_adapters(tmp_path, monkeypatch):
    """A registry pointed at a directory of its own: a working python manifest adapter and a node one whose setup fails."""
    import deltacheck.driver.external
    adapters, envs = tmp_path / "adapters", tmp_path / "envs"
    write_manifest(adapters / "chatty", [python_entry("chatty@2", entry="deltacheck.adapters.chatty.adapter:NamedFromEnvironment")])
    (adapters / "chatty" / "adapter.py").write_text(CHATTY_ADAPTER)
    write_manifest(adapters / "node" / "broken", [{"name": "broken-node", "language": "node", "command": ["node", "driver.mjs"],
                                                   "setup": ["false"]}], requirements=())
    monkeypatch.setattr(deltacheck.driver.external, "ADAPTERS_DIR", adapters)
    monkeypatch.setattr(deltacheck.driver.external, "ENVS_DIR", envs)
    found, _ = external_adapters(set())
    fake_python_env(found["chatty@2"].manifest, envs)
    return tmp_path


def test_score_runs_manifest_adapters_and_reports_the_ones_that_cannot_be_set_up(repo_of_adapters):
    outcome = CliRunner().invoke(main, ["score", "--adapter", "chatty@2", "--adapter", "broken-node",
                                        "--results-dir", str(repo_of_adapters / "results"),
                                        "--output", str(repo_of_adapters / "REPORT.md")])
    assert outcome.exit_code == 1
    assert "not run broken-node: environment 'node-broken': `false` failed" in outcome.output
    assert "| [chatty@2](site/implementations/chatty_402.html) | tests.drivers | 0 |" in (repo_of_adapters / "REPORT.md").read_text()
    assert not (repo_of_adapters / "results" / "broken-node.jsonl").exists()


def test_adapters_lists_manifest_adapters_with_their_hello_only_when_their_env_exists(repo_of_adapters):
    outcome = CliRunner().invoke(main, ["adapters", "--format", "json"])
    assert outcome.exit_code == 0, outcome.output
    listed = {a["name"]: a for a in json.loads(outcome.output)}
    assert (listed["chatty@2"]["library"], listed["chatty@2"]["env"]) == ("tests.drivers", "ready")
    assert (listed["broken-node"]["library"], listed["broken-node"]["env"]) == (None, "missing")
    assert listed["reference"]["library"] == "deltacheck"


def test_envs_builds_an_environment_once_and_then_reports_it_up_to_date(repo_of_adapters):
    manifest = repo_of_adapters / "adapters" / "node" / "broken" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('["false"]', '["true"]'))
    first = CliRunner().invoke(main, ["envs", "--adapter", "broken-node"])
    second = CliRunner().invoke(main, ["envs", "--adapter", "broken-node"])
    assert (first.exit_code, second.exit_code) == (0, 0), first.output
    assert "node-broken: built (used by broken-node)" in first.output
    assert "node-broken: up to date (used by broken-node)" in second.output


def test_relock_keeps_the_direct_pins_and_freezes_the_rest(tmp_path):
    from deltacheck.driver.envs import FROZEN_HEADER, relock

    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "requirements.txt").write_text("lib[extra]==1.0\nhttpx==0.28.1\n")
    manifest = next(iter(load_manifests_for_relock(folder)))
    calls = []

    def fake_run(command, cwd):
        calls.append(list(command))
        if "freeze" in command:
            return 0, "WARNING: Location 'x' is ignored\nanyio==4.0\nhttpx==0.28.1\nlib==1.0\nsniffio==1.3\n"
        return 0, ""

    path = relock(manifest, tmp_path, log=lambda line: None, run=fake_run)
    lines = path.read_text().splitlines()
    assert lines[1:3] == ["lib[extra]==1.0", "httpx==0.28.1"]
    assert lines[-2:] == ["anyio==4.0", "sniffio==1.3"]  # direct pins once, warnings dropped
    assert FROZEN_HEADER.splitlines()[0] in lines
    assert calls[1][-2:] == ["lib[extra]==1.0", "httpx==0.28.1"]


def load_manifests_for_relock(folder):
    import json as _json

    from deltacheck.driver.manifests import load_manifests

    (folder / "manifest.json").write_text(_json.dumps(
        [{"name": "lib-chat", "language": "python", "entry": "deltacheck.adapters.lib.adapter:Lib", "requirements": "requirements.txt"}]))
    loaded = load_manifests(folder.parent)
    assert not loaded.problems, loaded.problems
    return loaded.adapters


def test_a_driver_s_pid_is_its_running_process_and_none_once_stopped():
    adapter = python_driver("deltacheck.adapters.reference:ReferenceAdapter")
    assert adapter.pid is None
    with adapter:
        adapter.start()
        pid = adapter.pid
        assert pid is not None and Path(f"/proc/{pid}").exists()
    assert adapter.pid is None
