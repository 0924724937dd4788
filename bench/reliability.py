"""Reliability figures: what malformed fixtures, misbehaving drivers, kills and concurrent runs cost.

    python bench/reliability.py [--kills N]

Prints: how many malformed fixture files were tried and handled (named as a problem, or loaded
as a valid fixture, with every good fixture still loaded); each driver misbehaviour with its
verdicts and wall time; the harness's peak memory while a driver floods it; and, over N runs killed
with SIGKILL at random moments and one pair of concurrent runs on one file, how many records were
lost or mixed (the target is zero).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from deltacheck.corpus.loader import DEFAULT_CORPUS, load_corpus
from deltacheck.driver.subprocess_adapter import SubprocessAdapter
from deltacheck.running.results import read_results
from deltacheck.running.runner import run_fixtures

# A child's peak memory, as wait4 reports it, starts from the RSS of the process that forked it (Linux
# carries the forking process's high-water mark across exec), so a child forked by this script, which
# holds ~170 MB by then, would always show at least that. Each measured command is therefore forked by
# a small launcher that reports its child's own peak into a file; SIGINT sent to the launcher is passed on.
LAUNCHER = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
signal.signal(signal.SIGINT, lambda number, frame: os.kill(pid, number))
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


class MeasuredChild:
    """A command run through the launcher: `process` is the launcher, `finish()` its exit code and the peak MB."""

    def __init__(self, command: list[str], **popen: Any) -> None:
        handle, self._peak_file = tempfile.mkstemp(prefix="deltacheck-peak-")
        os.close(handle)
        self.process = subprocess.Popen([sys.executable, "-I", "-S", "-c", LAUNCHER, self._peak_file, *command], **popen)

    def finish(self) -> tuple[int, float]:
        code = self.process.wait()
        try:
            peak_kb = float(Path(self._peak_file).read_text() or 0)
        finally:
            os.unlink(self._peak_file)
        return code, peak_kb / 1024


REPO = Path(__file__).resolve().parent.parent
DELTACHECK = Path(sys.executable).with_name("deltacheck")
DRIVERS = ["crash_on_start", "hang_on_start", "wrong_version", "crash_on_run", "hang_on_run", "nonjson_on_run",
           "garbage_result", "wrong_seq", "two_answers", "ignores_stop", "endless_line", "flood"]
SLOW_ADAPTER = '''
import time
from deltacheck import Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble

class Slow(Adapter):
    name, library, version, code_path = "slow-reference", "deltacheck", "0", "the reference, 20 ms per fixture"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset()

    def assemble(self, request):
        time.sleep(0.02)
        return assemble(request.protocol, request.chunks).result
'''


def malformed_variants(text: str) -> list[str | bytes]:
    """Damaged copies of one fixture file: cut, retyped, oversized, badly encoded."""
    data = json.loads(text)
    variants: list[str | bytes] = [text[:cut] for cut in range(0, len(text), max(1, len(text) // 12))]
    for key in data:
        for wrong in (None, 7, "x", [], {}, True):
            variants.append(json.dumps({**data, key: wrong}))
    variants += [json.dumps({**data, "title": "t" * 3_000_000}), text.encode("utf-8") + b"\xff\xfe",
                 "[" * 100_000 + "]" * 100_000, "", "[]", json.dumps({**data, "title": "[/choices] [red]x[/red] \u202e"})]
    return variants


def malformed_fixtures() -> tuple[int, int]:
    sources = sorted((DEFAULT_CORPUS / "fixtures").rglob("*.json"))[:6]
    tried = handled = 0
    for source in sources:
        for variant in malformed_variants(source.read_text(encoding="utf-8")):
            tried += 1
            with tempfile.TemporaryDirectory() as folder:
                root = Path(folder) / "corpus"
                (root / "fixtures" / "openai-chat").mkdir(parents=True)
                for name in ("VERSION", "tags.json"):
                    (root / name).write_bytes((DEFAULT_CORPUS / name).read_bytes())
                os.symlink(DEFAULT_CORPUS / "schema", root / "schema")
                good = sorted((DEFAULT_CORPUS / "fixtures" / "openai-chat").glob("*.json"))[0]
                (root / "fixtures" / "openai-chat" / good.name).write_bytes(good.read_bytes())
                bad = root / "fixtures" / "openai-chat" / "zz-variant.json"
                bad.write_bytes(variant if isinstance(variant, bytes) else variant.encode("utf-8", "surrogatepass"))
                try:
                    corpus = load_corpus(root)
                except Exception:
                    continue
                good_loaded = any(f.path.endswith(good.name) for f in corpus.fixtures)
                bad_accounted = any("zz-variant" in p.path for p in corpus.problems) or \
                    any(f.path.endswith("zz-variant.json") for f in corpus.fixtures)
                handled += good_loaded and bad_accounted
    return tried, handled


def misbehaving_drivers() -> list[tuple[str, list[str], float]]:
    corpus = load_corpus()
    fixtures = sorted((f for f in corpus.fixtures if f.protocol == "openai-chat"), key=lambda f: (len(f.chunks), f.id))[:2]
    rows = []
    for name in DRIVERS:
        adapter = SubprocessAdapter([sys.executable, "-m", f"tests.drivers.{name}"], cwd=str(REPO),
                                    env={**os.environ, "BREAK_ON": fixtures[0].id}, startup_timeout=3, stop_timeout=1)
        started = time.monotonic()
        try:
            verdicts = [r.verdict.verdict for r in run_fixtures(adapter, corpus, fixtures, timeout=2)]
        except Exception as exc:  # a driver failing its start is reported by the CLI as one line
            verdicts = [f"start refused ({type(exc).__name__})"]
        adapter.close()
        rows.append((name, verdicts, time.monotonic() - started))
    return rows


def killed_runs(trials: int) -> tuple[int, int, int]:
    """(trials, records lost or unreadable, runs whose file could not be read)."""
    lost = unreadable = 0
    with tempfile.TemporaryDirectory() as folder:
        adapter_file = Path(folder) / "slow.py"
        adapter_file.write_text(SLOW_ADAPTER)
        rng = random.Random(7)
        for trial in range(trials):
            results = Path(folder) / f"killed-{trial}.jsonl"
            process = subprocess.Popen([str(DELTACHECK), "run", "--adapter", f"{adapter_file}:Slow", "--results",
                                        str(results)], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # The random moment is counted from the run's first line: a loaded machine may take seconds to
            # start it, and a run killed before it opened its file tells nothing.
            while process.poll() is None and not (results.exists() and results.stat().st_size):
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 1.7))
            process.send_signal(signal.SIGKILL)
            process.wait()
            try:
                read = read_results(results)
            except Exception:
                unreadable += 1
                continue
            lines = [line for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
            running = sum('"kind": "running"' in line or '"kind":"running"' in line for line in lines)
            # every written line must be read back: the header, a record, a `running` line or the footer
            lost += len(lines) - 1 - len(read.records) - running - read.complete
    return trials, lost, unreadable


def concurrent_runs() -> str:
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "shared.jsonl"
        adapter_file = Path(folder) / "slow.py"
        adapter_file.write_text(SLOW_ADAPTER)
        command = [str(DELTACHECK), "run", "--adapter", f"{adapter_file}:Slow", "--results", str(results)]
        first = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.8)
        second = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        first.wait()
        read = read_results(results)
        refused = "another deltacheck run is writing this file" in second.stderr
        return (f"second run refused: {refused}; first run's file complete: {read.complete}, "
                f"{len(read.records)} records, {len({r['fixture'] for r in read.records})} distinct fixtures")


# -- import: large captures (i21-import) ------------------------------------------------------------


def _single_line_capture(path: Path, size: int) -> int:
    """A Chat stream whose one content chunk is a single `data:` line of about `size` bytes; its chunk count."""
    head = b'data: {"id":"chatcmpl-big","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"'
    tail = b'"},"finish_reason":null}]}\n\n'
    last = b'data: {"id":"chatcmpl-big","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},' \
           b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    words = b"lorem ipsum dolor sit amet, consectetur adipiscing elit "
    with path.open("wb") as out:
        out.write(head)
        body = size - len(head) - len(tail) - len(last)
        block = words * (1_000_000 // len(words))  # written block by block: the bench's own memory stays small
        for _ in range(body // len(block)):
            out.write(block)
        out.write(words * ((body % len(block)) // len(words)) + b" " * ((body % len(block)) % len(words)))
        out.write(tail + last)
    return 2


def import_large_captures() -> list[tuple[str, float, float, int, str]]:
    """(case, peak MB of the import process, seconds, chunks lost, its one line) per capture size."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for label, size in (("3.9 MB single line", 3_900_000), ("100 MB single line", 100_000_000)):
            capture = Path(folder) / f"{size}.sse"
            chunks = _single_line_capture(capture, size)
            output = Path(folder) / f"{size}.json"
            started = time.monotonic()
            child = MeasuredChild([str(DELTACHECK), "import", str(capture), "--output", str(output)],
                                  cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            stderr = child.process.stderr.read().decode("utf-8", "replace") if child.process.stderr else ""
            _, peak = child.finish()
            seconds = time.monotonic() - started
            written = len(json.loads(output.read_text(encoding="utf-8"))["chunks"]) if output.exists() else 0
            refused = not output.exists()
            lost = 0 if refused else chunks - written  # a refused capture loses nothing: nothing is half-written
            line = " ".join(stderr.split())[:110] if refused else f"written, {output.stat().st_size / 1e6:.1f} MB"
            rows.append((label, peak, seconds, lost, line))
    return rows


# -- files, paths and JSON validity (issue 21, branch i21-files) -----------------------------------
# Each case runs the installed `deltacheck` in a scratch directory and prints its peak memory (the
# child's own, from wait4 in a small launcher: see MeasuredChild), its wall time, and the records lost: fixtures the run should have scored
# but that are missing from its results file (the target is 0).


def _run_cli(args: list[str], cwd: Path) -> tuple[int, str, float, float]:
    """(exit status, stderr, peak memory in MB, seconds) of one `deltacheck` command."""
    with tempfile.TemporaryFile() as stderr:
        started = time.monotonic()
        code, peak = MeasuredChild([str(DELTACHECK), *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr).finish()
        seconds = time.monotonic() - started
        stderr.seek(0)
        return code, stderr.read().decode("utf-8", "replace"), peak, seconds


def _records_lost(results: Path, fixture_ids: set[str]) -> int:
    """How many of these fixtures have no record in the results file."""
    try:
        recorded = {record.get("fixture") for record in read_results(results).records}
    except Exception:
        return len(fixture_ids)
    return len(fixture_ids - recorded)


def files_case_modes(folder: Path) -> tuple[str, float, float, int]:
    """Every fixture of the bundled corpus with --junit and --update-expectations over a 0644 file, then
    `report`: each written file must keep 0644 under umask 022."""
    corpus = load_corpus(check_reference=False)
    expectations = folder / "deltacheck.toml"
    expectations.write_text("")
    expectations.chmod(0o644)
    previous = os.umask(0o022)
    try:
        _, _, peak, seconds = _run_cli(["run", "--adapter", "reference", "--results", "results/reference.jsonl",
                                        "--junit", "junit.xml", "--expectations", str(expectations),
                                        "--update-expectations"], folder)
        _, _, report_peak, report_seconds = _run_cli(["report", "results/reference.jsonl", "--output", "REPORT.md"],
                                                     folder)
    finally:
        os.umask(previous)
    modes = {name: oct(os.stat(folder / name).st_mode & 0o777) for name in
             ("deltacheck.toml", "junit.xml", "REPORT.md")}
    wrong = sorted(name for name, mode in modes.items() if mode != "0o644")
    lost = _records_lost(folder / "results" / "reference.jsonl", {f.id for f in corpus.fixtures})
    return (f"file modes under umask 022: {'all 0644' if not wrong else 'wrong: ' + ', '.join(wrong)}",
            max(peak, report_peak), seconds + report_seconds, lost)


def _scratch_corpus(folder: Path) -> Path:
    """A copy of the bundled corpus's fixtures, schema and vocabulary, to add bad files to."""
    root = folder / "corpus"
    for source in (DEFAULT_CORPUS / "fixtures").rglob("*.json"):
        target = root / source.relative_to(DEFAULT_CORPUS)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
    for name in ("VERSION", "tags.json", "schema", "servers.json"):
        if (DEFAULT_CORPUS / name).exists():
            os.symlink(DEFAULT_CORPUS / name, root / name)
    return root


def files_case_json_validity(folder: Path) -> tuple[str, float, float, int]:
    """RFC 8259 validity: a fixture with a bare NaN is one lint problem and the run scores every other
    fixture; in process, deciding validity of a 10^5-digit integer and of 10^5-deep arrays."""
    import tracemalloc

    from deltacheck.json_spec import is_json
    from deltacheck.judge.compare import arguments_equal

    root = _scratch_corpus(folder)
    good = {f.id for f in load_corpus(root, check_reference=False).fixtures}
    donor = sorted((root / "fixtures" / "openai-chat").glob("*.json"))[0]
    (donor.parent / "zz-nan.json").write_text(donor.read_text().replace('"usage": null', '"usage": NaN', 1)
                                               .replace('"id": "DC-', '"id": "DC-NAN', 1))
    status, stderr, peak, seconds = _run_cli(["run", "--adapter", "reference", "--corpus", str(root),
                                              "--results", "out.jsonl"], folder)
    named = "zz-nan.json" in stderr and "not JSON" in stderr
    long_integer, deep = "9" * 100_000, "[" * 100_000 + "]" * 100_000

    def decide() -> tuple[bool, ...]:
        return is_json(long_integer), is_json(deep), is_json('{"x": NaN}'), arguments_equal(deep, deep)

    started = time.monotonic()
    verdicts = decide()
    validity_seconds = time.monotonic() - started
    tracemalloc.start()  # a second pass for memory: tracing slows the first one's clock
    decide()
    validity_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return (f"NaN fixture named: {named} (exit {status}); 10^5-digit integer / 10^5-deep array / NaN valid: "
            f"{verdicts[:3]}, deep arguments equal: {verdicts[3]} in {validity_seconds:.2f} s, "
            f"{validity_peak:.0f} MB traced",
            peak, seconds, _records_lost(folder / "out.jsonl", good))


ODD_NAMED_ADAPTER = SLOW_ADAPTER.replace('"slow-reference"', '"../../x"').replace("time.sleep(0.02)", "pass")


def files_case_paths(folder: Path) -> tuple[str, float, float, int]:
    """Paths: a corpus without schema/, fixtures/ linked to /, a file named `results` in the way (each one
    usage error, exit 2), then an adapter named ../../x: its results stay inside results/."""
    bare = folder / "bare"
    (bare / "fixtures").mkdir(parents=True)
    linked = _scratch_corpus(folder / "linked")
    os.rename(linked / "fixtures", folder / "moved-fixtures")
    os.symlink("/", linked / "fixtures")
    blocked = folder / "blocked"
    blocked.mkdir()
    (blocked / "results").write_text("a file, not a folder")
    statuses, peaks, seconds = [], [], 0.0
    for args, cwd in ((["lint", "--corpus", str(bare)], folder), (["lint", "--corpus", str(linked)], folder),
                      (["run", "--adapter", "reference", "--fixture", "DC-8499"], blocked)):
        status, stderr, peak, took = _run_cli(args, cwd)
        statuses.append(status if "Traceback" not in stderr else "traceback")
        peaks.append(peak)
        seconds += took
    work = folder / "a" / "b"
    work.mkdir(parents=True)
    (work / "odd.py").write_text(ODD_NAMED_ADAPTER)
    _, _, peak, took = _run_cli(["run", "--adapter", "odd.py:Slow"], work)
    written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.jsonl"))
    ids = {f.id for f in load_corpus(check_reference=False).fixtures}
    return (f"exit statuses {statuses}; ../../x wrote {written}", max(*peaks, peak), seconds + took,
            _records_lost(work / "results" / "_.._x.jsonl", ids))


def files_case_markdown_links(folder: Path) -> tuple[str, float, float, int]:
    """`explain --format markdown` of every fixture that reproduces a report: no seed: reference and no
    GitHub link left to ping another project when pasted."""
    corpus = load_corpus(check_reference=False)
    ids = sorted(f.id for f in corpus.fixtures if f.reports)
    leaks, peaks, seconds = 0, [], 0.0
    for fixture_id in ids[:20]:
        out = folder / f"{fixture_id}.md"
        with out.open("w") as handle:
            started = time.monotonic()
            _, peak = MeasuredChild([str(DELTACHECK), "explain", fixture_id, "--format", "markdown"],
                                    cwd=folder, stdout=handle, stderr=subprocess.DEVNULL).finish()
            seconds += time.monotonic() - started
        peaks.append(peak)
        text = out.read_text()
        leaks += "seed:" in text or "https://github.com" in text
    return f"{min(20, len(ids))} markdown explanations, {leaks} with a seed: reference or a GitHub link", \
        max(peaks, default=0.0), seconds, 0


FILES_CASES = [files_case_modes, files_case_json_validity, files_case_paths, files_case_markdown_links]


def files_cases() -> None:
    for case in FILES_CASES:
        with tempfile.TemporaryDirectory() as folder:
            label, peak, seconds, lost = case(Path(folder))
        print(f"{case.__name__:32} peak {peak:6.0f} MB  {seconds:6.2f} s  records lost {lost}  {label}")


# -- standalone reproductions (issue 21, branch i21-files2) ----------------------------------------
# A repro script for an adapter of one's own must exit 0 where the library matches and 1 where it
# diverges; generating it and running it is timed, with the peak memory of each child.

REPRO_ADAPTER = """
from deltacheck import Adapter, AssemblyRequest


class TextOnly(Adapter):
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
        return {"choices": [{"index": 0, "parts": [{"type": "text", "text": text[:-1] if self.BROKEN else text}],
                             "finish_reason": finish}]}
"""


def _timed(command: list[str], cwd: Path, stdout) -> tuple[int, float, float]:
    started = time.monotonic()
    code, peak = MeasuredChild(command, cwd=cwd, stdout=stdout, stderr=subprocess.DEVNULL).finish()
    return code, peak, time.monotonic() - started


def repro_case_own_adapter(folder: Path) -> tuple[str, float, float, int]:
    """`explain --repro python` of an adapter file of one's own, then the script run as it is and broken."""
    (folder / "my_adapter.py").write_text(REPRO_ADAPTER)
    with (folder / "repro.py").open("w") as script:
        _, peak, seconds = _timed([str(DELTACHECK), "explain", "DC-BNBY", "--adapter", "my_adapter.py:TextOnly",
                                   "--repro", "python"], folder, script)
    text = (folder / "repro.py").read_text()
    (folder / "broken.py").write_text(text.replace("BROKEN = False", "BROKEN = True"))
    statuses, peaks = [], [peak]
    for name in ("repro.py", "broken.py"):
        status, run_peak, run_seconds = _timed([sys.executable, "-I", name], folder, subprocess.DEVNULL)
        statuses.append(status)
        peaks.append(run_peak)
        seconds += run_seconds
    verdict = "right" if statuses == [0, 1] else f"WRONG (expected 0 and 1, got {statuses})"
    return f"own adapter's script: exit {statuses[0]} matching, {statuses[1]} diverging: {verdict}", \
        max(peaks), seconds, 0


REPRO_CASES = [repro_case_own_adapter]


def repro_cases() -> None:
    for case in REPRO_CASES:
        with tempfile.TemporaryDirectory() as folder:
            label, peak, seconds, lost = case(Path(folder))
        print(f"{case.__name__:32} peak {peak:6.0f} MB  {seconds:6.2f} s  records lost {lost}  {label}")
# -- issue 21, runs: one bad result costs one fixture (branch i21-runs) ------------------------------


def _measured(work) -> tuple[float, float, Any]:
    """(peak Python memory in MB, seconds, what `work` returned)."""
    import tracemalloc  # noqa: PLC0415 - only these cases trace allocations

    tracemalloc.start()
    started = time.monotonic()
    try:
        value = work()
    finally:
        seconds = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return peak, seconds, value


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def _self_containing() -> dict:
    value: dict = {"choices": []}
    value["choices"].append(value)
    return value


BAD_RESULTS = {
    "object()": object,
    "a set": lambda: {1, 2},
    "bytes": lambda: b"{}",
    "a dict containing itself": _self_containing,
    "nested 500 deep": lambda: {"choices": [], "usage": _nested(500), "error": None},
    "nested 100000 deep": lambda: {"choices": [], "usage": _nested(100_000), "error": None},
    "NaN": lambda: {"choices": [], "usage": {"x": float("nan")}, "error": None},
    "a 5000-digit int": lambda: {"choices": [], "usage": {"x": 10**5000}, "error": None},
    "an int key": lambda: {"choices": [], 1: 2},
    "100,000 parts": lambda: {"choices": [{"index": 0, "parts": [{"type": "text", "text": "x"}] * 100_000}]},
}


class _BadResultAdapter:
    """Returns the bad value for the first fixture and the reference's result for the others."""

    def __init__(self, make, first: str) -> None:
        from deltacheck import CAPABILITIES  # noqa: PLC0415
        from deltacheck.protocols import PROTOCOLS  # noqa: PLC0415

        self.make, self.first = make, first
        self.name, self.protocols, self.capabilities = "bad-result", frozenset(PROTOCOLS), frozenset(CAPABILITIES)

    def assemble(self, request):
        from deltacheck.reference import assemble  # noqa: PLC0415

        if request.fixture_id == self.first:
            return self.make()
        return assemble(request.protocol, request.chunks).result


def bad_results() -> list[tuple[str, float, float, int, str]]:
    """(case, peak MB, seconds, records lost, the bad fixture's verdict) for each bad return value."""
    from deltacheck.running.results import ResultsWriter  # noqa: PLC0415

    corpus = load_corpus()
    fixtures = [f for f in corpus.fixtures if f.protocol == "openai-chat" and f.expected is not None][:5]
    rows = []
    for case, make in BAD_RESULTS.items():
        adapter = _BadResultAdapter(make, fixtures[0].id)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "results.jsonl"

            def work(adapter=adapter, path=path):
                with open(path, "w", encoding="utf-8") as stream:
                    writer = ResultsWriter(stream)
                    writer.header(adapter={"name": adapter.name})
                    for record in run_fixtures(adapter, corpus, fixtures, timeout=30):  # type: ignore[arg-type]
                        writer.record(record.to_json())
                    writer.footer()
                return read_results(path)

            try:
                peak, seconds, read = _measured(work)
            except Exception as exc:  # the failure this case is here to catch: every record is lost
                rows.append((case, 0.0, 0.0, len(fixtures), f"the run raised {type(exc).__name__}"))
                continue
            lost = len(fixtures) - len(read.records) + (0 if read.complete else 1)
            rows.append((case, peak, seconds, lost, f"{read.records[0]['verdict']}: {read.records[0]['message'][:70]}"))
    return rows


def deep_driver_replies() -> list[tuple[str, float, float, int, str]]:
    """(case, peak MB, seconds, records lost, outcome) for driver reply lines nested 10 to 100,000 deep."""
    from deltacheck.driver.subprocess_adapter import _outcome_of  # noqa: PLC0415

    rows = []
    for depth in (10, 500, 1000, 5000, 100_000):
        line = ('{"seq":1,"result":{"choices":[],"usage":' + '{"a":' * depth + "1" + "}" * depth + "}}").encode()
        try:
            peak, seconds, outcome = _measured(lambda line=line: _outcome_of(line, 1))
        except Exception as exc:
            rows.append((f"reply nested {depth} deep ({len(line)} bytes)", 0.0, 0.0, 1, f"raised {type(exc).__name__}"))
            continue
        shown = f"{type(outcome).__name__}: {getattr(outcome, 'message', '')[:60]}"
        rows.append((f"reply nested {depth} deep ({len(line)} bytes)", peak, seconds, 0, shown))
    return rows


def runs_section() -> None:
    for case, peak, seconds, lost, what in bad_results() + deep_driver_replies():
        print(f"{case:36} peak {peak:7.1f} MB {seconds:7.2f} s  records lost: {lost}  {what}")


# -- issue 21, runs2: an adapter that ends the process, Ctrl-C, and what one fixture prints (branch i21-runs2)

ENDING_ADAPTER = """
import os
from deltacheck import CAPABILITIES, Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble

COUNT = [0]

class Ending(Adapter):
    name, library, version, code_path = "ending", "deltacheck", "0", "the reference, os._exit(3) on fixture 48"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset(CAPABILITIES) - {"events"}

    def assemble(self, request):
        COUNT[0] += 1
        if COUNT[0] == 48:
            os._exit(3)
        return assemble(request.protocol, request.chunks).result
"""


def _child(args: list[str], cwd: str, interrupt_after: float | None = None) -> tuple[float, float, int, str]:
    """(peak memory of the child in MB, seconds, exit code, its stdout and stderr), SIGINT `interrupt_after` seconds into the run."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as stderr:
        # The launcher gives the command Ctrl-C's default disposition, whatever this script inherited (a
        # background job starts with SIGINT ignored), and passes the SIGINT sent to it on.
        child = MeasuredChild(args, cwd=cwd, stdout=stderr, stderr=stderr)
        process = child.process
        if interrupt_after is not None:  # counted from the first result line: the run is under way by then
            results = Path(cwd) / "out.jsonl"
            while process.poll() is None and '"result"' not in (results.read_text() if results.exists() else ""):
                time.sleep(0.02)
            time.sleep(interrupt_after)
            process.send_signal(signal.SIGINT)
        code, peak = child.finish()
        stderr.seek(0)
        said = stderr.read().decode("utf-8", "replace")
    return peak, time.monotonic() - started, code, said


def adapter_ending_the_process() -> tuple[str, float, float, int, str]:
    """`deltacheck run` with an in-process adapter that calls os._exit(3) on its 48th fixture."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "ending.py").write_text(ENDING_ADAPTER)
        results = Path(folder) / "out.jsonl"
        peak, seconds, code, _ = _child([str(DELTACHECK), "run", "--adapter", "ending.py:Ending", "--results",
                                         str(results)], folder)
        read = read_results(results)
        lost = 47 - len(read.records) + (0 if read.running else 1)  # 47 verdicts, and the 48th fixture named
        what = f"exit {code}; results file: {len(read.records)} verdicts, then {read.ending}"
        return "adapter calls os._exit(3) on fixture 48", peak, seconds, lost, what[:150]


def interrupted_run(ignored_here: bool = False) -> tuple[str, float, float, int, str]:
    """`deltacheck run` with a 20 ms-per-fixture adapter, SIGINT after one second; `ignored_here`: started
    from a process that ignores SIGINT, as a background job is (the flaky gateway test of issue 21)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignored_here else None
    try:
        return _interrupted_run("Ctrl-C after 1 s" + (", SIGINT ignored here" if ignored_here else ""))
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _interrupted_run(case: str) -> tuple[str, float, float, int, str]:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "slow.py").write_text(SLOW_ADAPTER)
        results = Path(folder) / "out.jsonl"
        peak, seconds, code, said = _child([str(DELTACHECK), "run", "--adapter", "slow.py:Slow", "--results",
                                            str(results)], folder, interrupt_after=1.0)
        read = read_results(results)
        lost = 0 if read.complete and read.interrupted else 1
        line = next((" ".join(x.split()) for x in said.split("\n\n") if "interrupted" in x), "no interrupted line")
        summary = "a summary table printed" if "passed / scored" in said else "no summary table"
        return case, peak, seconds, lost, f"exit {code}; {summary}; {line[:110]}"


def many_bad_chunks(count: int = 100_000) -> tuple[str, float, float, int, str]:
    """`deltacheck lint` and `run` on a corpus with one fixture of `count` bad chunks: what they print and record."""
    import shutil  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "corpus"
        shutil.copytree(DEFAULT_CORPUS, root)
        first = sorted((root / "fixtures" / "openai-chat").glob("*.json"))[0]
        data = json.loads(first.read_text()) | {"id": "DC-ZZZZ"}
        data["chunks"] = data["chunks"][:1] + [{"bogus": n} for n in range(count)] + data["chunks"][1:]
        (first.parent / "zz-many.json").write_text(json.dumps(data))
        peak, seconds, _, said = _child([str(DELTACHECK), "lint", "--corpus", str(root)], folder)
        lines = [line for line in said.splitlines() if "DC-ZZZZ" in line] or [""]
        _, run_seconds, _, run_said = _child([str(DELTACHECK), "run", "--adapter", "reference", "--corpus", str(root),
                                              "--protocol", "openai-chat", "--results", "out.jsonl"], folder)
        read = read_results(Path(folder) / "out.jsonl")
        skip = next((r for r in read.records if r["fixture"] == "DC-ZZZZ"), None)
        lost = 0 if skip is not None and read.complete else 1
        return (f"fixture with {count:,} bad chunks", peak, seconds + run_seconds, lost,
                f"lint: {len(lines)} lines naming it, last: {lines[-1][-70:]!r}; run: stderr {len(run_said):,} B, "
                f"its skip message {len(skip['message']) if skip else 0:,} B")


class _LongMessageAdapter(_BadResultAdapter):
    def assemble(self, request):
        if request.fixture_id == self.first:
            raise ValueError("x" * 10_000_000)
        return super().assemble(request)


def long_exception_message() -> tuple[str, float, float, int, str]:
    """An adapter raising an exception with a 10 MB message: what its record holds."""
    corpus = load_corpus()
    fixtures = [f for f in corpus.fixtures if f.protocol == "openai-chat" and f.expected is not None][:5]
    adapter = _LongMessageAdapter(None, fixtures[0].id)
    peak, seconds, records = _measured(lambda: [r.to_json() for r in run_fixtures(adapter, corpus, fixtures)])  # type: ignore[arg-type]
    lost = len(fixtures) - len(records)
    return ("exception message of 10 MB", peak, seconds, lost,
            f"its record: {len(json.dumps(records[0])):,} B, message {len(records[0]['message']):,} chars")


def runs2_section() -> None:
    cases = [adapter_ending_the_process(), interrupted_run(), interrupted_run(ignored_here=True), many_bad_chunks(),
             long_exception_message()]
    for case, peak, seconds, lost, what in cases:
        print(f"{case:36} peak {peak:7.1f} MB {seconds:7.2f} s  records lost: {lost}  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--only", choices=["files", "repro"], help="Only this section's cases.")
    arguments = parser.parse_args()
    if arguments.only == "files":
        files_cases()
        return
    if arguments.only == "repro":
        repro_cases()
        return
    kills = arguments.kills
    tried, handled = malformed_fixtures()
    print(f"malformed fixture files: {handled} of {tried} handled (named or loaded; the good fixture beside it loaded)")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for name, verdicts, seconds in misbehaving_drivers():
        print(f"driver {name:15} {', '.join(verdicts):40} {seconds:6.2f} s")
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"harness peak memory: {after:.0f} MB after the drivers ({after - before:+.0f} MB; an endless line and a "
          f"flood included)")
    trials, lost, unreadable = killed_runs(kills)
    print(f"runs killed with SIGKILL: {trials}; records lost: {lost}; unreadable results files: {unreadable}")
    print(f"two runs on one results file: {concurrent_runs()}")
    for label, peak, seconds, lost, line in import_large_captures():
        print(f"import {label:20} peak {peak:6.0f} MB {seconds:6.2f} s  chunks lost: {lost}  ({line})")
    files_cases()
    repro_cases()
    runs_section()
    runs2_section()


if __name__ == "__main__":
    main()
