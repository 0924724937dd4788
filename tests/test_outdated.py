"""`deltacheck envs --outdated`: every pin behind the newest release its registry serves.

The registries are a local server here (tests never reach the network): PyPI's JSON API, the npm
registry's abbreviated documents, Maven Central's metadata and the Go module proxy, each answering
only what a test gives it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from deltacheck.cli import main
from deltacheck.locations import ADAPTERS_DIR
from deltacheck.pins import outdated, read, registries
from deltacheck.pins.read import Pin
from deltacheck.pins.versions import parse

# -- a fake of the four registries ---------------------------------------------------------------


class FakeRegistries:
    """Answers GET <path> with what `routes` holds for it (status, body); anything else is 404."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes]] = {}
        self.asked: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.asked.append(self.path)
                status, body = fake.routes.get(self.path, (404, b"not found"))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.registries = registries.Registries(f"{base}/pypi", f"{base}/npm", f"{base}/maven2", f"{base}/go")

    def pypi(self, name: str, versions: dict[str, list[dict]]) -> None:
        self.routes[f"/pypi/{name}/json"] = (200, json.dumps({"releases": versions}).encode())

    def npm(self, name: str, versions: dict[str, dict]) -> None:
        path = "/npm/" + name.replace("/", "%2F")
        self.routes[path] = (200, json.dumps({"name": name, "versions": versions}).encode())

    def maven(self, coordinates: str, versions: list[str]) -> None:
        group, artifact = coordinates.split(":")
        listed = "".join(f"<version>{v}</version>" for v in versions)
        body = f"<metadata><versioning><versions>{listed}</versions></versioning></metadata>"
        self.routes[f"/maven2/{group.replace('.', '/')}/{artifact}/maven-metadata.xml"] = (200, body.encode())

    def go(self, module: str, versions: list[str]) -> None:
        self.routes[f"/go/{module}/@v/list"] = (200, "".join(f"{v}\n" for v in versions).encode())


@pytest.fixture
def fake() -> Iterator[FakeRegistries]:
    fake = FakeRegistries()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


FILE = [{"filename": "x.whl", "yanked": False}]


# -- versions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ecosystem", "older", "newer"),
    [
        ("pypi", "1.9.0", "1.10.0"),
        ("pypi", "2.0.0rc1", "2.0.0"),
        ("pypi", "0.4.110", "0.4.114.post1"),
        ("npm", "6.0.9", "6.0.10"),
        ("npm", "7.0.0-beta.2", "7.0.0-beta.10"),
        ("npm", "7.0.0-beta.10", "7.0.0"),
        ("go", "v3.9.0", "v3.10.0"),
        ("go", "v1.2.4-0.20240101000000-abcdefabcdef", "v1.2.4"),
        ("maven", "1.0.0-M6", "1.0.0"),
        ("maven", "1.0.0-RC1", "1.0.0"),
        ("maven", "1.0.0", "1.0.1"),
        ("maven", "3.3.9", "3.3.10"),
        ("maven", "32.1.0-jre", "33.0.0-jre"),
    ],
)
def test_versions_are_ordered_as_the_registrys_own_tools_order_them(ecosystem, older, newer):
    assert parse(ecosystem, older) < parse(ecosystem, newer)


@pytest.mark.parametrize(
    ("ecosystem", "version", "pre_release"),
    [
        ("pypi", "4.0.0rc1", True),
        ("pypi", "4.0.0.dev3", True),
        ("pypi", "4.0.0.post1", False),
        ("npm", "7.0.0-canary.3", True),
        ("npm", "7.0.0", False),
        ("go", "v0.0.0-20240101000000-abcdefabcdef", True),
        ("maven", "2.0.0-M1", True),
        ("maven", "1.0.0-beta4", True),
        ("maven", "2.3.20-Beta1", True),
        ("maven", "1.0-SNAPSHOT", True),
        ("maven", "6.2.0.Final", False),
        ("maven", "33.0.0-jre", False),
    ],
)
def test_pre_releases_are_recognised(ecosystem, version, pre_release):
    assert parse(ecosystem, version).pre_release is pre_release


# -- reading the pinned files ----------------------------------------------------------------------


def test_a_requirements_file_gives_its_own_pins_and_frozen_ones(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text(
        "# What the adapter imports, pinned:\n"
        "pydantic-ai-slim[openai,anthropic]==2.68.0\n"
        "Some_Lib==1.0\n"
        "# Everything else, frozen from a clean install of the above (pip freeze), so every machine builds the\n"
        "# same environment and REPORT.md does not move under a transitive release:\n"
        "anyio==4.16.0\n"
        "ranged>=1.0\n"
    )
    pins = read.requirements_pins(path)
    assert [(p.package, p.version, p.frozen) for p in pins] == [
        ("pydantic-ai-slim", "2.68.0", False),
        ("some-lib", "1.0", False),
        ("anyio", "4.16.0", True),
    ]


def test_a_package_json_gives_exact_versions_and_aliases(tmp_path):
    path = tmp_path / "package.json"
    path.write_text(
        json.dumps(
            {
                "dependencies": {"ai": "6.0.325", "@ai-sdk/openai": "3.0.141", "old": "npm:openai@6.49.0"},
                "devDependencies": {"ranged": "^1.2.3", "local": "file:../common"},
            }
        )
    )
    assert [(p.package, p.version) for p in read.package_json_pins(path)] == [
        ("ai", "6.0.325"),
        ("@ai-sdk/openai", "3.0.141"),
        ("openai", "6.49.0"),
    ]


def test_a_pom_gives_dependencies_plugins_and_the_version_properties_they_use(tmp_path):
    path = tmp_path / "pom.xml"
    path.write_text(
        """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>dev.deltacheck.adapters</groupId><artifactId>jvm-drivers</artifactId><version>1</version></parent>
  <properties><ktor.version>3.3.3</ktor.version><maven.compiler.release>17</maven.compiler.release></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>tools.jackson</groupId><artifactId>jackson-bom</artifactId><version>3.1.5</version></dependency>
  </dependencies></dependencyManagement>
  <dependencies>
    <dependency><groupId>io.ktor</groupId><artifactId>ktor-client-cio-jvm</artifactId><version>${ktor.version}</version></dependency>
    <dependency><groupId>io.ktor</groupId><artifactId>ktor-client-core-jvm</artifactId><version>${ktor.version}</version></dependency>
    <dependency><groupId>org.example</groupId><artifactId>managed</artifactId></dependency>
  </dependencies>
  <build><plugins><plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin></plugins></build>
</project>"""
    )
    assert [(p.label, p.version) for p in read.pom_pins(path)] == [
        ("tools.jackson:jackson-bom", "3.1.5"),
        ("ktor.version (io.ktor:ktor-client-cio-jvm)", "3.3.3"),
        ("org.apache.maven.plugins:maven-jar-plugin", "3.4.2"),
    ]


def test_a_go_mod_gives_its_requirements_and_marks_indirect_ones_frozen(tmp_path):
    path = tmp_path / "go.mod"
    path.write_text(
        "module x\n\ngo 1.26.0\n\nrequire github.com/openai/openai-go/v3 v3.98.0\n\n"
        "require (\n\tgithub.com/tidwall/gjson v1.20.0 // indirect\n\tgithub.com/a/b v0.1.0\n)\n"
    )
    assert [(p.package, p.version, p.frozen) for p in read.go_mod_pins(path)] == [
        ("github.com/openai/openai-go/v3", "v3.98.0", False),
        ("github.com/tidwall/gjson", "v1.20.0", True),
        ("github.com/a/b", "v0.1.0", False),
    ]


def _adapters(tmp_path: Path) -> Path:
    """An adapters folder with one library pinned twice (`mylib` and `mylib@1`) and a gateway."""
    folder = tmp_path / "adapters" / "mylib"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(
        json.dumps(
            [
                {"name": "mylib", "entry": "m:A", "requirements": "requirements.txt", "language": "python"},
                {"name": "mylib@1", "entry": "m:A", "requirements": "requirements-1.txt", "language": "python"},
            ]
        )
    )
    (folder / "requirements.txt").write_text("mylib==2.3.0\nhttpx==0.28.1\n")
    (folder / "requirements-1.txt").write_text("mylib==1.4.0\nhttpx==0.28.1\n")
    return tmp_path / "adapters"


def test_a_second_pin_of_another_version_is_kept_and_the_rest_of_its_file_is_not(tmp_path):
    pins = read.bundled_pins(_adapters(tmp_path))
    assert [(p.file.name, p.package, p.kept_beside) for p in pins] == [
        ("requirements-1.txt", "mylib", ("2.3.0",)),
        ("requirements-1.txt", "httpx", ()),
        ("requirements.txt", "mylib", ()),
        ("requirements.txt", "httpx", ()),
    ]


def test_naming_an_adapter_narrows_to_its_files(tmp_path):
    pins = read.bundled_pins(_adapters(tmp_path), ["mylib@1"])
    assert {p.file.name for p in pins} == {"requirements-1.txt"}
    assert [p.package for p in pins if p.kept] == ["mylib"]


# -- asking the registries -------------------------------------------------------------------------


def test_each_registry_gives_its_newest_release_and_pre_releases_are_not_newer(fake, tmp_path):
    fake.pypi(
        "mylib",
        {
            "2.3.0": FILE,
            "2.4.0": FILE,
            "2.5.0": [{"filename": "y.whl", "yanked": True}],
            "3.0.0rc1": FILE,
            "2.6.0": [],
        },
    )
    fake.npm("@ai-sdk/openai", {"3.0.141": {}, "4.0.0": {}, "4.0.1": {"deprecated": "broken"}, "5.0.0-beta.1": {}})
    fake.maven("io.ktor:ktor-client-cio-jvm", ["3.3.3", "3.4.0", "3.5.0-eap-12", "3.4.1-SNAPSHOT"])
    fake.go("github.com/openai/openai-go/v3", ["v3.98.0", "v3.100.0", "v3.101.0-beta.1"])
    file = tmp_path / "pins"
    pins = [
        Pin(file, "pypi", "mylib", "2.3.0"),
        Pin(file, "npm", "@ai-sdk/openai", "3.0.141"),
        Pin(file, "maven", "io.ktor:ktor-client-cio-jvm", "3.3.3", prop="ktor.version"),
        Pin(file, "go", "github.com/openai/openai-go/v3", "v3.98.0"),
    ]
    outcome = outdated.outdated(pins, fake.registries)
    assert [(b.pin.label, b.newest, b.note) for b in outcome.behind] == [
        ("mylib", "2.4.0", ""),
        ("@ai-sdk/openai", "4.0.0", ""),
        ("ktor.version (io.ktor:ktor-client-cio-jvm)", "3.4.0", ""),
        ("github.com/openai/openai-go/v3", "v3.100.0", ""),
    ]
    assert (outcome.checked, outcome.unchecked) == (4, [])


def test_a_pin_at_the_newest_release_is_not_listed(fake, tmp_path):
    fake.pypi("mylib", {"2.3.0": FILE, "2.2.0": FILE, "2.4.0a1": FILE})
    outcome = outdated.outdated([Pin(tmp_path, "pypi", "mylib", "2.3.0")], fake.registries)
    assert outcome.behind == [] and outcome.checked == 1


def test_a_kept_previous_major_is_compared_within_its_major_and_says_so(fake, tmp_path):
    fake.pypi("mylib", {"1.4.0": FILE, "1.5.2": FILE, "2.3.0": FILE, "2.4.0": FILE})
    pins = read.bundled_pins(_adapters(tmp_path))
    fake.pypi("httpx", {"0.28.1": FILE})
    outcome = outdated.outdated(pins, fake.registries)
    assert [(b.pin.file.name, b.newest, b.note) for b in outcome.behind] == [
        ("requirements-1.txt", "1.5.2", "previous major kept beside 2.3.0: newest of major 1"),
        ("requirements.txt", "2.4.0", ""),
    ]


def test_a_go_modules_next_major_path_is_found(fake, tmp_path):
    fake.go("github.com/x/lib/v3", ["v3.1.0"])
    fake.go("github.com/x/lib/v4", ["v4.0.0", "v4.0.1"])
    outcome = outdated.outdated([Pin(tmp_path, "go", "github.com/x/lib/v3", "v3.1.0")], fake.registries)
    assert [(b.newest, b.note) for b in outcome.behind] == [
        ("v4.0.1", "a new major is another module path: github.com/x/lib/v4")
    ]


def test_a_registry_that_cannot_answer_is_one_line_naming_the_package_and_the_rest_is_checked(fake, tmp_path):
    fake.routes["/pypi/broken/json"] = (503, b"down")
    fake.pypi("mylib", {"2.3.0": FILE, "2.4.0": FILE})
    pins = [Pin(tmp_path / "a.txt", "pypi", "broken", "1.0"), Pin(tmp_path / "b.txt", "pypi", "broken", "1.0")]
    pins.append(Pin(tmp_path / "a.txt", "pypi", "mylib", "2.3.0"))
    outcome = outdated.outdated(pins, fake.registries)
    text = outdated.lines(outcome, tmp_path)
    assert text[0].split() == ["a.txt", "mylib", "2.3.0", "2.4.0"]
    assert len(text) == 2 and text[1].startswith("not checked: broken (pypi): ") and "503" in text[1]
    assert outdated.summary(outcome) == "1 of 1 pins behind the newest release; 1 package not checked"
    assert fake.asked.count("/pypi/broken/json") == 1


def test_an_unreachable_registry_is_named(tmp_path):
    closed = registries.Registries(pypi="http://127.0.0.1:9/pypi")  # the discard port: nothing listens
    outcome = outdated.outdated([Pin(tmp_path, "pypi", "mylib", "1.0")], closed)
    assert outcome.unchecked[0].package == "mylib" and "could not be reached" in outcome.unchecked[0].reason


# -- the command -----------------------------------------------------------------------------------


def test_envs_outdated_lists_the_bundled_pins_behind_and_exits_0(fake, monkeypatch):
    """Over the real adapters folder: every registry answers 404 but for openai (PyPI) and ai (npm, down)."""
    fake.pypi("openai", {"2.54.0": FILE, "2.99.0": FILE, "3.57.0": FILE, "3.99.0": FILE, "4.0.0rc1": FILE})
    fake.routes["/npm/ai"] = (503, b"")
    monkeypatch.setattr(registries, "PUBLIC", fake.registries)
    result = CliRunner().invoke(main, ["envs", "--outdated"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    openai_lines = [line.split(None, 4) for line in lines if line.split()[1:2] == ["openai"]]
    expected_files = sorted(
        str(p.relative_to(ADAPTERS_DIR.parent))
        for p in ADAPTERS_DIR.glob("*/requirements*.txt")
        if any(line.startswith("openai==") for line in p.read_text().splitlines())
    )
    assert sorted(row[0] for row in openai_lines) == expected_files
    for row in openai_lines:
        if row[0].endswith("openai_python/requirements-2.txt"):
            assert row[3:] == ["2.99.0", "(previous major kept beside 3.57.0: newest of major 2)"]
        else:
            assert row[3:] == ["3.99.0"]
    assert any(line.startswith("not checked: ai (npm): ") and "503" in line for line in lines)
    assert lines[-1].startswith(f"{len(openai_lines)} of ") and "pins behind the newest release" in lines[-1]
    assert "frozen pins left out: --frozen" in lines[-1]


def test_envs_outdated_help_says_what_it_compares():
    text = " ".join(CliRunner().invoke(main, ["envs", "--help"]).output.split())
    assert "--outdated" in text and "releases are not newer" in text and "its own major" in text


def test_frozen_without_outdated_is_a_usage_error():
    result = CliRunner().invoke(main, ["envs", "--frozen"])
    assert result.exit_code == 2 and "--frozen goes with --outdated" in result.output
