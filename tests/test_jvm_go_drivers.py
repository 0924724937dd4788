"""JVM (Maven) and Go drivers: how their environments are built and started, what happens without a
toolchain, and each bundled driver's check-driver run when its toolchain is on this machine."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.driver import external
from deltacheck.cli import main
from deltacheck.driver.envs import MAVEN_REPOSITORY, STAMP_FILE, ensure_env, env_state, launch, missing_tool
from deltacheck.driver.external import external_adapters
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.driver.manifests import load_manifests


class Commands:
    """Records what ensure_env would run, and answers that it worked."""

    def __init__(self) -> None:
        self.run: list[tuple[list[str], Path]] = []

    def __call__(self, command, cwd):
        self.run.append((list(command), Path(cwd)))
        return 0, ""


def jvm_tree(root: Path, entries, poms=("pom.xml",)) -> Path:
    """adapters/jvm/<lib> with a parent pom, the shared driver code and the driver's sources."""
    (root / "jvm" / "common" / "src").mkdir(parents=True)
    (root / "jvm" / "pom.xml").write_text("<project/>")
    (root / "jvm" / "common" / "src" / "Driver.java").write_text("class Driver {}")
    folder = root / "jvm" / "somelib"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "Main.java").write_text("class Main {}")
    for pom in poms:
        (folder / pom).write_text(f"<project><!-- {pom} --></project>")
    (folder / "manifest.json").write_text(json.dumps(entries))
    return folder


def go_tree(root: Path) -> Path:
    (root / "go" / "common").mkdir(parents=True)
    (root / "go" / "go.mod").write_text("module example.invalid/drivers\n")
    (root / "go" / "go.sum").write_text("")
    (root / "go" / "common" / "driver.go").write_text("package common\n")
    folder = root / "go" / "somelib"
    folder.mkdir()
    (folder / "main.go").write_text("package main\n")
    (folder / "manifest.json").write_text(json.dumps([{"name": "somelib-go", "language": "go", "args": ["chat"]}]))
    return folder


def test_a_jvm_driver_is_packaged_once_per_pom_with_a_maven_repository_in_the_envs_dir(tmp_path):
    folder = jvm_tree(tmp_path / "adapters", [
        {"name": "somelib-chat", "language": "java", "args": ["chat"]},
        {"name": "somelib-chat@1", "language": "java", "args": ["chat"], "pom": "pom-1.xml"}], poms=("pom.xml", "pom-1.xml"))
    manifests = load_manifests(tmp_path / "adapters")
    assert manifests.problems == ()
    current, older = manifests.adapters
    assert (current.env_name, older.env_name) == ("jvm-somelib", "jvm-somelib-1")
    envs, commands = tmp_path / "envs", Commands()
    ensure_env(current, envs_dir=envs, run=commands, log=lambda line: None)
    ensure_env(current, envs_dir=envs, run=commands, log=lambda line: None)  # stamped: not again
    ((command, cwd),) = commands.run
    assert command == ["mvn", "-B", "-q", "-Dstyle.color=never", f"-Dmaven.repo.local={envs / MAVEN_REPOSITORY}",
                       "-f", "pom.xml", "package"]
    # Built in a copy beside the environment: nothing is written into the adapters folder.
    assert cwd == envs / "jvm-somelib" / "src" / "somelib"
    assert (cwd / "src" / "Main.java").is_file() and (cwd.parent / "common" / "src" / "Driver.java").is_file()
    assert not (cwd / "pom-1.xml").exists()  # the other pin's build file belongs to the other environment
    spec = launch(current, envs_dir=envs, adapters_dir=tmp_path / "adapters")
    assert spec.command[0] == "java" and spec.command[-3:] == ("-jar", str(cwd / "target" / "driver.jar"), "chat")
    assert spec.env["DELTACHECK_ADAPTER_NAME"] == "somelib-chat"
    # The shared driver code, the driver's sources and its pom each make the environment stale.
    for changed in (tmp_path / "adapters" / "jvm" / "common" / "src" / "Driver.java", folder / "src" / "Main.java",
                    folder / "pom.xml"):
        before = changed.read_text()
        changed.write_text(before + " ")
        assert env_state(current, envs) == "stale", changed
        changed.write_text(before)
        assert env_state(current, envs) == "ready", changed
    (folder / "pom-1.xml").write_text("<project><!-- another pin --></project>")
    assert (env_state(current, envs), env_state(older, envs)) == ("ready", "missing")


def test_a_go_driver_is_built_read_only_into_its_environment(tmp_path):
    folder = go_tree(tmp_path / "adapters")
    (manifest,) = load_manifests(tmp_path / "adapters").adapters
    envs, commands = tmp_path / "envs", Commands()
    ensure_env(manifest, envs_dir=envs, run=commands, log=lambda line: None)
    ((command, cwd),) = commands.run
    assert command == ["go", "build", "-mod=readonly", "-trimpath", "-o", str(envs / "go-somelib" / "driver"), "./somelib"]
    assert cwd == folder.parent
    assert (envs / "go-somelib" / STAMP_FILE).is_file()
    (tmp_path / "adapters" / "go" / "go.sum").write_text("example.invalid/x v1.0.0 h1:abc=\n")
    assert env_state(manifest, envs) == "stale"
    spec = launch(manifest, envs_dir=envs, adapters_dir=tmp_path / "adapters")
    assert spec.command == (str(envs / "go-somelib" / "driver"), "chat")


def test_a_java_manifest_with_node_fields_or_a_missing_pom_is_a_manifest_problem(tmp_path):
    jvm_tree(tmp_path / "adapters", [
        {"name": "a", "language": "java", "command": ["java", "Main"]},
        {"name": "b", "language": "java", "pom": "pom-9.xml"}])
    manifests = load_manifests(tmp_path / "adapters")
    assert manifests.adapters == ()
    assert [(p.field, "['java', 'Main']" in p.message or "pom-9.xml" in p.message) for p in manifests.problems] == [
        ("/0", True), ("/1/pom", True)]


def bundled(language: str) -> list[str]:
    return [m.name for m in load_manifests().adapters if m.language == language]


def path_without_toolchains(tmp_path: Path) -> str:
    """A PATH that still finds node (Node drivers are probed) but no java, mvn or go."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    node = shutil.which("node")
    if node:
        (bin_dir / "node").symlink_to(node)
    return str(bin_dir)


def test_without_a_toolchain_its_adapters_are_skipped_in_one_line_each(tmp_path, monkeypatch, capsys):
    assert bundled("java") and bundled("go")
    monkeypatch.setenv("PATH", path_without_toolchains(tmp_path))
    monkeypatch.setattr(external, "_announced", set())
    assert missing_tool("java") == "java" and missing_tool("go") == "go"
    adapters, problems = external_adapters(set())
    external_adapters(set())  # the registry is read many times; the notice is said once
    assert problems == []
    assert not set(adapters) & set(bundled("java") + bundled("go"))
    lines = capsys.readouterr().err.splitlines()
    jvm, go = len(bundled("java")), len(bundled("go"))
    assert sorted(lines) == [
        f"deltacheck: skipped {go} Go adapter{'s' if go != 1 else ''}: go not found on PATH ({', '.join(bundled('go'))})",
        f"deltacheck: skipped {jvm} JVM adapters: java not found on PATH ({', '.join(bundled('java'))})"]


def test_adapters_lists_the_rest_when_a_toolchain_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", path_without_toolchains(tmp_path))
    monkeypatch.setattr(external, "_announced", set())
    outcome = CliRunner().invoke(main, ["adapters", "--format", "json"])
    assert outcome.exit_code == 0, outcome.output
    listed = {a["name"] for a in json.loads(outcome.stdout)}
    assert "reference" in listed and not listed & set(bundled("java") + bundled("go"))
    assert outcome.stderr.count("JVM adapters: java not found on PATH") == 1


# -- the bundled drivers, when their toolchain is here ---------------------------------------------


@pytest.mark.parametrize("name", bundled("java") + bundled("go"))
def test_bundled_driver_passes_check_driver(name):
    (manifest,) = [m for m in load_manifests().adapters if m.name == name]
    tool = missing_tool(manifest.language)
    if tool:
        pytest.skip(f"{tool} is not on PATH")
    ensure_env(manifest)
    command = shlex.join(launch(manifest, adapters_dir=ADAPTERS_DIR).command)
    outcome = CliRunner().invoke(main, ["check-driver", "--adapter-cmd", command])
    lines = [line for line in outcome.output.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert lines[0].startswith("PASS  answers `start` with a valid hello: "), outcome.output
    # Every bundled driver passes: Koog's Responses client, which rejects a response object without the
    # fields the Response schema requires, gets them in every fixture since corpus 1.4.0 and Unreleased.
    failed = [line for line in lines if line.startswith("FAIL")]
    assert failed == [] and outcome.exit_code == 0, outcome.output
    assert lines[-2:] == ["PASS  writes nothing but protocol lines to stdout", "PASS  exits with status 0 on `stop`"]


# -- replay: a byte-level fixture reaches the library in the reads it cuts (docs/PROTOCOL.md, `sse_cuts`)


def chunked_response(base_url: str) -> tuple[bytes, list[bytes]]:
    """The response head, and each chunk of the replay's chunked response: one per flush, so one per slice the
    replay wrote."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(base_url)
    with socket.create_connection((where.hostname, where.port), timeout=5) as sock:
        sock.sendall(b"GET /v1/chat/completions HTTP/1.1\r\nHost: replay\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    pieces = []
    while True:
        size_line, body = body.split(b"\r\n", 1)
        size = int(size_line, 16)
        if size == 0:
            return head, pieces
        pieces.append(body[:size])
        body = body[size + 2:]


def chunked_body_pieces(base_url: str) -> list[bytes]:
    return chunked_response(base_url)[1]


SSE = 'data: {"c":"é"}\n\ndata: [DONE]\n\n'.encode()
CUT = SSE.index("é".encode()) + 1  # between the two bytes of é


def test_the_jvm_replay_writes_a_byte_level_fixture_in_its_cuts(tmp_path):
    import subprocess

    if shutil.which("javac") is None:
        pytest.skip("javac is not on PATH")
    (tmp_path / "Probe.java").write_text(
        "import dev.deltacheck.driver.Replay;\nimport java.util.*;\n"
        "public class Probe { public static void main(String[] args) throws Exception {\n"
        "  Replay replay = Replay.start();\n"
        f"  replay.serve(Map.of(\"sse\", args[0], \"sse_cuts\", List.of({CUT}, {CUT + 5})));\n"
        "  System.out.println(replay.baseUrl()); System.out.flush(); System.in.read(); System.exit(0); } }\n")
    replay_java = ADAPTERS_DIR / "jvm" / "common" / "src" / "main" / "java" / "dev" / "deltacheck" / "driver" / "Replay.java"
    subprocess.run(["javac", "-d", str(tmp_path), str(replay_java), str(tmp_path / "Probe.java")], check=True)
    probe = subprocess.Popen(["java", "-cp", str(tmp_path), "Probe", SSE.decode()], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        base_url = probe.stdout.readline().strip()
        assert chunked_body_pieces(base_url) == [SSE[:CUT], SSE[CUT:CUT + 5], SSE[CUT + 5:]]
    finally:
        probe.stdin.close()
        probe.wait(timeout=10)


def test_the_jvm_replay_serves_a_binary_body_as_an_event_stream_in_its_cuts(tmp_path):
    """A bedrock-converse request carries `body_base64` instead of `sse` (docs/PROTOCOL.md): those exact bytes,
    as `application/vnd.amazon.eventstream`, in the reads `sse_cuts` gives."""
    import base64
    import subprocess

    if shutil.which("javac") is None:
        pytest.skip("javac is not on PATH")
    body = bytes(range(256)) * 2  # not UTF-8: any decoding on the way would show
    (tmp_path / "Probe.java").write_text(
        "import dev.deltacheck.driver.Replay;\nimport java.util.*;\n"
        "public class Probe { public static void main(String[] args) throws Exception {\n"
        "  Replay replay = Replay.start();\n"
        "  replay.serve(Map.of(\"body_base64\", args[0], \"sse_cuts\", List.of(1, 300)));\n"
        "  System.out.println(replay.baseUrl()); System.out.flush(); System.in.read(); System.exit(0); } }\n")
    replay_java = ADAPTERS_DIR / "jvm" / "common" / "src" / "main" / "java" / "dev" / "deltacheck" / "driver" / "Replay.java"
    subprocess.run(["javac", "-d", str(tmp_path), str(replay_java), str(tmp_path / "Probe.java")], check=True)
    probe = subprocess.Popen(["java", "-cp", str(tmp_path), "Probe", base64.b64encode(body).decode()],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        base_url = probe.stdout.readline().strip()
        head, pieces = chunked_response(base_url)
        assert pieces == [body[:1], body[1:300], body[300:]]
        assert b"\r\ncontent-type: application/vnd.amazon.eventstream" in head.lower()
    finally:
        probe.stdin.close()
        probe.wait(timeout=10)


def test_the_go_replay_writes_a_byte_level_fixture_in_its_cuts():
    import subprocess

    if shutil.which("go") is None:
        pytest.skip("go is not on PATH")
    # adapters/go/common/replay_test.go reads the replay's chunked response as this file does for the JVM.
    outcome = subprocess.run(["go", "test", "-mod=readonly", "-count=1", "./common/"], cwd=ADAPTERS_DIR / "go",
                             capture_output=True, text=True)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
