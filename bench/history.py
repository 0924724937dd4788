"""What a release sweep costs: each release's environment built cold and again from its cache, its
scoring, and the total for N releases of one Python library.

    python bench/history.py [N] [--adapter NAME] [--versions SPEC]

N (default 20) releases: the N newest by default (`latest:N`), or the first N that SPEC names. The cold
builds go to a temporary folder (pip's own download cache is left as it is, as on a CI runner with a
warm cache); "cached" is the same call again, which finds the stamp and builds nothing. Scoring runs
the adapter's fixtures through the normal run path into a temporary results folder. Numbers are
printed, never asserted: the machine is shared.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from deltacheck.corpus.loader import load_corpus
from deltacheck.history.environments import NotInstallable, ensure_release
from deltacheck.history.scoring import score_release
from deltacheck.history.spec import parse_spec, resolve
from deltacheck.history.target import find_target
from deltacheck.pins.registries import served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=20, help="releases in the sweep (default 20)")
    parser.add_argument("--adapter", default="openai-python-chat")
    parser.add_argument("--versions", default=None, help="SPEC (default latest:N)")
    args = parser.parse_args()
    target = find_target(args.adapter)
    spec = parse_spec(target.ecosystem, args.versions or f"latest:{args.n}")
    versions = resolve(target.ecosystem, spec, served(target.ecosystem, target.package).versions, target.package)
    versions = versions[-args.n :] if spec.kind == "latest" else versions[: args.n]
    corpus = load_corpus()
    print(f"{target.adapter}: {target.package} ({target.ecosystem}), {len(versions)} release(s)")
    print(f"{'release':<12}{'cold build s':>14}{'cached s':>10}{'scoring s':>11}  status")
    totals = [0.0, 0.0, 0.0]
    with tempfile.TemporaryDirectory(prefix="deltacheck-bench-history-") as work:
        envs, results = Path(work) / "envs", Path(work) / "results"
        for version in versions:
            start = time.perf_counter()
            try:
                built = ensure_release(target, version, envs_dir=envs, log=lambda _: None)
            except NotInstallable as exc:
                cold = time.perf_counter() - start
                totals[0] += cold
                print(f"{version:<12}{cold:>14.1f}{'–':>10}{'–':>11}  not installable: {exc}")
                continue
            cold = time.perf_counter() - start
            start = time.perf_counter()
            ensure_release(target, version, envs_dir=envs, log=lambda _: None)
            cached = time.perf_counter() - start
            start = time.perf_counter()
            release = score_release(target, version, corpus, results, build=lambda t, v, b=built: b, say=lambda _: None)
            scoring = time.perf_counter() - start
            for i, value in enumerate((cold, cached, scoring)):
                totals[i] += value
            print(f"{version:<12}{cold:>14.1f}{cached:>10.3f}{scoring:>11.1f}  {release.status}")
    print(f"{'total':<12}{totals[0]:>14.1f}{totals[1]:>10.3f}{totals[2]:>11.1f}")
    print(
        f"sweep of {len(versions)} release(s): {sum(totals):.1f} s cold, {totals[1] + totals[2]:.1f} s with every environment cached"
    )


if __name__ == "__main__":
    main()
