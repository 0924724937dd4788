"""The GitHub Action: action.yml, and its script run as the runner runs it (`python -m deltacheck.github_action`
with the environment GitHub gives a step), against the bundled reference and deliberately broken adapters.

Every count a test checks is computed here from the results file the run wrote, never written down.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from ruamel.yaml import YAML

from deltacheck.github_action import inputs as action_inputs
from deltacheck.github_action.main import step_outputs
from deltacheck.github_action.step_files import output_lines
from deltacheck.github_action.summary import MAX_ROWS, SummaryContext, render_summary
from deltacheck.judge.verdict import VERDICTS
from deltacheck.running.results import Results

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
WORKFLOWS = ROOT / ".github" / "workflows"
SCRIPT_PACKAGE = ROOT / "harness" / "deltacheck" / "github_action"
SITE = "https://deltacheck.example/site"

# A user's adapter that keeps only the first tool call of each choice: every fixture with parallel calls fails.
KEEPS_FIRST_CALL = '''
from deltacheck import Adapter
from deltacheck.reference import assemble

class KeepsFirstCall(Adapter):
    name = "keeps-first-call"
    library = "broken"
    version = "1"
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"finish_reason", "usage", "error", "refusal", "multiple_choices"})
    code_path = "the reference, keeping only the first tool call of each choice"

    def assemble(self, request):
        result = assemble(request.protocol, request.chunks).result
        for choice in result.get("choices", []):
            calls = [p for p in choice["parts"] if p["type"] == "tool_call"]
            choice["parts"] = [p for p in choice["parts"] if p["type"] != "tool_call" or p is calls[0]]
        return result
'''

# Text a library or fixture could hold that would end a table row, open code, inject an element or a heading.
HOSTILE = (
    "a|b `tick` <script>alert(1)</script> **bold** <img src=x onerror=alert(2)> https://evil.example/a|b\n| --- |\n# heading"
)

# A user's adapter whose every word in the summary is hostile: its name, its library, what it raises and returns.
HOSTILE_ADAPTER = f'''
from deltacheck import Adapter
from deltacheck.reference import assemble

HOSTILE = {HOSTILE!r}

class Hostile(Adapter):
    name = "hostile|`name`<script>x</script>"
    library = "lib <b>bold</b>\\n| x |"
    version = "1"
    protocols = frozenset({{"openai-chat"}})
    capabilities = frozenset({{"finish_reason", "usage", "error", "refusal", "multiple_choices"}})
    code_path = "the reference, with hostile text"

    def assemble(self, request):
        result = assemble(request.protocol, request.chunks).result
        parts = [p for c in result.get("choices", []) for p in c["parts"]]
        if any(p["type"] == "tool_call" for p in parts):
            raise ValueError(HOSTILE)
        for part in parts:
            if part["type"] == "text":
                part["text"] = HOSTILE
        return result
'''


# -- running the action's script as a step -----------------------------------------------------------------


class Step:
    """One run of the script with the environment a GitHub runner gives a composite action's step."""

    def __init__(self, done: subprocess.CompletedProcess, workspace: Path, summary: Path, outputs: Path) -> None:
        self.exit_code = done.returncode
        self.stdout, self.stderr = done.stdout, done.stderr
        self.workspace = workspace
        self.summary = summary.read_text(encoding="utf-8") if summary.exists() else ""
        self.outputs = parse_outputs(outputs.read_text(encoding="utf-8")) if outputs.exists() else {}

    def results(self, results_dir: str = "deltacheck-results") -> list[dict]:
        """The result records of the results file the run wrote, read here without the harness."""
        path = self.workspace / results_dir / "results.jsonl"
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [line for line in lines if line["kind"] == "result"]

    def summary_counts(self) -> dict[str, int]:
        return {verdict: int(n) for verdict, n in re.findall(r"^\| ([a-z/]+) \| (\d+) \|$", self.summary, re.M)}


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "keeps_first_call.py").write_text(KEEPS_FIRST_CALL, encoding="utf-8")
    (tmp_path / "workspace" / "hostile.py").write_text(HOSTILE_ADAPTER, encoding="utf-8")
    (tmp_path / "runner-temp").mkdir()
    return tmp_path / "workspace"


def run_step(workspace: Path, summary_file: bool = True, extra_env: dict[str, str] | None = None, **given: str) -> Step:
    """Run the script as action.yml's step does; `given` are the action's inputs by name (`adapter_cmd` for adapter-cmd)."""
    temp = workspace.parent / "runner-temp"
    summary, outputs = temp / "step_summary.md", temp / "github_output"
    summary.unlink(missing_ok=True)
    outputs.unlink(missing_ok=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(temp),
        "PYTHONUTF8": "1",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(outputs),
        **({"GITHUB_STEP_SUMMARY": str(summary)} if summary_file else {}),
    }
    # Every input is set, as the runner sets an input left out: to its default, here the empty string.
    for name, variable in action_inputs.INPUT_VARIABLES.items():
        env[variable] = given.pop(name.replace("-", "_"), "")
    assert not given, f"not inputs of the action: {sorted(given)}"
    env.update(extra_env or {})
    done = subprocess.run(
        [sys.executable, "-m", "deltacheck.github_action"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Step(done, workspace, summary, outputs)


def parse_outputs(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT as the runner reads it: `name=value`, or `name<<DELIMITER` ... `DELIMITER`."""
    outputs, lines = {}, iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for body in lines:
                if body == delimiter:
                    break
                value.append(body)
            else:
                raise AssertionError(f"output {name}: no closing delimiter {delimiter}")
            outputs[name] = "\n".join(value)
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def failing(records: list[dict]) -> list[dict]:
    return [r for r in records if r["verdict"] not in ("pass", "n/a", "skip")]


def expectations_of(records: list[dict], **changed: str) -> str:
    """An expectations file holding the run's own verdicts, some changed (`DC_XXXX="pass"`)."""
    verdicts = {r["fixture"]: r["verdict"] for r in records}
    verdicts |= {fixture.replace("_", "-"): verdict for fixture, verdict in changed.items()}
    return "[verdicts]\n" + "".join(f'{fixture} = "{verdict}"\n' for fixture, verdict in sorted(verdicts.items()))


# -- the reference passes, a broken adapter fails ------------------------------------------------------------


def test_the_reference_passes_and_the_summary_counts_are_the_results_files(workspace):
    step = run_step(workspace, adapter="reference")
    records = step.results()
    counts = Counter(r["verdict"] for r in records)
    assert step.exit_code == 0, step.stderr
    assert records and set(counts) == {"pass"}
    assert step.summary_counts() == {verdict: counts.get(verdict, 0) for verdict in VERDICTS}
    assert "### Failing fixtures: 0" in step.summary and "✅" in step.summary
    assert step.outputs == {"passed": str(counts["pass"]), "failed": "0", "errors": "0", "regressions": "",
                            "unexpected-passes": ""}
    junit = (workspace / "deltacheck-results" / "junit.xml").read_text(encoding="utf-8")
    assert f'tests="{len(records)}"' in junit


def test_a_broken_adapter_fails_with_each_failure_cited_and_its_first_difference(workspace):
    step = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall")
    records = step.results()
    counts = Counter(r["verdict"] for r in records)
    assert step.exit_code == 1, step.stderr
    assert counts["fail"] and counts["pass"]
    assert step.summary_counts() == {verdict: counts.get(verdict, 0) for verdict in VERDICTS}
    assert step.outputs["passed"] == str(counts["pass"]) and step.outputs["failed"] == str(counts["fail"])
    assert step.outputs["errors"] == str(counts["error"] + counts["crash"] + counts["timeout"])
    version = json.loads((workspace / "deltacheck-results" / "results.jsonl").read_text().splitlines()[0])[
        "corpus_version"
    ]
    rows = [line for line in step.summary.splitlines() if re.match(r"^\| DC-", line)]
    assert len(rows) == len(failing(records))
    for record, row in zip(failing(records), rows):
        assert row.startswith(f"| {record['fixture']}@{version} | {record['verdict']} |")
        words = re.findall(r"[a-z]{4,}", record["first_divergence"])  # its words, whatever the escaping did
        assert words and all(word in row for word in words), (row, record["first_divergence"])


def test_the_protocol_input_takes_a_list_separated_by_commas_or_spaces(workspace):
    step = run_step(workspace, adapter="reference", protocol="openai-responses, anthropic-messages gemini")
    assert step.exit_code == 0, step.stderr
    assert {r["protocol"] for r in step.results()} == {"openai-responses", "anthropic-messages", "gemini"}


def test_the_results_dir_input_is_where_results_and_junit_go(workspace):
    step = run_step(workspace, adapter="reference", protocol="openai-chat", results_dir="out/dc")
    assert step.exit_code == 0, step.stderr
    assert step.results("out/dc") and (workspace / "out" / "dc" / "junit.xml").is_file()
    assert "`out/dc/results.jsonl`" in step.summary


def test_fixture_ids_link_to_the_site_only_when_its_address_is_set(workspace):
    linked = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall",
                      extra_env={"DELTACHECK_SITE_URL": SITE + "/"})
    fixture = failing(linked.results())[0]["fixture"]
    assert f"({SITE}/fixtures/{fixture}.html)" in linked.summary
    plain = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall")
    assert "/fixtures/" not in plain.summary and fixture in plain.summary


def test_without_a_summary_file_the_summary_goes_to_stdout(workspace):
    step = run_step(workspace, summary_file=False, adapter="reference", protocol="gemini")
    assert step.exit_code == 0 and step.summary == ""
    assert step.stdout.startswith("## deltacheck: reference") and "| pass |" in step.stdout


# -- expectations: the exit status of `deltacheck run --expectations` ----------------------------------------


def test_expectations_that_hold_every_failure_give_exit_0(workspace):
    first = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall")
    records = first.results()
    (workspace / "deltacheck.toml").write_text(expectations_of(records), encoding="utf-8")
    step = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall", expectations="deltacheck.toml")
    assert first.exit_code == 1 and step.exit_code == 0, step.stderr
    assert step.outputs["regressions"] == "0" and step.outputs["unexpected-passes"] == "0"
    assert step.outputs["failed"] == str(sum(r["verdict"] == "fail" for r in records))
    assert f"({len(failing(records))} known failure(s))" in step.summary
    rows = [line for line in step.summary.splitlines() if re.match(r"^\| DC-", line)]
    assert len(rows) == len(failing(records)) and all(row.endswith("| as expected |") for row in rows)


def test_a_regression_and_an_unexpected_pass_give_exit_1_and_are_listed(workspace):
    records = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall").results()
    regressed = failing(records)[0]["fixture"]  # expected to pass, fails
    passed = next(r["fixture"] for r in records if r["verdict"] == "pass")  # expected to fail, passes
    text = expectations_of(records, **{regressed.replace("-", "_"): "pass", passed.replace("-", "_"): "fail"})
    (workspace / "deltacheck.toml").write_text(text, encoding="utf-8")
    step = run_step(workspace, adapter="keeps_first_call.py:KeepsFirstCall", expectations="deltacheck.toml")
    assert step.exit_code == 1
    assert step.outputs["regressions"] == "1" and step.outputs["unexpected-passes"] == "1"
    regressions = step.summary.split("### Regressions", 1)[1].split("###", 1)[0]
    unexpected = step.summary.split("### Unexpected passes", 1)[1].split("###", 1)[0]
    assert regressed in regressions and passed not in regressions
    assert passed in unexpected and regressed not in unexpected
    assert "1 regression, 1 unexpected pass" in step.summary


@pytest.mark.parametrize("expectations", ["none", "as run", "a regression"])
def test_the_exit_status_is_deltacheck_runs_with_the_same_inputs(workspace, expectations):
    spec = "keeps_first_call.py:KeepsFirstCall"
    records = run_step(workspace, adapter=spec).results()
    changed = {failing(records)[0]["fixture"].replace("-", "_"): "pass"} if expectations == "a regression" else {}
    (workspace / "e.toml").write_text(expectations_of(records, **changed), encoding="utf-8")
    given = {} if expectations == "none" else {"expectations": "e.toml"}
    step = run_step(workspace, adapter=spec, **given)
    command = [sys.executable, "-c", "from deltacheck.cli import main; main()", "run", "--adapter", spec,
               "--results", "cli.jsonl", *(["--expectations", "e.toml"] if given else [])]
    cli = subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=300)
    assert step.exit_code == cli.returncode, (step.stderr, cli.stderr)
    assert step.exit_code == (0 if expectations == "as run" else 1)


# -- what libraries and fixtures wrote is shown as text ------------------------------------------------------


class _Html(HTMLParser):
    """The elements and text of rendered Markdown, and each table's rows as cell counts."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.links: list[str] = []
        self.rows: list[list[str]] = []  # per table row, its cells' text
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        if tag == "a":
            self.links.append(dict(attrs).get("href", ""))
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self.rows[-1].append("")

    def handle_data(self, data):
        self.text.append(data)
        if self.rows and self.rows[-1]:
            self.rows[-1][-1] += data


def rendered(markdown: str) -> _Html:
    page = _Html()
    page.feed(MarkdownIt("commonmark").enable("table").render(markdown))
    return page


SUMMARY_ELEMENTS = {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "a"}


def assert_shown_as_text(page: _Html, hostile: str) -> None:
    assert set(page.tags) <= SUMMARY_ELEMENTS, f"markup from the text: {set(page.tags) - SUMMARY_ELEMENTS}"
    assert all(link.startswith(SITE + "/fixtures/DC-") for link in page.links), page.links
    widths = {len(row) for row in page.rows}
    assert widths <= {2, 4, 5}, f"a row with another number of cells: {widths}"  # the counts, the failures
    shown = " ".join(hostile.split())
    assert any(shown in " ".join(text.split()) for row in page.rows for text in row), "the text is not shown as itself"


def test_hostile_text_from_an_adapter_is_escaped_in_the_summary(workspace):
    step = run_step(workspace, adapter="hostile.py:Hostile", extra_env={"DELTACHECK_SITE_URL": SITE})
    records = step.results()
    assert step.exit_code == 1 and any(HOSTILE in r.get("message", "") for r in records)
    page = rendered(step.summary)
    assert_shown_as_text(page, HOSTILE)
    shown = min(len(failing(records)), MAX_ROWS)  # a summary holds at most 1 MiB: the rest are in the artifact
    assert len([row for row in page.rows if len(row) == 4]) == 1 + shown  # the header, then a row each
    if len(failing(records)) > MAX_ROWS:
        assert f"… and {len(failing(records)) - MAX_ROWS} more" in step.summary
    heading = next(line for line in step.summary.splitlines() if line.startswith("## "))
    assert rendered(heading).tags.keys() == {"h2"} and "<script>x</script>" in "".join(rendered(heading).text)


def test_a_hostile_fixture_title_and_expectation_reason_are_escaped(tmp_path):
    from deltacheck.judge.expectations import Comparison, Difference, Expectation

    records = [
        {"kind": "result", "fixture": "DC-AAAA", "adapter": "x", "verdict": "fail", "title": HOSTILE,
         "first_divergence": HOSTILE},
        {"kind": "result", "fixture": "DC-BBBB", "adapter": "x", "verdict": "error", "title": HOSTILE,
         "message": HOSTILE},
        {"kind": "result", "fixture": "DC-CCCC", "adapter": "x", "verdict": "pass", "title": HOSTILE},
    ]
    results = Results(str(tmp_path / "r.jsonl"), {"corpus_version": "9.9.9", "adapter": {"name": HOSTILE}}, records,
                      complete=True)
    comparison = Comparison(
        [Difference("DC-AAAA", "regression", Expectation("pass"), "fail"),
         Difference("DC-CCCC", "unexpected pass", Expectation("fail", HOSTILE, "javascript:alert(1)"), "pass")],
        {},
    )
    context = SummaryContext(1, Path("r/results.jsonl"), Path("r/junit.xml"), Path("e.toml"), SITE, "--adapter x")
    markdown = render_summary(results, comparison, context)
    page = rendered(markdown)
    assert_shown_as_text(page, HOSTILE)
    assert {len(row) for row in page.rows if any("DC-" in cell for cell in row)} == {5}
    assert sum(1 for row in page.rows if any("DC-" in cell for cell in row)) == 4  # 1 + 1 differences, 2 failures
    assert "javascript:" not in "".join(page.links)


# -- inputs the action cannot use: one line naming the input -------------------------------------------------


@pytest.mark.parametrize("given, named", [
    ({}, "input adapter"),
    ({"adapter": "reference", "adapter_cmd": "my-driver"}, "input adapter"),
    ({"adapter": "missing_adapter.py:Mine"}, "input adapter: adapter 'missing_adapter.py:Mine': no such file"),
    ({"adapter": "keeps_first_call.py:NoSuchClass"}, "input adapter: "),
    ({"adapter": "no-such-adapter"}, "input adapter: unknown adapter 'no-such-adapter'"),
    ({"adapter_cmd": "no-such-program --flag"}, "input adapter-cmd: "),
    ({"adapter": "reference", "protocol": "openai-chat smoke-signals"}, "input protocol: 'smoke-signals'"),
    ({"adapter": "reference", "expectations": "missing.toml"}, "input expectations: no such file missing.toml"),
    ({"adapter": "reference", "expectations": "bad.toml"}, "input expectations: bad.toml: not valid TOML"),
])
def test_an_unusable_input_is_one_line_naming_it_and_no_traceback(workspace, given, named):
    (workspace / "bad.toml").write_text("[verdicts\n", encoding="utf-8")
    step = run_step(workspace, **given)
    errors = [line for line in step.stderr.splitlines() if line.startswith("::error title=deltacheck::")]
    # Besides it, only the registry's notes on toolchains this machine lacks (a bundled name is looked up)
    others = [line for line in step.stderr.splitlines() if line not in errors]
    assert step.exit_code in (1, 2)
    assert len(errors) == 1 and all(line.startswith("deltacheck: skipped") for line in others), step.stderr
    assert named in errors[0] and "Traceback" not in step.stderr + step.stdout
    assert "Could not run" in step.summary and step.outputs == {}


def test_a_site_address_that_is_not_http_is_refused_by_name(workspace):
    step = run_step(workspace, adapter="reference", extra_env={"DELTACHECK_SITE_URL": "javascript:alert(1)"})
    assert step.exit_code == 2 and "environment variable DELTACHECK_SITE_URL" in step.stderr
    assert len(step.stderr.splitlines()) == 1


# -- outputs ----------------------------------------------------------------------------------------------


def test_an_output_on_several_lines_is_written_as_a_delimited_block():
    values = {"one": "1", "several": "first\nsecond\nghadelimiter_x", "empty": ""}
    text = output_lines(values)
    assert parse_outputs(text) == values
    assert "one=1\n" in text and "several<<" in text


def test_an_invalid_output_name_is_refused():
    with pytest.raises(ValueError, match="not a valid GitHub output name"):
        output_lines({"bad name": "1"})


# -- action.yml and the script, held to each other -----------------------------------------------------------


def _action() -> dict:
    return YAML(typ="safe").load(ACTION.read_text(encoding="utf-8"))


def _steps_by_id() -> dict[str, dict]:
    return {step.get("id", step.get("uses", step.get("name"))): step for step in _action()["runs"]["steps"]}


def test_action_yml_is_a_composite_action_the_published_schema_accepts():
    assert _action()["runs"]["using"] == "composite"
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
                           str(ACTION)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_catches_a_run_step_without_a_shell(tmp_path):
    broken = tmp_path / "action.yml"
    broken.write_text(ACTION.read_text(encoding="utf-8").replace("shell: bash", "", 1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions",
                           str(broken)], capture_output=True, text=True)
    assert done.returncode == 1


def test_every_input_the_script_reads_is_mapped_by_its_step_and_every_mapping_is_read():
    script_step = _steps_by_id()["run"]
    assert script_step["run"] == "python -m deltacheck.github_action"
    mapped = {variable: value for variable, value in script_step["env"].items() if variable.startswith("INPUT_")}
    expected = {variable: "${{ inputs.%s }}" % name for name, variable in action_inputs.INPUT_VARIABLES.items()}
    assert mapped == expected
    assert set(action_inputs.INPUT_VARIABLES) <= set(_action()["inputs"])


def test_every_input_declared_is_used_by_a_step():
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", text))
    assert set(_action()["inputs"]) == used
    # the inputs the script does not read are another step's
    others = set(_action()["inputs"]) - set(action_inputs.INPUT_VARIABLES)
    assert others == {"python-version", "artifact-name"}


def test_every_environment_variable_the_script_reads_is_mapped_or_given_by_the_runner():
    """Read in the script: INPUT_* through the table (held to action.yml above), the rest by name."""
    runner_given = {"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS"}
    read = []
    for path in SCRIPT_PACKAGE.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "os.getenv" not in source and "environ[" not in source, f"{path.name}: read the environment with .get"
        read += re.findall(r"environ\.get\(\s*([^,)]+)", source)
    assert read, "the check found no read of the environment"
    literal = {argument.strip("\"'") for argument in read if argument[0] in "\"'"}
    through_names = {argument for argument in read if argument[0] not in "\"'"}
    assert through_names == {"INPUT_VARIABLES[name]", "SITE_URL_VARIABLE"}
    assert literal == runner_given
    # The site address is the workflow's own env (an input the step mapped would hide a job-level value)
    assert action_inputs.SITE_URL_VARIABLE not in _steps_by_id()["run"]["env"]
    assert action_inputs.SITE_URL_VARIABLE in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_output_is_one_the_script_writes():
    declared = {name: spec["value"] for name, spec in _action()["outputs"].items()}
    assert declared == {name: "${{ steps.run.outputs.%s }}" % name for name in step_outputs(Counter(), None)}


@pytest.mark.parametrize("path", [ACTION, *sorted(WORKFLOWS.glob("*.yml"))], ids=lambda p: p.name)
def test_actions_are_pinned_to_a_commit_with_the_version_beside_it(path):
    uses = re.findall(r"^\s*-? *uses:\s*(\S+)(.*)", path.read_text(encoding="utf-8"), re.M)
    uses = [(action, comment) for action, comment in uses if action != "./"]  # this repository's own action
    assert uses, f"{path.name}: the check found no action"
    if path == ACTION:
        assert {action.split("@")[0] for action, _ in uses} == {"actions/setup-python", "actions/upload-artifact"}
    for action, comment in uses:
        assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r"\s*# v\d+(\.\d+)*", comment), f"{action}: no `# vX.Y.Z` comment"


def test_no_input_is_spliced_into_a_shell_line_and_the_upload_always_runs():
    for step in _action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"step {step.get('name')}: pass values through env, not the script"
    upload = next(s for s in _action()["runs"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and upload["with"]["path"] == "${{ inputs.results-dir }}"


@pytest.mark.parametrize("workflow", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_every_workflow_is_valid_and_needs_no_secret(workflow):
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(workflow)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "secrets." not in workflow.read_text(encoding="utf-8")


def test_the_self_test_workflow_is_valid_needs_no_secret_and_uses_this_action():
    workflow = WORKFLOWS / "self-test.yml"
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(workflow)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    text = workflow.read_text(encoding="utf-8")
    assert "secrets." not in text and re.search(r"^\s*uses: \./$", text, re.M)
