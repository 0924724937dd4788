"""What proxy mode costs: building a gateway's environment, starting it, and each fixture through it.

    python bench/gateway_proxy.py [--build-env] [--route NAME ...]

Prints, per route (the in-repo mini gateway, then every bundled route whose environment is built,
or only the --route ones): the seconds until the gateway listened, and the per-fixture wall time
(mean, median, max, in ms) over every fixture of its upstream protocol, with the verdict counts.
With --build-env it first builds each bundled gateway's environment from scratch in a temporary
folder and prints how long that took (the cost of a first `deltacheck score` on a fresh machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from deltacheck.gateways import proxy as gateway_module
from deltacheck.corpus.loader import load_corpus
from deltacheck.gateways.proxy import GatewaySpec, run_gateway
from deltacheck.gateways.bundled import load_gateways

REPO = Path(__file__).resolve().parent.parent
MINI = REPO / "tests" / "gateways" / "mini_gateway.py"


def build_times() -> None:
    with tempfile.TemporaryDirectory(prefix="deltacheck-bench-envs-") as folder:
        for bundled in load_gateways()[0]:
            started = time.perf_counter()
            bundled.ensure_env(Path(folder), log=lambda line: None)
            print(f"{bundled.manifest.env_name}: environment built from scratch in {time.perf_counter() - started:.1f} s")


def measure(spec: GatewaySpec, startup_timeout: float) -> None:
    corpus = load_corpus()
    fixtures = corpus.select({spec.upstream}, set())
    listened: list[float] = []
    original = gateway_module.GatewayProcess.start

    def timed_start(self):
        started = time.perf_counter()
        original(self)
        listened.append(time.perf_counter() - started)

    gateway_module.GatewayProcess.start = timed_start
    try:
        records = list(run_gateway(spec, corpus, fixtures, 30.0, 5, startup_timeout))
    finally:
        gateway_module.GatewayProcess.start = original
    times = [r.duration_ms for r in records]
    counts = Counter(r.verdict.verdict for r in records)
    print(f"{spec.name}: listened after {', '.join(f'{s:.1f}' for s in listened)} s; {len(times)} fixtures, "
          f"per fixture mean {statistics.mean(times):.1f} ms, median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms; {dict(sorted(counts.items()))}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-env", action="store_true")
    parser.add_argument("--route", action="append", default=[])
    args = parser.parse_args()
    if args.build_env:
        build_times()
    if not args.route or "mini" in args.route:
        measure(GatewaySpec(name="mini-gateway-chat-to-responses", command=(
            sys.executable, str(MINI), "--port", "{port}", "--upstream", "{upstream}"),
            upstream="openai-chat", downstream="openai-responses"), 10.0)
    for bundled in load_gateways()[0]:
        for spec in bundled.specs():
            if (args.route and spec.name not in args.route) or not bundled.env_ready():
                if not args.route:
                    print(f"{spec.name}: not measured, its environment is not built")
                continue
            measure(spec, bundled.startup_timeout)


if __name__ == "__main__":
    main()
