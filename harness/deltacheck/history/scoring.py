"""Score one release: build its environment, start its driver, run the adapter's fixtures through the
normal run path into `<root>/<adapter>/<version>.jsonl`. A release that cannot be installed, or whose
driver does not start (the library's API is not what the adapter drives), is recorded with the reason."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deltacheck.cli.recording import run_and_record
from deltacheck.corpus.loader import Corpus
from deltacheck.driver.envs import ENVS_DIR
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from deltacheck.errors import DriverFailed
from deltacheck.files import write_text_atomically
from deltacheck.history.environments import Built, NotInstallable, ensure_release
from deltacheck.history.store import (
    NOT_DRIVABLE,
    NOT_INSTALLABLE,
    SCORED,
    ReleaseResults,
    header_of,
    read_release,
    release_path,
    write_unscorable,
)
from deltacheck.history.target import Target
from deltacheck.judge.findings import finding_keys
from deltacheck.judge.verdict import UNSCORED
from deltacheck.running.runner import DEFAULT_MAX_TIMEOUTS, DEFAULT_TIMEOUT

Builder = Callable[[Target, str], Built]


def one_line(text: str, limit: int = 300) -> str:
    """A driver's or tool's failure as one line: its first line, and the last line of what follows (the
    exception a driver's stderr ends with)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "no reason given"
    line = lines[0] if len(lines) == 1 else f"{lines[0].rstrip(':')} … {lines[-1]}"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def score_release(
    target: Target,
    version: str,
    corpus: Corpus,
    root: Path,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_timeouts: int = DEFAULT_MAX_TIMEOUTS,
    envs_dir: Path = ENVS_DIR,
    build: Builder | None = None,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> ReleaseResults:
    """Score the release (or record why it cannot be) and read back what was recorded."""
    path = release_path(root, target.adapter, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    unscorable = {"name": target.adapter, "library": target.package, "version": version, "protocols": []}
    try:
        built = (build or (lambda t, v: ensure_release(t, v, envs_dir=envs_dir)))(target, version)
    except NotInstallable as exc:
        reason = one_line(str(exc))
        write_unscorable(
            path,
            unscorable,
            corpus.version,
            header_of(target.package, target.ecosystem, version, NOT_INSTALLABLE, reason),
        )
        say(f"{target.adapter} {version}: not installable: {reason}")
        return read_release(path)
    spec = built.launch
    adapter = SubprocessAdapter(
        spec.command, cwd=spec.cwd, env=spec.env, expected_name=target.adapter, declared=_declared(target)
    )
    try:
        hello = adapter.start()
    except DriverFailed as exc:
        reason = one_line(exc.message)
        write_unscorable(
            path, unscorable, corpus.version, header_of(target.package, target.ecosystem, version, NOT_DRIVABLE, reason)
        )
        say(f"{target.adapter} {version}: not drivable: {reason}")
        return read_release(path)
    try:
        more: dict[str, Any] = {"constrained": built.constrained}
        if built.driven_by:  # below an API boundary: the older driver the manifest names
            more["driver"] = built.driven_by
        if built.unpinned:
            more["unpinned"] = list(built.unpinned)
        if hello.version != version:  # the adapter reports the version it found installed
            more["reported_version"] = hello.version
        run_and_record(
            adapter,
            corpus,
            set(),
            set(),
            path,
            timeout,
            max_timeouts,
            header=header_of(target.package, target.ecosystem, version, SCORED, **more),
            quiet=True,
        )
    finally:
        adapter.close()
    release = read_release(path)
    unusable = api_mismatch(release)
    if unusable is not None:
        _restatus(path, NOT_DRIVABLE, unusable)
        say(f"{target.adapter} {version}: not drivable: {unusable}")
        return read_release(path)
    tally = release.tally()
    say(f"{target.adapter} {version}: {tally['passed']} passed, {tally['failed']} failed, {tally['error']} error")
    return release


def api_mismatch(release: ReleaseResults) -> str | None:
    """Why a release is not drivable although its driver started: every fixture it was given raised the same
    exception (the adapter calls an API the release does not have), else None. A fixture that accepts a raise
    passes on that same exception: it counts as raising, not as driven."""
    judged = [r for r in release.results.records if r["verdict"] not in UNSCORED]
    raised = [r for r in judged if r["verdict"] in ("error", "crash")]
    if not raised or len({tuple(finding_keys(r)) for r in raised}) != 1:
        return None
    texts = {_raised_text(r) for r in raised}
    for record in judged:
        if record["verdict"] in ("error", "crash"):
            continue
        if record.get("matched") != "raise_acceptable" or not any(
            _raised_text(record).endswith(f"): {t}") for t in texts
        ):
            return None
    return one_line(f"every fixture raises: {_raised_text(raised[0])}")


_NOT_THE_REJECTION = re.compile(r" \(not the rejection this fixture (?:accepts|recommends), /.*/\)$", re.S)


def _raised_text(record: dict[str, Any]) -> str:
    """A raising record's message without the judge's words after it, and an error's without `raised: `: the
    exception (`Type: message`), or for a raise a fixture accepts, the message ending with `): ` and it."""
    return _NOT_THE_REJECTION.sub("", str(record.get("message", ""))).removeprefix("raised: ")


def _restatus(path: Path, status: str, reason: str) -> None:
    """Rewrite the results header's history status; the results stay (they show what the release did)."""
    header, rest = path.read_text(encoding="utf-8").split("\n", 1)
    data = json.loads(header)
    data["history"] = {**data["history"], "status": status, "reason": reason}
    write_text_atomically(path, json.dumps(data, ensure_ascii=False) + "\n" + rest)


def _declared(target: Target) -> dict[str, str]:
    manifest = target.manifest
    declared = {"scope": manifest.scope} if manifest.scope else {}
    declared |= {"scope_note": manifest.scope_note} if manifest.scope_note else {}
    return declared | ({"transport": manifest.transport} if manifest.transport else {})
