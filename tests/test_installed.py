"""deltacheck as a maintainer uses it: the built wheel in a fresh venv, outside this checkout.

One wheel is built from the checkout and installed (with pytest) into a venv in a temporary
directory; a miniature user project (tests/outside_project/, with its own accumulator and a
`harness/` package of its own) is copied next to it, and every command runs from there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
OUTSIDE_PROJECT = Path(__file__).resolve().parent / "outside_project"
ADAPTER = "my_accumulator:MyAccumulator"
GENERIC_NAMES = {"harness", "adapters", "tests", "corpus", "conftest"}


def _run(command: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=600, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv bin folder, user project folder, wheel path); skips nothing: a failed build or install fails the test."""
    root = tmp_path_factory.mktemp("installed")
    assert CHECKOUT not in root.parents
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(CHECKOUT)],
                 cwd=root)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (root / "dist").glob("deltacheck-*.whl")
    made = _run([sys.executable, "-m", "venv", str(root / "venv")], cwd=root)
    assert made.returncode == 0, made.stderr
    bin_dir = root / "venv" / "bin"
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel), "pytest"], cwd=root)
    assert installed.returncode == 0, installed.stderr[-3000:]
    project = root / "project"
    shutil.copytree(OUTSIDE_PROJECT, project)
    return bin_dir, project, wheel


def _deltacheck(installed, *args: str) -> subprocess.CompletedProcess:
    bin_dir, project, _ = installed
    return _run([str(bin_dir / "deltacheck"), *args], cwd=project)


def _pytest(installed, *args: str) -> subprocess.CompletedProcess:
    bin_dir, project, _ = installed
    return _run([str(bin_dir / "pytest"), "-q", *args], cwd=project)


def test_the_wheel_installs_only_the_deltacheck_package(installed):
    _, _, wheel = installed
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if not name.startswith("deltacheck-")}
    assert top_level == {"deltacheck"}
    assert not GENERIC_NAMES & top_level
    assert "deltacheck/data/corpus/VERSION" in names and "deltacheck/data/CONTRACT.md" in names
    assert "deltacheck/driver/schemas/protocol/run-reply.schema.json" in names
    assert "deltacheck/judge/schemas/upstream.schema.json" in names and "deltacheck/adapters/litellm/upstream.json" in names
    assert not any("node_modules" in name for name in names)


def test_version_and_lint_need_no_corpus_option(installed):
    version = _deltacheck(installed, "--version")
    corpus_version = (CHECKOUT / "corpus" / "VERSION").read_text().strip()
    from deltacheck.contract import CONTRACT_VERSION
    assert version.returncode == 0 and f"corpus {corpus_version}" in version.stdout
    assert f"contract {CONTRACT_VERSION}" in version.stdout
    lint = _deltacheck(installed, "lint")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert f"corpus {corpus_version}:" in lint.stdout and "fixtures OK" in lint.stdout


def test_explain_and_new_id_need_no_corpus_option(installed):
    explain = _deltacheck(installed, "explain", "DC-8499")
    assert explain.returncode == 0 and explain.stdout.startswith("DC-8499@"), explain.stderr
    new_id = _deltacheck(installed, "new-id")
    assert new_id.returncode == 0 and new_id.stdout.startswith("DC-"), new_id.stderr


def test_run_scores_an_outside_adapter_and_writes_results_where_the_user_is(installed):
    _, project, _ = installed
    outcome = _deltacheck(installed, "run", "--adapter", ADAPTER, "--junit", "junit.xml")
    assert outcome.returncode == 1, outcome.stderr  # the naive accumulator fails some fixtures
    assert "Traceback" not in outcome.stderr
    assert (project / "results" / "my-accumulator.jsonl").is_file()
    assert (project / "junit.xml").read_text().startswith("<?xml")


def test_run_takes_a_file_path_adapter_and_a_driver_command(installed):
    bin_dir, project, _ = installed
    by_file = _deltacheck(installed, "run", "--adapter", "my_accumulator.py:MyAccumulator", "--fixture", "DC-8499",
                          "--results", "by-file.jsonl")
    assert by_file.returncode in (0, 1) and "Traceback" not in by_file.stderr, by_file.stderr
    driver = f"{bin_dir / 'python'} -m deltacheck.driver {ADAPTER}"
    by_driver = _deltacheck(installed, "run", "--adapter-cmd", driver, "--fixture", "DC-8499", "--results", "by-driver.jsonl")
    assert by_driver.returncode in (0, 1) and "Traceback" not in by_driver.stderr, by_driver.stderr
    assert (project / "by-file.jsonl").read_text().count('"verdict"') == (project / "by-driver.jsonl").read_text().count('"verdict"')


def test_expectations_gate_on_changes_only(installed):
    _, project, _ = installed
    written = _deltacheck(installed, "run", "--adapter", ADAPTER, "--expectations", "expectations.toml",
                          "--update-expectations")
    assert written.returncode == 0, written.stderr
    assert _deltacheck(installed, "run", "--adapter", ADAPTER, "--expectations", "expectations.toml").returncode == 0
    plugin = _pytest(installed, "--deltacheck-expectations", "expectations.toml")
    assert plugin.returncode == 0, plugin.stdout[-3000:]
    assert " xfailed" in plugin.stdout

    expectations = project / "expectations.toml"
    text = expectations.read_text()
    failing = next(line.split(" = ")[0] for line in text.splitlines() if line.endswith('= "fail"'))
    expectations.write_text(text.replace(f'{failing} = "fail"', f'{failing} = "pass"'))
    regressed = _deltacheck(installed, "run", "--adapter", ADAPTER, "--expectations", "expectations.toml")
    assert regressed.returncode == 1
    assert f"regression: {failing} expected pass, got fail" in regressed.stderr
    plugin = _pytest(installed, "--deltacheck-expectations", "expectations.toml")
    assert plugin.returncode == 1 and f"my-accumulator-{failing}" in plugin.stdout
    expectations.write_text(text)


def test_the_pytest_plugin_generates_one_test_per_fixture_from_the_project_configuration(installed):
    plugin = _pytest(installed, "--deltacheck-fixture", "DC-8499", "-rA")
    assert "deltacheck::test_fixture_conforms[my-accumulator-DC-8499]" in plugin.stdout, plugin.stdout[-3000:]
    assert plugin.returncode in (0, 1)
    typo = _pytest(installed, "--deltacheck-fixture", "DC-ZZZZ")
    assert typo.returncode == 4 and "--deltacheck-fixture DC-ZZZZ: no such fixture" in typo.stderr


def test_the_sdist_carries_what_the_wheel_needs(installed, tmp_path):
    built = _run([sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), str(CHECKOUT)], cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    (sdist,) = tmp_path.glob("deltacheck-*.tar.gz")
    names = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    assert {"setup.py", "CONTRACT.md", "docs/PROTOCOL.md", "corpus/VERSION", "harness/deltacheck/driver/schemas/manifest.schema.json",
            "adapters/node/openai/driver.mjs", "adapters/openai_python/requirements.txt",
            "adapters/litellm/upstream.json", "harness/deltacheck/judge/schemas/upstream.schema.json",
            "harness/deltacheck/contributing/repro/python.tmpl", "harness/deltacheck/contributing/repro/node.tmpl"} <= names
    assert not any("node_modules" in name for name in names)


def test_fuzz_and_mutants_run_from_the_installed_package(installed):
    _, project, _ = installed
    fuzz = _deltacheck(installed, "fuzz", "--adapter", ADAPTER, "--fixture", "DC-0KW2", "--examples", "2")
    assert fuzz.returncode in (0, 1) and "Traceback" not in fuzz.stderr, fuzz.stderr
    assert (project / "results" / "fuzz-my-accumulator.jsonl").is_file()
    mutants = _deltacheck(installed, "mutants")
    assert mutants.returncode == 0 and "kill rate:" in mutants.stderr, mutants.stderr[-2000:]


def test_serve_replays_the_bundled_corpus(installed):
    import re
    import urllib.request

    bin_dir, project, _ = installed
    server = subprocess.Popen([str(bin_dir / "deltacheck"), "serve", "--port", "0"], cwd=project,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        base = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert base, line
        request = urllib.request.Request(f"http://127.0.0.1:{base.group(1)}/DC-8499/v1/chat/completions",
                                         data=b'{"stream": true}', headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read().decode()
        assert body.startswith("data: {") and body.rstrip().endswith("data: [DONE]")
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_explain_runs_an_outside_adapter_and_prints_markdown_for_an_issue(installed):
    text = _deltacheck(installed, "explain", "DC-8499", "--adapter", ADAPTER)
    assert text.returncode == 0 and "library: " in text.stdout and "verdict: " in text.stdout, text.stderr
    markdown = _deltacheck(installed, "explain", "DC-8499", "--adapter", ADAPTER, "--format", "markdown")
    assert markdown.returncode == 0 and markdown.stdout.startswith("**DC-8499@"), markdown.stderr
    assert "### Verdict" in markdown.stdout and "```json" in markdown.stdout and "<details>" in markdown.stdout


def test_explain_writes_reproductions_from_the_installed_adapters(installed, tmp_path):
    bin_dir, _, _ = installed
    python = _deltacheck(installed, "explain", "DC-BPTP", "--adapter", "openai-python-chat", "--repro", "python")
    assert python.returncode == 0, python.stderr
    assert "class OpenAIChatAdapter" in python.stdout and "b'data: {" in python.stdout
    script = tmp_path / "repro.py"
    script.write_text(python.stdout)
    compiled = _run([str(bin_dir / "python"), "-m", "py_compile", str(script)], cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    node = _deltacheck(installed, "explain", "DC-BPTP", "--repro", "node")
    # openai-node's driver code is shared by the folders of both pinned majors, inlined with the loader that runs it
    assert node.returncode == 0 and "(await load('openai')).default" in node.stdout, node.stderr
    assert "await main({ load: (name) => import(name)" in node.stdout


def test_import_and_new_draft_into_the_current_directory_not_the_package(installed):
    _, project, _ = installed
    (project / "capture.sse").write_text(
        'data: {"object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},'
        '"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')
    imported = _deltacheck(installed, "import", "capture.sse")
    assert imported.returncode == 0, imported.stderr
    drafted = Path(imported.stdout.strip())
    assert drafted.parent == project and '"unreviewed"' in drafted.read_text()
    new = _deltacheck(installed, "new", "--protocol", "anthropic-messages", "--title", "a scaffold for a new fixture")
    assert new.returncode == 0 and Path(new.stdout.strip()) == project / "a-scaffold-for-a-new-fixture.json", new.stderr
    bad = _deltacheck(installed, "import", "missing.sse")
    assert bad.returncode == 1 and "missing.sse" in bad.stderr and "Traceback" not in bad.stderr


def test_the_bundled_gateways_ship_in_the_wheel_and_are_found_from_it(installed):
    _, _, wheel = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert {"deltacheck/adapters/gateways/litellm_proxy/gateway.json", "deltacheck/adapters/gateways/litellm_proxy/config.yaml",
            "deltacheck/adapters/gateways/litellm_proxy/requirements.txt",
            "deltacheck/adapters/gateways/claude_code_router/package-lock.json"} <= set(names)
    unknown = _deltacheck(installed, "run", "--gateway", "no-such-gateway")
    assert unknown.returncode == 2
    assert "litellm-proxy-chat-to-responses" in unknown.stderr and "claude-code-router" in unknown.stderr
