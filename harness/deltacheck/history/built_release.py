"""A JVM or Go release: the driver's sources copied to `.venvs/history/<adapter>/<version>/src` (as the
bundled build copies them), the library's pin replaced there, and the driver built.

JVM: the manifest's pom names the release; every dependency of the library's Maven group pinned at
the same version moves with it (Koog's client and its Ktor HTTP client are one release), and a
version given by a property is set there. Everything else stays as the bundled pom pins it (the
results header says `constrained`). `mvn package` into the Maven repository the bundled drivers use.
Go: `go get <module>@<release>` in the copy (it updates go.mod and go.sum by minimal version
selection), then `go build`. A release whose build fails is NotInstallable with the compiler's or
the tool's first error line: the driver's code does not compile against that release's API, or the
release cannot be resolved.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from deltacheck.driver.envs import (
    Launch,
    Runner,
    build_sources,
    copy_build_sources,
    jvm_command,
    maven_lock,
    maven_package,
)
from deltacheck.history.building import (
    Built,
    Log,
    NotInstallable,
    clipped,
    digest,
    file_hash,
    last_error,
    read_stamp,
    step,
    write_stamp,
)
from deltacheck.history.target import Driving

DEPENDENCY = re.compile(r"<dependency>.*?</dependency>", re.S)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|\[[0-9;]*m")  # Maven colours a few lines even with style.color=never


def release_pom(text: str, driving: Driving, version: str) -> str:
    """The pom with the library at `version`; NotInstallable if it does not name the library's pin."""
    pin = driving.pin
    group = pin.package.split(":")[0]
    if pin.prop:
        element = re.escape(pin.prop)
        text, count = re.subn(
            rf"(<{element}>)\s*{re.escape(pin.version)}\s*(</{element}>)", rf"\g<1>{version}\g<2>", text, count=1
        )
        if count != 1:
            raise NotInstallable(f"{driving.manifest.pom}: no property {pin.prop} = {pin.version} to set")
    moved = 0

    def release_of_group(match: re.Match[str]) -> str:
        nonlocal moved
        block = match.group(0)
        if _tag(block, "groupId") != group or _tag(block, "version") != pin.version:
            return block
        moved += 1
        return block.replace(f"<version>{pin.version}</version>", f"<version>{version}</version>", 1)

    text = DEPENDENCY.sub(release_of_group, text)
    if not pin.prop and not moved:
        raise NotInstallable(f"{driving.manifest.pom}: no dependency {pin.package} {pin.version} to replace")
    return text


def _tag(block: str, name: str) -> str | None:
    found = re.search(rf"<{name}>\s*([^<]*?)\s*</{name}>", block)
    return found.group(1) if found else None


def _stamp_of(driving: Driving, *texts: str) -> str:
    manifest = driving.manifest
    files = (f"{p.relative_to(manifest.build_root)}:{file_hash(p)}" for p in build_sources(manifest))
    return digest(manifest.language, str(manifest.pom), " ".join(manifest.args), *texts, *files)


def build_jvm(driving: Driving, version: str, where: Path, label: str, log: Log, run: Runner, envs_dir: Path) -> Built:
    manifest = driving.manifest
    assert manifest.pom is not None  # reading a manifest gives every java entry one
    pom = release_pom((manifest.folder / manifest.pom).read_text(encoding="utf-8"), driving, version)
    stamp = _stamp_of(driving, pom)
    source = where / "src"
    folder = source / manifest.folder.name
    jar = folder / "target" / "driver.jar"  # the parent pom names the runnable jar
    made = Launch(jvm_command(manifest, jar), str(where), dict(os.environ))
    kept = read_stamp(where)
    if kept and kept[0] == stamp and jar.is_file():
        return Built(made, False, True)
    shutil.rmtree(where, ignore_errors=True)
    copy_build_sources(manifest, source)
    (folder / manifest.pom).write_text(pom, encoding="utf-8")
    try:
        with maven_lock(envs_dir):
            step(
                label,
                maven_package(manifest, envs_dir),
                folder,
                log,
                run,
                tool="mvn package",
                explain=lambda out: maven_error(out, source),
            )
    except NotInstallable:
        shutil.rmtree(where, ignore_errors=True)
        raise
    write_stamp(where, stamp, True)
    return Built(made, True, True)


def build_go(driving: Driving, version: str, where: Path, label: str, log: Log, run: Runner) -> Built:
    manifest = driving.manifest
    stamp = _stamp_of(driving, driving.pin.package, version)
    source = where / "src"
    binary = where / "driver"
    made = Launch((str(binary), *manifest.args), str(where), dict(os.environ))
    kept = read_stamp(where)
    if kept and kept[0] == stamp and binary.is_file():
        return Built(made, False, True)
    shutil.rmtree(where, ignore_errors=True)
    copy_build_sources(manifest, source)
    explain = lambda out: go_error(out, source)  # noqa: E731 - one line, used twice
    try:
        step(label, ["go", "get", f"{driving.pin.package}@{version}"], source, log, run, tool="go get", explain=explain)
        build = ["go", "build", "-trimpath", "-o", str(binary), f"./{manifest.folder.name}"]
        step(label, build, source, log, run, tool="go build", explain=explain)
    except NotInstallable:
        shutil.rmtree(where, ignore_errors=True)
        raise
    write_stamp(where, stamp, True)
    return Built(made, True, True)


def maven_error(output: str, source: Path) -> str:
    """Maven's reason, one line: the first compiler error (the driver's code against the release's API),
    else the goal that failed (a release that cannot be resolved), else its last error line."""
    output = ANSI.sub("", output)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    compiled = [line for line in lines if line.startswith(("[ERROR]", "e:")) and re.search(r"\.(java|kt)[:\[]", line)]
    goals = [line for line in lines if "Failed to execute goal" in line or "Could not resolve" in line]
    chosen = (compiled or goals or [last_error(output)])[0].removeprefix("[ERROR]").removesuffix("-> [Help 1]")
    # Maven words a missing artifact one way the first time and another once its local repository cached
    # the miss: the reason names the artifact, the same on every run.
    missing = re.search(r"Could not find artifact (\S+)|(\S+) was not found in ", chosen)
    if missing and not compiled:
        return clipped(f"Could not resolve dependencies: {missing.group(1) or missing.group(2)} is not served")
    return clipped(_relative(chosen.strip(), source))


def go_error(output: str, source: Path) -> str:
    """Go's reason, one line: the first compiler error, else its first `go:` line, else its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    compiled = [line for line in lines if re.search(r"\.go:\d+", line)]
    tool = [line for line in lines if line.startswith("go: ")]
    return clipped(_relative((compiled or tool or [last_error(output)])[0], source))


def _relative(line: str, source: Path) -> str:
    """A source file named by its own name (`KoogDriver.kt:98:28 …`): the same line on every machine, and
    short enough to read in a report."""
    line = line.replace(f"file://{source}/", "").replace(f"{source}/", "")
    return re.sub(r"(?<![\w.])[\w./-]*/([\w.-]+\.(?:java|kt|go))\b", r"\1", line)
