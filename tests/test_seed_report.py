"""REPORT.md's seed section: each seed report's mutant, the fixtures that catch it, and the real code's verdicts."""

from __future__ import annotations

from deltacheck.reports.adequacy import render_seeds

UNEXPECTED_CALL = {"axis": "identity", "place": "/choices/*/parts/* (tool_call)", "kind": "unexpected"}
ARGUMENTS = {"axis": "arguments", "place": "/choices/*/parts/*/arguments", "kind": "differs"}
MUTATION_HEADER = {"mutants": [
    {"name": "drops-reasoning", "bug": "reasoning deltas dropped", "models": None},
    {"name": "spring-ai-2.0.0-chunkmerger", "bug": "one tool call per chunk asserted",
     "models": "Spring AI 2.0.0 OpenAiChatModel.ChunkMerger (seed 002)"},
    {"name": "weave-router-responses-writer", "bug": "calls at non-contiguous indices dropped",
     "models": "weave-os/router translate/responses.go assembleOutput (seed 001)"},
]}
MUTATION_RECORDS = [
    {"mutant": "drops-reasoning", "fixture": "DC-AAAA", "killed": True},
    {"mutant": "spring-ai-2.0.0-chunkmerger", "fixture": "DC-V4ZD", "killed": True, "divergences": [UNEXPECTED_CALL]},
    {"mutant": "spring-ai-2.0.0-chunkmerger", "fixture": "DC-W331", "killed": True,
     "divergences": [UNEXPECTED_CALL, ARGUMENTS]},
    {"mutant": "spring-ai-2.0.0-chunkmerger", "fixture": "DC-AAAA", "killed": False},
    {"mutant": "weave-router-responses-writer", "fixture": "DC-8499", "killed": True},
]


def spring(name: str, version: str, verdicts: dict[str, str], details: dict[str, dict] | None = None):
    return ({"name": name, "library": "spring-ai-openai", "version": version},
            [{"fixture": fixture, "verdict": verdict, **(details or {}).get(fixture, {})}
             for fixture, verdict in verdicts.items()])


def test_a_failure_that_is_not_the_seed_bug_and_an_n_a_say_so_with_the_adapters_reason():
    koog = ({"name": "koog-openai-responses", "library": "spring-ai-openai", "version": "1.1.1",
             "capability_notes": {"item_id": "ToolCallComplete carries the call id only"}},
            [{"fixture": "DC-V4ZD", "verdict": "n/a",
              "message": "cannot express item_id, which this fixture is about; what it can express matches"},
             {"fixture": "DC-W331", "verdict": "fail",
              "divergences": [{"axis": "content", "place": "/choices/*/parts/* (text)", "kind": "missing"}]}])
    text = "\n".join(render_seeds([koog], MUTATION_HEADER, MUTATION_RECORDS))
    assert "| n/a: cannot express item_id (ToolCallComplete carries the call id only) |" in text
    assert "| **FAIL**, another defect: content /choices/*/parts/* (text): missing |" in text
    assert "The seed bug shows on 0 of 2 in `koog-openai-responses`." in text


def test_each_seed_shows_its_mutant_its_fixtures_and_every_scored_version_side_by_side():
    runs = [spring("spring-ai-openai-chat", "2.0.1", {"DC-V4ZD": "pass", "DC-W331": "pass", "DC-AAAA": "pass"}),
            spring("spring-ai-openai-chat@2.0.0", "2.0.0", {"DC-V4ZD": "error", "DC-W331": "fail"},
                   {"DC-V4ZD": {"message": "raised: IllegalStateException: one call per chunk"},
                    "DC-W331": {"divergences": [ARGUMENTS]}}),
            ({"name": "openai-java-chat", "library": "openai-java", "version": "4.105.0"},
             [{"fixture": "DC-V4ZD", "verdict": "pass"}])]
    text = "\n".join(render_seeds(runs, MUTATION_HEADER, MUTATION_RECORDS))
    assert text.startswith("## Seed reports and the real code\n")
    assert "drops-reasoning" not in text  # a mutant that models no seed report has no place here
    spring_part = text[text.index("### Spring AI 2.0.0"):]
    assert "- mutant: `spring-ai-2.0.0-chunkmerger` (one tool call per chunk asserted)" in spring_part
    assert "- fixtures that catch it: DC-V4ZD, DC-W331\n" in spring_part  # not DC-AAAA: it does not catch it
    assert ("| fixture | how the seed bug shows | spring-ai-openai-chat (2.0.1) | spring-ai-openai-chat@2.0.0 (2.0.0) |\n"
            "|---|---|---|---|\n"
            "| DC-V4ZD | identity /choices/*/parts/* (tool_call): unexpected | pass | "
            "**ERROR** before the seed bug could show: raises IllegalStateException |\n"
            "| DC-W331 | identity /choices/*/parts/* (tool_call): unexpected; arguments /choices/*/parts/*/arguments: "
            "differs | pass | **FAIL**: the seed bug (arguments /choices/*/parts/*/arguments: differs) |") in spring_part
    assert "The seed bug shows on 0 of 2 in `spring-ai-openai-chat`; 1 of 2 in `spring-ai-openai-chat@2.0.0`." in text
    assert "openai-java" not in text  # another library is not the seed's system


def test_a_seed_system_that_cannot_be_built_says_so_and_keeps_its_mutant():
    text = "\n".join(render_seeds([], MUTATION_HEADER, MUTATION_RECORDS))
    router = text[text.index("### weave-os/router"):]
    assert "- mutant: `weave-router-responses-writer`" in router
    assert "- fixtures that catch it: DC-8499" in router
    assert "- real implementation: none scored: weave-os/router is a Go application whose module path the Go module " \
           "proxy does not serve" in router
    assert "| fixture |" not in router
    # A buildable system whose adapters are not in the results is said to be missing, not silently dropped.
    assert "### Spring AI 2.0.0 OpenAiChatModel.ChunkMerger (seed 002)\n\n- mutant:" in text
    assert "- real implementation: not in these results" in text


def test_no_seed_mutant_means_no_section():
    header = {"mutants": [MUTATION_HEADER["mutants"][0]]}
    assert render_seeds([], header, MUTATION_RECORDS[:1]) == []


def test_an_adapter_that_lacks_the_capability_a_seed_bug_shows_on_says_so_with_its_reason():
    events = {"axis": "events", "place": "/events/*", "kind": "completed a call that does not exist"}
    records = [{**r, "divergences": [*r.get("divergences", []), events]} for r in MUTATION_RECORDS]
    description, verdicts = spring("spring-ai-openai-chat", "2.0.1", {"DC-V4ZD": "pass"})
    description = {**description, "capabilities": ["usage"],
                   "capability_notes": {"events": "stream() emits ChatResponses, no completion events"}}
    text = "\n".join(render_seeds([(description, verdicts)], MUTATION_HEADER, records))
    assert ("- `spring-ai-openai-chat` sees the bug except where it shows only on what it lacks: events "
            "(stream() emits ChatResponses, no completion events)") in text


def _spring_release(root, version, verdicts, status="scored", reason=""):
    """A Spring AI release recorded by `deltacheck history`: DC-W331's failure has the seed bug's divergence."""
    from deltacheck.history.store import header_of, read_release, release_path
    from deltacheck.running.results import ResultsWriter

    path = release_path(root, "spring-ai-openai-chat", version)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        writer = ResultsWriter(handle)
        writer.header(
            corpus_version="9.9.9",
            adapter={"name": "spring-ai-openai-chat", "library": "spring-ai-openai", "version": version},
            **header_of("org.springframework.ai:spring-ai-openai", "maven", version, status, reason),
        )
        for fixture, verdict in verdicts.items():
            record = {"kind": "result", "fixture": fixture, "adapter": "spring-ai-openai-chat", "verdict": verdict}
            writer.record(record | ({"divergences": [ARGUMENTS]} if verdict == "fail" else {}))
        writer.footer()
    return read_release(path)


def test_the_seed_bug_across_releases_says_on_how_many_fixtures_each_release_shows_it_and_when_it_came_and_went(
    tmp_path,
):
    from deltacheck.history.store import read_histories

    _spring_release(tmp_path, "1.1.8", {}, "not-installable", "mvn package failed: SpringAiDriver.java:[3,23] package com.openai.core does not exist")
    _spring_release(tmp_path, "2.0.0-M2", {"DC-V4ZD": "pass", "DC-W331": "pass"})
    _spring_release(tmp_path, "2.0.0-M3", {"DC-V4ZD": "pass", "DC-W331": "fail"})
    _spring_release(tmp_path, "2.0.0", {"DC-V4ZD": "pass", "DC-W331": "fail"})
    _spring_release(tmp_path, "2.0.1", {"DC-V4ZD": "pass", "DC-W331": "pass"})
    histories = read_histories([tmp_path])
    runs = [spring("spring-ai-openai-chat", "2.0.1", {"DC-V4ZD": "pass", "DC-W331": "pass"})]
    text = "\n".join(render_seeds(runs, MUTATION_HEADER, MUTATION_RECORDS, histories))
    assert (
        "- across releases of `spring-ai-openai-chat` (`deltacheck history`): 1.1.8: not-installable (mvn package "
        "failed: SpringAiDriver.java:[3,23] package com.openai.core does not exist); 2.0.0-M2: 0 of 2; "
        "2.0.0-M3 – 2.0.0 (2): 1 of 2; 2.0.1: 0 of 2. The seed bug first shows on 1 more in 2.0.0-M3 (after "
        "2.0.0-M2); gone in 2.0.1 (after 2.0.0)."
    ) in text
    weave = text[text.index("### weave-os") : text.index("### Spring AI")]
    assert "across releases" not in weave  # another seed's system: its history is not Spring AI's
