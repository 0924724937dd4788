"""`deltacheck explain ID --repro python|node`: a standalone script that runs in the adapter's own
environment without deltacheck and prints the observed result the harness recorded.

For every bundled library, on one fixture it fails: the script runs in the library's environment
(`python -I`, so neither deltacheck nor this checkout is importable; Node from a folder that has only
the library's node_modules) and its printed result is compared with the recorded observed result
(tests/observed, the snapshots the conformance run keeps up to date).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.adapter import registered_adapters
from deltacheck.cli import main
from deltacheck.driver.envs import env_dir, node_folder
from deltacheck.contributing.repro import MARKER

OBSERVED = Path(__file__).resolve().parent / "observed"
# (adapter, a fixture it fails): one per bundled library, and per pinned version of one library.
CASES = [
    ("openai-python-chat", "DC-BPTP"),
    ("openai-python-chat@2", "DC-BPTP"),
    ("openai-python-responses", "DC-8F3P"),
    ("anthropic-python", "DC-Y4WJ"),
    ("anthropic-python-bedrock", "DC-Y4WJ"),  # a binary body: the bedrock-invoke transport's event-stream messages
    ("haystack-openai-chat", "DC-BPTP"),
    ("langchain-openai-chat", "DC-BPTP"),
    ("litellm-openai", "DC-B2P0"),
    ("litellm-gemini", "DC-4K95"),  # imports its sibling module (from .adapter import), inlined before it
    ("litellm-bedrock", "DC-QKZH"),  # the same, beside a helper one level up (from ..loopback import)
    ("llama-index-openai-chat", "DC-BPTP"),
    ("pydantic-ai-openai-chat", "DC-BPTP"),
    ("smolagents-openai", "DC-RR3W"),
    ("langchain-aws-bedrock", "DC-5Q9S"),  # a binary body, one read per byte, served by the script's own loopback
    ("ai-sdk-openai-chat", "DC-PQ86"),  # ids the SDK invents: the script seeds them as the driver does
    ("anthropic-node", "DC-Y4WJ"),
    ("anthropic-node-bedrock", "DC-Y4WJ"),
    ("openai-node-chat", "DC-W331"),
    ("openai-node-chat@6", "DC-W331"),  # the shared driver code (adapters/node/common) with the previous major
    ("ai-sdk-bedrock", "DC-QS1Z"),  # a binary body (Bedrock's event stream): the script carries it as base64
]


def _recorded(adapter: str, fixture: str):
    path = OBSERVED / adapter / f"test_observed_result_is_unchanged[{adapter}-{fixture}].json"
    if not path.exists():
        pytest.fail(f"no recorded observed result {path}; choose a fixture the conformance snapshots hold")
    return json.loads(path.read_text(encoding="utf-8"))


def _printed_result(output: str):
    assert MARKER in output, output[-2000:]
    # The result, then the script's own check (its first divergence, if any) on the lines after it.
    return json.JSONDecoder().raw_decode(output.split(MARKER, 1)[1].lstrip())[0]


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "NODE_PATH", "VIRTUAL_ENV"))}


@pytest.mark.parametrize("adapter, fixture", CASES, ids=[f"{a}-{f}" for a, f in CASES])
def test_the_reproduction_prints_the_recorded_observed_result_without_deltacheck(adapter, fixture, tmp_path):
    factory = registered_adapters().get(adapter)
    assert factory is not None, f"{adapter} is not a bundled adapter any more"
    if factory.env_state() != "ready":
        pytest.skip(f"{adapter}: its environment is not built (deltacheck envs --adapter {adapter})")
    manifest = factory.manifest
    language = manifest.language
    generated = CliRunner().invoke(main, ["explain", fixture, "--adapter", adapter, "--repro", language])
    assert generated.exit_code == 0, generated.output
    script = generated.stdout
    if language == "python":
        path = tmp_path / "repro.py"
        command = [str(env_dir(manifest, factory.envs_dir) / "bin" / "python"), "-I", str(path)]
        assert subprocess.run(command[:2] + ["-c", "import deltacheck"], capture_output=True).returncode != 0, \
            "deltacheck is importable in the adapter's environment; the script would not prove it standalone"
    else:
        modules = node_folder(manifest, factory.envs_dir) / "node_modules"
        if not modules.is_dir() or shutil.which("node") is None:
            pytest.skip(f"{adapter}: no node_modules in {modules.parent} or no node on PATH")
        (tmp_path / "node_modules").symlink_to(modules)
        path = tmp_path / "repro.mjs"
        command = ["node", str(path)]
    path.write_text(script, encoding="utf-8")
    ran = subprocess.run(command, cwd=tmp_path, env=_clean_env(), capture_output=True, text=True, timeout=300)
    # Exit 1 is the script's verdict on a fixture the library fails (most cases are), not a crash.
    assert ran.returncode in (0, 1), ran.stderr[-3000:]
    assert _printed_result(ran.stdout) == _recorded(adapter, fixture)


def test_without_an_adapter_the_provider_sdk_of_the_language_is_used():
    python = CliRunner().invoke(main, ["explain", "DC-Y4WJ", "--repro", "python"])
    node = CliRunner().invoke(main, ["explain", "DC-Y4WJ", "--repro", "node"])
    assert python.exit_code == node.exit_code == 0, python.output + node.output
    assert "deltacheck adapter `anthropic-python`" in python.stdout and "import anthropic" in python.stdout
    assert "deltacheck adapter `anthropic-node`" in node.stdout and "from '@anthropic-ai/sdk'" in node.stdout


def test_the_script_carries_the_fixtures_bytes_and_expected_result_and_cites_it():
    from deltacheck.corpus.loader import load_corpus

    corpus = load_corpus(check_reference=False)
    fixture = corpus.by_id()["DC-BPTP"]
    script = CliRunner().invoke(main, ["explain", "DC-BPTP", "--adapter", "openai-python-chat", "--repro", "python"]).stdout
    assert script.splitlines()[1].startswith(f"# Reproduction of deltacheck fixture {corpus.cite('DC-BPTP')}: ")
    namespace: dict = {}
    exec(script.split("SSE = ", 1)[1].split("\n\nCHUNKS", 1)[0].join(["SSE = ", ""]), namespace)
    assert namespace["SSE"] == fixture.request().sse
    header = script.split("# Expected result", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert json.loads("\n".join(line[1:] for line in header)) == fixture.expected


def test_markdown_wraps_the_script_in_a_fence_for_an_issue():
    plain = CliRunner().invoke(main, ["explain", "DC-BPTP", "--repro", "node"]).stdout
    markdown = CliRunner().invoke(main, ["explain", "DC-BPTP", "--repro", "node", "--format", "markdown"]).stdout
    assert markdown == f"```js\n{plain.rstrip()}\n```\n"


def test_a_reproduction_is_written_for_every_bundled_adapter_and_is_valid_code(tmp_path, monkeypatch):
    """Generation needs no environment; every bundled adapter keeps to what the script can stand in for."""
    import deltacheck.contributing.repro
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.driver.external import ExternalAdapter

    monkeypatch.setattr(deltacheck.contributing.repro, "_hello", lambda factory: None)  # no driver starts: only the text is checked

    corpus = load_corpus(check_reference=False)
    bundled = {name: f for name, f in registered_adapters().items()
               if isinstance(f, ExternalAdapter) and f.manifest.language in ("python", "node")}
    assert len(bundled) >= 20
    for name, factory in bundled.items():
        fixture = next(f for f in corpus.fixtures if f.protocol in _protocols(factory))
        result = CliRunner().invoke(main, ["explain", fixture.id, "--adapter", name, "--repro", factory.manifest.language])
        assert result.exit_code == 0, (name, result.output)
        if factory.manifest.language == "python":
            compile(result.stdout, f"{name}.py", "exec")
        elif shutil.which("node"):
            path = tmp_path / f"{name}.mjs"
            path.write_text(result.stdout, encoding="utf-8")
            checked = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
            assert checked.returncode == 0, (name, checked.stderr)


def _protocols(factory) -> set[str]:
    """The protocols a manifest adapter speaks, read from its source without starting it."""
    manifest = factory.manifest
    if manifest.language == "node":
        mode = manifest.command[2]
        if manifest.folder.name == "google-genai":  # its one mode, `chat`, is Gemini's chat session
            return {"gemini"}
        return {"chat": {"openai-chat"}, "responses": {"openai-responses"}, "messages": {"anthropic-messages"},
                "openai-chat": {"openai-chat"}, "openai-responses": {"openai-responses"},
                "openai-compatible-chat": {"openai-chat"}, "anthropic": {"anthropic-messages"},
                "google": {"gemini"},
                # `bedrock` is the AI SDK's Bedrock Converse provider, and the Anthropic SDK's Bedrock client
                "bedrock": {"anthropic-messages"} if manifest.folder.name == "anthropic" else {"bedrock-converse"}}[mode]
    name = manifest.name
    return {"openai-responses"} if "responses" in name else {"anthropic-messages"} if "anthropic" in name \
        else {"openai-chat"}


def test_a_fixture_the_adapter_does_not_speak_is_named_when_its_driver_can_say():
    factory = registered_adapters()["openai-python-chat"]
    if factory.env_state() != "ready":
        pytest.skip("openai-python-chat: its environment is not built, so its protocols are unknown here")
    result = CliRunner().invoke(main, ["explain", "DC-Y4WJ", "--adapter", "openai-python-chat", "--repro", "python"])
    assert result.exit_code == 2 and "DC-Y4WJ is anthropic-messages" in result.output


def test_a_jvm_or_go_adapter_gets_one_line_saying_reproductions_are_python_and_node_only():
    from deltacheck.driver.external import ExternalAdapter

    other = next((name for name, f in registered_adapters().items()
                  if isinstance(f, ExternalAdapter) and f.manifest.language not in ("python", "node")), None)
    if other is None:
        pytest.skip("no JVM or Go adapter is registered (no toolchain)")
    result = CliRunner().invoke(main, ["explain", "DC-8499", "--adapter", other, "--repro", "python"])
    assert result.exit_code != 0 and "reproductions are written for python and node adapters only" in result.output
    assert "Traceback" not in result.output


# -- your own adapter or driver, and the script's own check ----------------------------------------

OWN_ADAPTER = '''
import json

from deltacheck import Adapter, AssemblyRequest


class TextOnly(Adapter):
    """Chat text and finish_reason; BROKEN drops the last character of the text."""

    name = "text-only"
    library = "my-accumulator"
    version = "1.0"
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"finish_reason"})
    code_path = "my_accumulator.collect(chunks)"
    BROKEN = False

    def assemble(self, request: AssemblyRequest):
        text, finish = "", None
        for chunk in request.chunks:
            for choice in chunk.get("choices", []):
                text += choice.get("delta", {}).get("content") or ""
                finish = choice.get("finish_reason") or finish
        if self.BROKEN:
            text = text[:-1]
        return {"choices": [{"index": 0, "parts": [{"type": "text", "text": text}], "finish_reason": finish}]}
'''
TEXT_FIXTURE = "DC-BNBY"  # Chat, one text part and content_filter


def _run_script(script: str, tmp_path: Path, *, cwd: Path | None = None, env: dict | None = None,
                isolated: bool = True) -> subprocess.CompletedProcess:
    path = tmp_path / "repro.py"
    path.write_text(script, encoding="utf-8")
    command = [sys.executable, *(["-I"] if isolated else []), str(path)]
    return subprocess.run(command, cwd=cwd or tmp_path, env=env or _clean_env(), capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("spec_kind", ["file", "module"])
def test_your_own_in_process_adapter_is_inlined_and_the_script_checks_it(spec_kind, tmp_path, monkeypatch):
    (tmp_path / "my_adapter.py").write_text(OWN_ADAPTER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    spec = f"{tmp_path / 'my_adapter.py'}:TextOnly" if spec_kind == "file" else "my_adapter:TextOnly"
    generated = CliRunner().invoke(main, ["explain", TEXT_FIXTURE, "--adapter", spec, "--repro", "python"])
    assert generated.exit_code == 0, generated.output
    script = generated.stdout
    assert "# Code path: my_accumulator.collect(chunks)" in script
    assert "my-accumulator 1.0" in script.splitlines()[3]
    run_dir = tmp_path / "elsewhere"  # neither deltacheck nor the adapter's module is importable there
    run_dir.mkdir()
    ran = _run_script(script, run_dir)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "OK: the library's result matches the expected result" in ran.stdout
    assert _printed_result(ran.stdout.rsplit("\nOK:", 1)[0])["choices"][0]["finish_reason"] == "content_filter"

    broken = _run_script(script.replace("BROKEN = False", "BROKEN = True"), run_dir)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "DIVERGES from the expected result" in broken.stdout
    assert "first at /choices/0/parts/0/text:" in broken.stdout


def test_your_own_adapter_in_a_language_it_is_not_written_in_is_one_usage_error(tmp_path, monkeypatch):
    (tmp_path / "my_adapter.py").write_text(OWN_ADAPTER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    node = CliRunner().invoke(main, ["explain", TEXT_FIXTURE, "--adapter", "my_adapter:TextOnly", "--repro", "node"])
    assert node.exit_code == 2 and "use --repro python" in node.output
    other = CliRunner().invoke(main, ["explain", "DC-Y4WJ", "--adapter", "my_adapter:TextOnly", "--repro", "python"])
    assert other.exit_code == 2 and "does not speak" in other.output and "Traceback" not in other.output
    missing = CliRunner().invoke(main, ["explain", TEXT_FIXTURE, "--adapter", "nowhere:X", "--repro", "python"])
    assert missing.exit_code == 2 and "nowhere" in missing.output and "Traceback" not in missing.output


REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("break_on, status, says", [("", 0, "OK: "), ("*", 1, "DIVERGES from the expected result")])
def test_a_driver_command_gets_a_script_that_speaks_the_protocol_and_checks_its_answer(break_on, status, says,
                                                                                        tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    command = f"{sys.executable} -m tests.drivers.garbage_result"
    generated = CliRunner().invoke(main, ["explain", TEXT_FIXTURE, "--adapter-cmd", command, "--repro", "python"])
    assert generated.exit_code == 0, generated.output
    assert "# Code path: the reference, behind a fake driver" in generated.stdout
    ran = _run_script(generated.stdout, tmp_path, cwd=REPO, env={**os.environ, "BREAK_ON": break_on}, isolated=False)
    assert ran.returncode == status, ran.stdout + ran.stderr
    assert says in ran.stdout


def test_a_driver_command_has_no_node_script(monkeypatch):
    monkeypatch.chdir(REPO)
    command = f"{sys.executable} -m tests.drivers.garbage_result"
    result = CliRunner().invoke(main, ["explain", TEXT_FIXTURE, "--adapter-cmd", command, "--repro", "node"])
    assert result.exit_code == 2 and "use --repro python" in result.output


def _script_check(fixture, language="python"):
    """The script's check for `fixture`, loaded as the script loads it."""
    from deltacheck.contributing.repro import _check

    namespace: dict = {}
    exec("import json, re\n" + _check(fixture, language), namespace)
    return namespace["check"]


def test_the_scripts_check_agrees_with_the_judge_on_the_reference_for_every_fixture(capsys):
    """The reference with every capability: the script says OK exactly where deltacheck's judge passes."""
    from deltacheck.adapter import get_adapter_factory
    from deltacheck.corpus.loader import load_corpus

    reference = get_adapter_factory("reference")
    for fixture in load_corpus(check_reference=False).fixtures:
        result, raised = None, None
        try:
            result = reference().assemble(fixture.request())
        except Exception as exc:  # the reference rejecting a stream, as a library would
            raised = f"{type(exc).__name__}: {exc}"
        status = _script_check(fixture)(result, raised, frozenset(reference.capabilities))
        assert status == 0, (fixture.id, capsys.readouterr().out)


def test_the_scripts_check_finds_a_dropped_tool_call_and_ignores_what_the_library_cannot_express(capsys):
    from deltacheck.corpus.loader import load_corpus
    import copy

    fixture = load_corpus(check_reference=False).by_id()["DC-W331"]  # interleaved Chat tool calls
    check = _script_check(fixture)
    full = frozenset({"finish_reason", "usage", "error", "multiple_choices"})
    assert check(copy.deepcopy(fixture.expected), None, full) == 0
    dropped = copy.deepcopy(fixture.expected)
    dropped["choices"][0]["parts"].pop()
    assert check(dropped, None, full) == 1
    assert "DIVERGES from the expected result" in capsys.readouterr().out
    without_finish = copy.deepcopy(fixture.expected)
    del without_finish["choices"][0]["finish_reason"]
    assert check(without_finish, None, full - {"finish_reason"}) == 0  # n/a, not a divergence
    assert check(without_finish, None, full) == 1
    assert check(None, "TypeError: 'NoneType' object is not subscriptable", full) == 1
    reordered = copy.deepcopy(fixture.expected)
    for part in reordered["choices"][0]["parts"]:
        if part["type"] == "tool_call":
            part["arguments"] = json.dumps(json.loads(part["arguments"]), indent=3)  # same JSON, other bytes
    assert check(reordered, None, full) == 0


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH")
def test_the_node_scripts_check_matches_drops_and_n_a_as_the_python_one_does(tmp_path):
    from deltacheck.contributing.repro import _check
    from deltacheck.corpus.loader import load_corpus

    fixture = load_corpus(check_reference=False).by_id()["DC-W331"]
    cases = """
const full = new Set(['finish_reason', 'usage', 'error', 'multiple_choices']);
const expected = OUTCOMES[0][1];
const dropped = copy(expected); dropped.choices[0].parts.pop();
const noFinish = copy(expected); delete noFinish.choices[0].finish_reason;
const otherBytes = copy(expected);
for (const p of otherBytes.choices[0].parts) if (p.type === 'tool_call') p.arguments = JSON.stringify(JSON.parse(p.arguments), null, 3);
console.log(JSON.stringify([check(copy(expected), null, full), check(dropped, null, full),
  check(noFinish, null, new Set(['usage', 'error'])), check(noFinish, null, full), check(otherBytes, null, full),
  check(null, "TypeError: x is undefined", full)]));
"""
    path = tmp_path / "check.mjs"
    path.write_text(_check(fixture, "node") + "\n" + cases, encoding="utf-8")
    ran = subprocess.run(["node", str(path)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout.splitlines()[-1]) == [0, 1, 0, 1, 0, 1]
