"""The cost axis from the installed wheel: the scenario specs and their schema ship as package data."""

from __future__ import annotations

import json

from tests.test_installed import ADAPTER, _deltacheck, installed  # noqa: F401  (the module-scoped fixture)


def test_cost_runs_the_bundled_scenarios_from_the_wheel(installed):  # noqa: F811
    _, project, _ = installed
    outcome = _deltacheck(installed, "cost", "--adapter", ADAPTER, "--scenario", "chat-text", "--budget", "0.01",
                          "--results", "cost.jsonl")
    assert "Traceback" not in outcome.stderr, outcome.stderr[-3000:]
    records = [json.loads(line) for line in (project / "cost.jsonl").read_text().splitlines()]
    (summary,) = [r for r in records if r["kind"] == "scenario"]
    first_size = summary["sizes"][0] if summary["sizes"] else summary["failure"]["fragments"]
    assert summary["scenario"] == "chat-text" and first_size == 100
    assert records[0]["adapter"]["name"] == "my-accumulator" and records[-1]["kind"] == "footer"
    lint = _deltacheck(installed, "lint")
    assert lint.returncode == 0 and "scenarios" not in lint.stdout, lint.stdout + lint.stderr
