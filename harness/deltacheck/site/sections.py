"""The site's pages for the corpus's own strength and the long streams: seeds, gateways, fuzzing,
mutants and cost, each the report renderer's section (reports/adequacy.py, cost.py, scorecard.py)."""

from __future__ import annotations

from deltacheck.reports.adequacy import render_fuzz, render_mutation, render_seeds
from deltacheck.reports.cost import render_cost
from deltacheck.reports.links import SiteLinks
from deltacheck.reports.scorecard import gateways_section
from deltacheck.site.facts import SiteFacts
from deltacheck.site.markdown import to_html


def section_pages(facts: SiteFacts) -> dict[str, tuple[str, str]]:
    """file name: (title, body) for each section page; a section with no results says so."""
    inputs = facts.inputs
    runs = inputs.runs
    mutation = inputs.mutation
    seeds = render_seeds([(run.adapter, run.records) for run in runs], *mutation, inputs.history) if mutation else []
    gateways: list[str] = []
    gateways_section(gateways, runs, SiteLinks(""))  # each route's name links its page
    pages = {
        "seeds.html": ("Seed reports and the real code", seeds[1:], "No mutants results (results/mutants.jsonl)."),
        "gateways.html": ("Gateways", gateways[1:], "No gateway routes in these results."),
        "fuzzing.html": ("Fuzzing", render_fuzz(inputs.fuzz)[1:] if inputs.fuzz else [], "No fuzz results."),
        "mutants.html": (
            "Mutation adequacy",
            render_mutation(*mutation)[1:] if mutation else [],
            "No mutants results (results/mutants.jsonl).",
        ),
        "cost.html": ("Cost", [line for line in render_cost(inputs.cost) if line != "## Cost\n"], "No cost results."),
    }
    return {
        name: (title, to_html(lines) if lines else f"<p>{missing}</p>")
        for name, (title, lines, missing) in pages.items()
    }
