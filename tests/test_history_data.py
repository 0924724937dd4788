"""The release history committed in history/: well-formed, made by the command its COMMAND file holds, and
reproduced: a small sample of (adapter, release) pairs is scored again and every verdict must match.

The sample is two releases of openai-python-chat (one scored, one recorded as not drivable), one of
ai-sdk-openai-chat (npm) and Spring AI 1.1.8 (a JVM release below an API boundary, built from the older
driver): each environment is built from its registry once (cached in .venvs/history/) and scored in
seconds. Without the registry (or the language's tools) and without those environments the re-scoring is
skipped with one line. langchain-openai and litellm are left out: their cold environments take 40 s to
2 min to build."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import jsonschema
import pytest

from deltacheck.corpus.loader import load_corpus
from deltacheck.history.building import STAMP
from deltacheck.history.environments import history_env
from deltacheck.history.scoring import score_release
from deltacheck.history.store import BISECT_FILE, COMMITTED, read_history, read_release, release_path
from deltacheck.history.target import NoHistory, find_target

SCHEMA = Path(__file__).parent.parent / "harness" / "deltacheck" / "history" / "schemas" / "bisect.schema.json"
SAMPLE = [
    ("openai-python-chat", "3.57.0"),
    ("openai-python-chat", "1.41.0"),
    ("ai-sdk-openai-chat", "4.0.118"),
    ("spring-ai-openai-chat", "1.1.8"),
]
# Where each kind of release is installed from: reachable, or its environment already built, or skipped.
REGISTRY = {
    "python": "https://pypi.org/simple/openai/",
    "node": "https://registry.npmjs.org/@ai-sdk%2fopenai",
    "java": "https://repo.maven.apache.org/maven2/org/springframework/ai/spring-ai-openai/maven-metadata.xml",
}

assert COMMITTED is not None  # the tests run from the checkout
FOLDERS = sorted(p for p in COMMITTED.iterdir() if p.is_dir()) if COMMITTED.is_dir() else []


def test_history_data_is_committed_for_openai_python_chat_across_three_majors():
    releases = read_history(COMMITTED / "openai-python-chat")
    assert len(releases) >= 20
    assert {int(r.version.split(".")[0]) for r in releases} >= {1, 2, 3}


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_each_committed_history_names_its_command_and_reads_back(folder):
    command = (folder / "COMMAND").read_text(encoding="utf-8")
    assert f"deltacheck history --adapter {folder.name} " in command
    releases = read_history(folder)
    assert releases and all(r.results.adapter["name"] == folder.name for r in releases)
    assert all(r.reason for r in releases if not r.scored)  # never unscorable without a reason
    if (folder / BISECT_FILE).is_file():
        document = json.loads((folder / BISECT_FILE).read_text(encoding="utf-8"))
        jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))
        assert set(document["probed"]) <= {r.version for r in releases}


def _cannot_build(adapter: str, version: str) -> str | None:
    """Why the release cannot be scored here, or None."""
    try:
        target = find_target(adapter)
    except NoHistory as exc:  # a JVM or Node adapter without its tools
        return str(exc)
    if (history_env(target, version) / STAMP).exists():
        return None
    registry = REGISTRY[target.manifest.language]
    try:
        urllib.request.urlopen(registry, timeout=5).close()
    except OSError:
        return f"{registry} is not reachable and {adapter} {version} has no environment"
    return None


@pytest.mark.parametrize(("adapter", "version"), SAMPLE)
def test_a_committed_release_is_reproduced_verdict_for_verdict(adapter, version, tmp_path):
    if (why := _cannot_build(adapter, version)) is not None:
        pytest.skip(f"{why}: not re-scored")
    committed = read_release(release_path(COMMITTED, adapter, version))
    corpus = load_corpus()
    assert committed.results.header["corpus_version"] == corpus.version, (
        f"history/{adapter} was made with corpus {committed.results.header['corpus_version']}, "
        f"this is {corpus.version}: run the commands in history/{adapter}/COMMAND again"
    )
    again = score_release(find_target(adapter), version, corpus, tmp_path, say=lambda _: None)
    assert (again.status, again.reason) == (committed.status, committed.reason)
    verdicts = {r["fixture"]: r["verdict"] for r in again.results.records}
    assert verdicts == {r["fixture"]: r["verdict"] for r in committed.results.records}
    assert again.findings() == committed.findings()
    assert again.results.header["history"].get("driver") == committed.results.header["history"].get("driver")
