"""What `score --shard I/N` runs: the jobs of one shard, chosen from names that are the same on every machine.

A job is one adapter (its run, fuzzing and cost phase) or one bundled gateway with all its routes
(the gateway starts once for them, and its environment is built once; a route per shard would build
and start it in every shard). The job list is the bundled set (or the adapters and gateways named),
never what this machine can run: an adapter whose toolchain is missing here stays in its shard's
list and is skipped there as an unsharded score skips it, so no runner's toolchains move another
runner's jobs. The mutants (results/mutants.jsonl) depend on the corpus alone: shard 1 writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deltacheck.running.shards import Shard, shard_jobs

# Rough seconds per job by language on a fresh CI runner, its share of the cold environment build
# included (README: a Maven project builds in 15 to 80 s, openai-go in 4 to 5 minutes; a full score
# runs the gateways about 140 s): only their ratios matter, to spread the slow ones over the shards.
JOB_COST = {"in-process": 10, "python": 20, "node": 15, "go": 270, "java": 40}
GATEWAY_START, GATEWAY_ROUTE = 20, 20
GATEWAY_JOB_PREFIX = "gateway:"  # never in an adapter's name: registered names hold no colon


@dataclass(frozen=True)
class ShardPlan:
    """What one shard runs, out of `total` jobs."""

    shard: Shard
    adapters: list[str]
    gateways: list[str]  # the bundled gateways this shard runs, each with the routes asked for
    gateway_filter: tuple[str, ...]  # the names the gateway phase is given (its --gateway)
    total: int
    # Gateway manifests that do not load: the gateway phase says them; with no gateway job at all, shard 1.
    gateway_problems: list[str]

    @property
    def jobs(self) -> int:
        return len(self.adapters) + len(self.gateways)

    @property
    def writes_mutants(self) -> bool:
        return self.shard.index == 1


def plan_shard(
    shard: Shard, adapter_names: Sequence[str], named: bool, gateway_names: tuple[str, ...], with_gateways: bool
) -> ShardPlan:
    """The adapters and gateways of `shard`.

    `adapter_names` are the adapters named with --adapter (`named`); without, the whole bundled set is
    sharded. `with_gateways` says whether the run has a gateway phase, `gateway_names` its --gateway filter.
    """
    from deltacheck.adapter import registered_adapters
    from deltacheck.driver.external import ExternalAdapter
    from deltacheck.driver.manifests import load_manifests

    manifests = {m.name: m for m in load_manifests().adapters}
    if named:
        adapters = list(adapter_names)
    else:  # every in-process adapter, and every valid manifest whatever the toolchains on this machine
        in_process = [n for n, f in registered_adapters().items() if not isinstance(f, ExternalAdapter)]
        adapters = sorted({*in_process, *(n for n in manifests if n not in in_process)})
    costs = {n: JOB_COST[manifests[n].language if n in manifests else "in-process"] for n in adapters}
    groups = {n: manifests[n].env_name if n in manifests else n for n in adapters}  # one environment, one shard
    routes, problems = _gateway_routes(gateway_names) if with_gateways else ({}, [])
    for gateway, names in routes.items():
        job = GATEWAY_JOB_PREFIX + gateway
        costs[job], groups[job] = GATEWAY_START + GATEWAY_ROUTE * len(names), job
    chosen = shard_jobs(list(costs), shard, costs.__getitem__, groups.__getitem__)
    gateways = [job.removeprefix(GATEWAY_JOB_PREFIX) for job in chosen if job.startswith(GATEWAY_JOB_PREFIX)]
    # A gateway's name stands for all its routes; routes named with --gateway stay the only ones run.
    given = tuple(gateways) if not gateway_names else tuple(n for g in gateways for n in routes[g])
    says_problems = not routes and shard.index == 1
    return ShardPlan(
        shard, [n for n in chosen if n in adapters], gateways, given, len(costs), problems if says_problems else []
    )


def _gateway_routes(names: tuple[str, ...]) -> tuple[dict[str, list[str]], list[str]]:
    """Each bundled gateway with a route asked for (all, when no --gateway is given), those routes, and the
    gateway manifests that do not load."""
    from deltacheck.gateways.bundled import load_gateways

    gateways, problems = load_gateways()
    routes = {}
    for bundled in gateways:
        asked = [s.name for s in bundled.specs() if not names or s.name in names or bundled.name in names]
        if asked:
            routes[bundled.name] = asked
    return routes, [str(p) for p in problems]
