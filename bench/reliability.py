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

from deltacheck.corpus.loader import DEFAULT_CORPUS, load_corpus
from deltacheck.running.results import read_results
from deltacheck.running.runner import run_fixtures
from deltacheck.driver.subprocess_adapter import SubprocessAdapter

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
            time.sleep(rng.uniform(0.3, 2.0))
            process.send_signal(signal.SIGKILL)
            process.wait()
            try:
                read = read_results(results)
            except Exception:
                unreadable += 1
                continue
            lines = results.read_text(encoding="utf-8").splitlines()
            lost += len(lines) - 1 - len(read.records) - read.complete  # every written line must be a record
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    kills = parser.parse_args().kills
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


if __name__ == "__main__":
    main()
