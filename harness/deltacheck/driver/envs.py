"""The environment each manifest adapter runs in, and the command that starts its driver.

python: one virtualenv per (folder, requirements file) under `.venvs/<env name>`, with the pinned
requirements installed by pip. node: the manifest's `setup` command (npm ci) run in its folder.
java: the Maven project (its pom pins every library exactly) copied with the shared driver code
into `.venvs/jvm-<folder>[-<tag>]/src` and packaged there into a runnable jar, with a Maven
repository of its own under `.venvs/maven-repository` (nothing read from or written to ~/.m2).
go: the folder's package of the Go module `adapters/go` built into `.venvs/go-<folder>/driver`,
with -mod=readonly (go.sum pins every module).
Each is redone only when the stamp file (a hash of what it was built from) no longer matches,
and rebuilt from scratch then, so an upgraded pin never leaves stale packages behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from deltacheck.driver.manifests import ADAPTERS_DIR, BUILT_LANGUAGES, Manifest
from deltacheck.errors import EnvironmentFailed
from deltacheck.locations import CHECKOUT, PACKAGE_DIR
from deltacheck.locations import envs_dir as default_envs_dir

ENVS_DIR = default_envs_dir()
STAMP_FILE = "deltacheck.stamp"
OUTPUT_TAIL = 3000
MAVEN_REPOSITORY = "maven-repository"

# What must be on PATH to build and run each language's drivers; without it they are skipped.
TOOLCHAINS = {"java": ("java", "mvn"), "go": ("go",)}
# Shared by every driver of the language, relative to its build root (adapters/jvm, adapters/go).
SHARED_SOURCES = {"java": ("pom.xml", "common"), "go": ("go.mod", "go.sum", "common")}
BUILD_OUTPUTS = ("target", "node_modules", "__pycache__")
# A JVM driver answers small requests one at a time: start fast, and leave the second core alone.
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss4m")

# (command, cwd) -> (exit status, combined output); replaced in tests.
Runner = Callable[[Sequence[str], Path], tuple[int, str]]


def run_command(command: Sequence[str], cwd: Path) -> tuple[int, str]:
    try:
        done = subprocess.run(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
    except OSError as exc:
        return 127, str(exc)
    return done.returncode, done.stdout


@dataclass(frozen=True)
class Launch:
    """How to start one manifest adapter's driver."""

    command: tuple[str, ...]
    cwd: str
    env: dict[str, str]


def env_dir(manifest: Manifest, envs_dir: Path = ENVS_DIR) -> Path:
    return envs_dir / manifest.env_name


def missing_tool(language: str) -> str | None:
    """The first tool the language's drivers need that is not on PATH, if any."""
    return next((tool for tool in TOOLCHAINS.get(language, ()) if shutil.which(tool) is None), None)


def build_sources(manifest: Manifest) -> list[Path]:
    """java, go: every file the driver is built from: the shared build files, then its own folder.

    A second pinned version's build file (pom-<tag>.xml) belongs to its own environment only.
    """
    root = manifest.build_root
    tops = [root / name for name in SHARED_SOURCES[manifest.language]] + [manifest.folder]
    files = []
    for top in tops:
        candidates = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in candidates:
            parts = path.relative_to(root).parts
            if any(part in BUILD_OUTPUTS for part in parts):
                continue
            if path.parent == manifest.folder and path.name.startswith("pom") and path.name != manifest.pom:
                continue
            files.append(path)
    return files


def wanted_stamp(manifest: Manifest) -> str:
    """A hash of everything the environment is built from."""
    digest = hashlib.sha256()
    if manifest.language == "python":
        digest.update(f"python {sys.version_info.major}.{sys.version_info.minor}\n".encode())
        assert manifest.requirements is not None  # every python entry names one (checked when it is read)
        digest.update((manifest.folder / manifest.requirements).read_bytes())
    elif manifest.language in BUILT_LANGUAGES:
        digest.update(f"{manifest.language} {manifest.pom}\n".encode())
        for path in build_sources(manifest):
            digest.update(f"{path.relative_to(manifest.build_root).as_posix()}\n".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    else:
        digest.update(json.dumps(list(manifest.setup)).encode())
        lock = manifest.folder / "package-lock.json"
        digest.update(lock.read_bytes() if lock.is_file() else b"no package-lock.json")
    return digest.hexdigest()


def env_state(manifest: Manifest, envs_dir: Path = ENVS_DIR) -> str:
    """`ready`, `missing` or `stale` (built from other requirements); never builds anything."""
    if manifest.language == "node" and not manifest.setup:
        return "ready"
    stamp = env_dir(manifest, envs_dir) / STAMP_FILE
    if not stamp.is_file():
        return "missing"
    return "ready" if stamp.read_text(encoding="utf-8").strip() == wanted_stamp(manifest) else "stale"


def ensure_env(
    manifest: Manifest,
    *,
    envs_dir: Path = ENVS_DIR,
    rebuild: bool = False,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    run: Runner = run_command,
) -> bool:
    """Build the environment unless its stamp matches; True when it built. EnvironmentFailed quotes the output."""
    if manifest.language == "node" and not manifest.setup:
        return False
    envs_dir.mkdir(parents=True, exist_ok=True)
    with (envs_dir / f"{manifest.env_name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs building the same env at once would corrupt it
        if not rebuild and env_state(manifest, envs_dir) == "ready":
            return False
        target = env_dir(manifest, envs_dir)
        shutil.rmtree(target, ignore_errors=True)
        if manifest.language == "python":
            assert manifest.requirements is not None  # every python entry names one (checked when it is read)
            steps = [
                [sys.executable, "-m", "venv", str(target)],
                [
                    str(target / "bin" / "python"),
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--no-input",
                    "-r",
                    str(manifest.folder / manifest.requirements),
                ],
            ]
            cwd = manifest.folder
        elif manifest.language == "java":
            assert manifest.pom is not None  # reading a manifest gives every java entry one (pom.xml by default)
            cwd = copy_build_sources(manifest, target / "src")
            steps = [maven_package(manifest, envs_dir)]
        elif manifest.language == "go":
            # Built in place: `go build -mod=readonly` writes nothing into the sources, only the binary.
            cwd = manifest.build_root
            steps = [
                ["go", "build", "-mod=readonly", "-trimpath", "-o", str(target / "driver"), f"./{manifest.folder.name}"]
            ]
        else:
            steps = [list(manifest.setup)]
            _copy_node_sources(manifest, envs_dir)
            cwd = node_folder(manifest, envs_dir)
        for command in steps:
            log(f"{manifest.env_name}: {' '.join(command)}")
            with maven_lock(envs_dir) if command[0] == "mvn" else _no_lock():
                status, output = run(command, cwd)
            if status != 0:
                raise EnvironmentFailed(manifest.env_name, command, output[-OUTPUT_TAIL:].rstrip())
        target.mkdir(parents=True, exist_ok=True)
        (target / STAMP_FILE).write_text(wanted_stamp(manifest) + "\n", encoding="utf-8")
        return True


def node_folder(manifest: Manifest, envs_dir: Path = ENVS_DIR) -> Path:
    """Where a Node driver's packages are installed and where it runs.

    Its own folder (`npm ci` there, as a contributor expects), except for a driver shipped inside an
    installed deltacheck: that one is copied beside its environment, so nothing is ever written into
    the installed package.
    """
    if CHECKOUT is None and PACKAGE_DIR in manifest.folder.parents:
        return env_dir(manifest, envs_dir) / "node" / manifest.folder.name
    return manifest.folder


def _copy_node_sources(manifest: Manifest, envs_dir: Path) -> None:
    """Copy the driver with its siblings (drivers share `node/common/`), without installed packages."""
    folder = node_folder(manifest, envs_dir)
    if folder != manifest.folder:
        shutil.copytree(manifest.folder.parent, folder.parent, ignore=shutil.ignore_patterns("node_modules"))


def copy_build_sources(manifest: Manifest, source: Path) -> Path:
    """Copy the shared build files and the driver's folder under `source`; the driver's folder in the copy.

    JVM drivers are built there: Maven writes its output beside the sources, and the sources may sit
    inside an installed package. A release history builds Go drivers from such a copy too.
    """
    for path in build_sources(manifest):
        copy = source / path.relative_to(manifest.build_root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    return source / manifest.folder.name


def maven_package(manifest: Manifest, envs_dir: Path) -> list[str]:
    """The Maven build of a JVM driver's pom, into the Maven repository every driver shares."""
    assert manifest.pom is not None  # reading a manifest gives every java entry one (pom.xml by default)
    return ["mvn", "-B", "-q", "-Dstyle.color=never", f"-Dmaven.repo.local={envs_dir / MAVEN_REPOSITORY}"] + [
        "-f",
        manifest.pom,
        "package",
    ]


def jvm_command(manifest: Manifest, jar: Path) -> tuple[str, ...]:
    """How a built JVM driver is started."""
    return ("java", *JVM_OPTIONS, "-jar", str(jar), *manifest.args)


def jvm_jar(manifest: Manifest, envs_dir: Path = ENVS_DIR) -> Path:
    """The runnable jar the JVM build leaves (the parent pom names it driver.jar)."""
    return env_dir(manifest, envs_dir) / "src" / manifest.folder.name / "target" / "driver.jar"


@contextmanager
def maven_lock(envs_dir: Path) -> Iterator[None]:
    """One Maven build at a time writes to the shared local repository."""
    with (envs_dir / f"{MAVEN_REPOSITORY}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextmanager
def _no_lock() -> Iterator[None]:
    yield


def launch(manifest: Manifest, *, envs_dir: Path = ENVS_DIR, adapters_dir: Path = ADAPTERS_DIR) -> Launch:
    """The driver command and environment; the manifest name travels in DELTACHECK_ADAPTER_NAME."""
    env = {**os.environ, "DELTACHECK_ADAPTER_NAME": manifest.name}
    if manifest.language == "node":
        return Launch(manifest.command, str(node_folder(manifest, envs_dir)), env)
    if manifest.language == "java":
        return Launch(jvm_command(manifest, jvm_jar(manifest, envs_dir)), str(env_dir(manifest, envs_dir)), env)
    if manifest.language == "go":
        return Launch(
            (str(env_dir(manifest, envs_dir) / "driver"), *manifest.args), str(env_dir(manifest, envs_dir)), env
        )
    # The driver is booted with `deltacheck` and `deltacheck.adapters` registered from these folders;
    # nothing from the harness's own environment is on the adapter's path.
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    python = env_dir(manifest, envs_dir) / "bin" / "python"
    assert manifest.entry is not None  # the manifest schema requires it of a python entry
    command = (
        str(python),
        "-P",
        str(PACKAGE_DIR / "driver" / "boot.py"),
        str(PACKAGE_DIR),
        str(adapters_dir),
        manifest.entry,
    )
    return Launch(command, str(adapters_dir.parent), env)


# -- re-locking a requirements file --------------------------------------------------------------

DIRECT_HEADER = "# What the adapter imports, pinned:"
FROZEN_HEADER = (
    "# Everything else, frozen from a clean install of the above (pip freeze), so every machine builds the\n"
    "# same environment and REPORT.md does not move under a transitive release:"
)


def direct_requirements(text: str) -> list[str]:
    """The pins above the frozen section: what the adapter itself imports."""
    direct = []
    for line in text.splitlines():
        if line.startswith(FROZEN_HEADER.splitlines()[0]):
            break
        if line.strip() and not line.lstrip().startswith("#"):
            direct.append(line.strip())
    return direct


def relock(
    manifest: Manifest, work_dir: Path, *, log: Callable[[str], None] = print, run: Runner = run_command
) -> Path:
    """Rewrite a Python manifest's requirements file: its direct pins, then the full set they resolve to.

    Run it after changing a direct pin; the environment's stamp changes, so `envs` rebuilds it.
    """
    assert manifest.requirements is not None  # only python manifests are relocked, and the schema requires it of them
    path = manifest.folder / manifest.requirements
    direct = direct_requirements(path.read_text(encoding="utf-8"))
    venv = work_dir / f"relock-{manifest.env_name}"
    shutil.rmtree(venv, ignore_errors=True)
    python = str(venv / "bin" / "python")
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *direct],
        [python, "-m", "pip", "freeze", "--exclude", "pip", "--exclude", "setuptools", "--exclude", "wheel"],
    ]
    output = ""
    for command in steps:
        log(f"{manifest.env_name}: {' '.join(command)}")
        status, output = run(command, manifest.folder)
        if status != 0:
            raise EnvironmentFailed(manifest.env_name, command, output[-OUTPUT_TAIL:].rstrip())
    shutil.rmtree(venv, ignore_errors=True)
    names = {_project(line) for line in direct}
    frozen = [
        line
        for line in output.splitlines()
        if "==" in line and not line.startswith(("#", "-")) and _project(line) not in names
    ]  # pip's warnings share the output; pins are `name==version`
    path.write_text("\n".join([DIRECT_HEADER, *direct, FROZEN_HEADER, *frozen]) + "\n", encoding="utf-8")
    return path


def _project(requirement: str) -> str:
    """The normalised project name of `name[extra]==version`."""
    name = requirement.split("==", 1)[0].split("[", 1)[0].strip()
    return name.lower().replace("_", "-").replace(".", "-")
