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
    ("haystack-openai-chat", "DC-BPTP"),
    ("langchain-openai-chat", "DC-BPTP"),
    ("litellm-openai", "DC-B2P0"),
    ("llama-index-openai-chat", "DC-BPTP"),
    ("pydantic-ai-openai-chat", "DC-BPTP"),
    ("smolagents-openai", "DC-RR3W"),
    ("ai-sdk-openai-chat", "DC-PQ86"),  # ids the SDK invents: the script seeds them as the driver does
    ("anthropic-node", "DC-Y4WJ"),
    ("openai-node-chat", "DC-W331"),
    ("openai-node-chat@6", "DC-W331"),  # the shared driver code (adapters/node/common) with the previous major
]


def _recorded(adapter: str, fixture: str):
    path = OBSERVED / adapter / f"test_observed_result_is_unchanged[{adapter}-{fixture}].json"
    if not path.exists():
        pytest.fail(f"no recorded observed result {path}; choose a fixture the conformance snapshots hold")
    return json.loads(path.read_text(encoding="utf-8"))


def _printed_result(output: str):
    assert MARKER in output, output[-2000:]
    return json.loads(output.split(MARKER, 1)[1])


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
    assert ran.returncode == 0, ran.stderr[-3000:]
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
        return {"chat": {"openai-chat"}, "responses": {"openai-responses"}, "messages": {"anthropic-messages"},
                "openai-chat": {"openai-chat"}, "openai-responses": {"openai-responses"},
                "openai-compatible-chat": {"openai-chat"}, "anthropic": {"anthropic-messages"}}[mode]
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
