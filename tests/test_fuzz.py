"""deltacheck fuzz: finds, shrinks and saves the streams an implementation cannot take."""

from __future__ import annotations

import json

from deltacheck.corpus.loader import DEFAULT_CORPUS, load_corpus
from deltacheck.adequacy.fuzz import counterexample_fixture, fuzz_invariance, fuzz_robustness, write_fixture
from tests import miniatures
from tests.corpus_builder import make_corpus


def anthropic_text_corpus(tmp_path):
    source = DEFAULT_CORPUS / "fixtures" / "anthropic-messages" / "text-in-several-deltas.json"
    data = json.loads(source.read_text())
    assert not any(chunk["type"] == "ping" for chunk in data["chunks"])
    return load_corpus(make_corpus(tmp_path, {"anthropic-messages/text.json": data}))


def test_a_restreaming_the_adapter_cannot_take_is_found_and_shrunk(tmp_path):
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    finding = fuzz_invariance(miniatures.RejectsPing(), corpus, fixture, examples=50, timeout=2)
    assert finding.status == "failed"
    assert finding.edits and all(edit.startswith("ping@") for edit in finding.edits)
    assert len(finding.edits) == 1  # shrunk to one inserted ping
    assert "unexpected event: ping" in finding.message


def test_the_reference_survives_its_restreamings(tmp_path):
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    finding = fuzz_invariance(miniatures.AsyncReference(), corpus, fixture, examples=20, timeout=2)
    assert finding.status == "survived" and finding.examples == 20


def test_a_counterexample_becomes_a_fixture_that_passes_lint(tmp_path):
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    finding = fuzz_invariance(miniatures.RejectsPing(), corpus, fixture, examples=50, timeout=2)
    data = counterexample_fixture(corpus, fixture, finding, "miniature-rejects-ping 0")
    path = write_fixture(corpus, data)
    reloaded = load_corpus(corpus.root)
    assert [str(p) for p in reloaded.problems] == []
    saved = reloaded.by_id()[data["id"]]
    assert saved.provenance["derived_from"] == fixture.id and saved.provenance["kind"] == "derived"
    assert any(chunk.get("type") == "ping" for chunk in saved.chunks)
    assert path.name.startswith(f"rechunked-{fixture.id.lower()}-")


def test_a_hang_on_a_truncated_stream_is_a_robustness_failure(tmp_path):
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    finding = fuzz_robustness(miniatures.WaitsForStop(), corpus, fixture, examples=20, timeout=0.2)
    assert finding.status == "failed" and "TimedOut" in finding.message


def test_an_outcome_that_does_not_reproduce_costs_that_fixtures_fuzzing_not_the_run(tmp_path):
    # hypothesis raises Flaky when a variant failed once and passes when it is run again
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    finding = fuzz_robustness(miniatures.BreaksOnlyTheFirstTime(), corpus, fixture, examples=20, timeout=0.2)
    assert finding.status == "not fuzzed" and "answered one variant differently" in finding.message


def test_a_timeout_counts_only_when_a_longer_second_run_times_out_too(tmp_path):
    # One run slowed by a busy machine must not become a finding: the hang below does not happen
    # again, so the variant is read on its second run; a stream it always hangs on still fails.
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    once = fuzz_robustness(miniatures.HangsOnlyTheFirstTime(), corpus, fixture, examples=20, timeout=0.2)
    assert once.status == "survived" and once.examples == 20
    always = fuzz_robustness(miniatures.WaitsForStop(), corpus, fixture, examples=20, timeout=0.2)
    assert always.status == "failed" and "TimedOut" in always.message


def test_the_second_run_of_a_timed_out_variant_gets_a_longer_limit():
    from deltacheck.adequacy.fuzz import TIMEOUT_CONFIRM_FACTOR, _confirming_timeouts
    from deltacheck.judge.verdict import Returned, TimedOut

    limits = []

    def run(request, timeout):
        limits.append(timeout)
        return TimedOut(timeout) if len(limits) == 1 else Returned({"choices": []})

    assert isinstance(_confirming_timeouts(run, object(), 2.0), Returned)
    assert limits == [2.0, 2.0 * TIMEOUT_CONFIRM_FACTOR]


def test_raising_on_a_broken_stream_is_not_a_robustness_failure(tmp_path):
    corpus = anthropic_text_corpus(tmp_path)
    (fixture,) = corpus.fixtures
    finding = fuzz_robustness(miniatures.Raises(), corpus, fixture, examples=20, timeout=1)
    assert finding.status == "survived"


def test_what_is_fuzzed_does_not_depend_on_the_modules_imported(tmp_path):
    """Hypothesis draws the literals of local modules; REPORT.md's fuzz figures must not follow them."""
    import subprocess
    import sys

    (tmp_path / "many_literals.py").write_text("VALUES = [" + ", ".join(  # cuts in [0, 1), as restreamings draw
        [f"{n / 97:.6f}" for n in range(1, 97)] + [str(n) for n in range(2, 60)] + [repr(f"s{n}") for n in range(40)]) + "]\n")
    corpus_dir = tmp_path / "corpus"
    anthropic_text_corpus(corpus_dir)
    program = (
        "import json, sys\n"
        "if sys.argv[1] == 'with': import many_literals\n"
        "from deltacheck.corpus.loader import load_corpus\n"
        "from deltacheck.adequacy.fuzz import fuzz_invariance, fuzz_robustness\n"
        "from tests import miniatures\n"
        f"corpus = load_corpus({str(corpus_dir / 'corpus')!r})\n"
        "(fixture,) = corpus.fixtures\n"
        "tried = []\n"
        "class Recording(miniatures.AsyncReference):\n"
        "    async def assemble(self, request):\n"
        "        tried.append(request.chunks)\n"
        "        return await super().assemble(request)\n"
        "found = [fuzz_invariance(Recording(), corpus, fixture, examples=100, timeout=2),\n"
        "         fuzz_robustness(Recording(), corpus, fixture, examples=100, timeout=2)]\n"
        "print(json.dumps([[f.to_json() for f in found], tried], sort_keys=True))\n")
    runs = [subprocess.run([sys.executable, "-c", program, mode], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONPATH": f"{tmp_path}:{DEFAULT_CORPUS.parent}"},
                           cwd=DEFAULT_CORPUS.parent).stdout for mode in ("without", "with")]
    assert runs[0] == runs[1]
