"""A maintainer's own adapter, named MODULE:CLASS or FILE.py:CLASS, and expectations files: what works,
and one clear usage error (exit 2, no traceback) for everything a user can get wrong."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from deltacheck.adapter import get_adapter_factory
from deltacheck.cli import main
from deltacheck.errors import BadAdapterSpec
from deltacheck.judge.expectations import Expectation, ExpectationsError, classify, load_expectations

GOOD = '''
from deltacheck import Adapter
from deltacheck.reference import assemble

class Mine(Adapter):
    name = "{name}"
    library = "mine"
    version = "1"
    protocols = frozenset({{"openai-chat"}})
    capabilities = frozenset({{"finish_reason", "usage", "error", "refusal", "multiple_choices"}})
    code_path = "the reference, as a user's own class"

    def assemble(self, request):
        return assemble(request.protocol, request.chunks).result

class NotAnAdapter:
    pass
'''


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    (tmp_path / "mine_a.py").write_text(GOOD.format(name="mine-a"))
    (tmp_path / "mine_b.py").write_text(GOOD.format(name="mine-b"))
    (tmp_path / "broken.py").write_text("import no_such_dependency\n")
    (tmp_path / "mine_c").write_text(GOOD.format(name="mine-c"))  # a file Python does not import as a module
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_module_class_spec_and_a_file_spec_give_the_users_adapter(user_dir):
    assert get_adapter_factory("mine_a:Mine").name == "mine-a"
    assert get_adapter_factory(f"{user_dir / 'mine_b.py'}:Mine").name == "mine-b"


@pytest.mark.parametrize("spec, message", [
    ("no_such_module:Mine", "cannot import no_such_module: ModuleNotFoundError"),
    ("broken:Mine", "cannot import broken: ModuleNotFoundError: No module named 'no_such_dependency'"),
    ("mine_a:Missing", "mine_a has no attribute 'Missing'"),
    ("mine_a:NotAnAdapter", "NotAnAdapter is not a subclass of deltacheck.Adapter"),
    ("missing_file.py:Mine", "no such file missing_file.py"),
    ("./mine_c:Mine", "cannot import mine_c: not a Python file"),
    ("mine_a:", "expected MODULE:CLASS or path/to/file.py:CLASS"),
])
def test_a_bad_spec_is_one_usage_error_naming_it(user_dir, spec, message):
    with pytest.raises(BadAdapterSpec) as raised:
        get_adapter_factory(spec)
    assert message in str(raised.value) and spec in str(raised.value)
    outcome = CliRunner().invoke(main, ["run", "--adapter", spec, "--fixture", "DC-8499"])
    assert outcome.exit_code == 2 and message in outcome.output and "Traceback" not in outcome.output


def _run(*args: str):
    return CliRunner().invoke(main, ["run", "--adapter", "mine_a:Mine", "--protocol", "openai-chat",
                                     "--results", "out.jsonl", *args])


def test_expectations_written_then_met_then_broken(user_dir):
    assert _run("--expectations", "expected.toml", "--update-expectations").exit_code == 0
    assert _run("--expectations", "expected.toml").exit_code == 0
    text = (user_dir / "expected.toml").read_text()
    passing = next(line.split(" = ")[0] for line in text.splitlines() if line.endswith('= "pass"'))
    (user_dir / "expected.toml").write_text(text.replace(f'{passing} = "pass"', f'{passing} = "fail"'))
    outcome = _run("--expectations", "expected.toml")
    assert outcome.exit_code == 1 and f"unexpected pass: {passing} expected fail, got pass" in outcome.output
    # a new fixture is listed apart and does not fail the run
    (user_dir / "expected.toml").write_text(text.replace(f'{passing} = "pass"\n', ""))
    outcome = _run("--expectations", "expected.toml")
    assert outcome.exit_code == 0 and f"new: {passing}@" in outcome.output


def test_updating_keeps_the_reason_and_bug_of_entries_that_still_fail(user_dir):
    (user_dir / "e.toml").write_text('[verdicts]\nDC-8499 = { verdict = "fail", reason = "gap", bug = "https://x/1" }\n')
    from deltacheck.corpus.loader import load_corpus
    from deltacheck.judge.expectations import write_expectations

    corpus = load_corpus(check_reference=False)
    known = {f.id for f in corpus.fixtures}
    previous = load_expectations(user_dir / "e.toml", known)
    write_expectations(user_dir / "e.toml", "a", "1.0.0", {"DC-8499": "error"}, previous)
    assert load_expectations(user_dir / "e.toml", known).entries["DC-8499"] == Expectation("error", "gap", "https://x/1")
    write_expectations(user_dir / "e.toml", "a", "1.0.0", {"DC-8499": "pass"}, previous)
    assert load_expectations(user_dir / "e.toml", known).entries["DC-8499"] == Expectation("pass")


@pytest.mark.parametrize("content, message", [
    (None, "no such expectations file"),
    ("[verdicts\n", "not valid TOML"),
    ('[verdicts]\nDC-ZZZZ = "pass"\n', "verdicts.DC-ZZZZ: no fixture DC-ZZZZ in the corpus"),
    ('[verdicts]\nDC-8499 = "flaky"\n', "verdicts.DC-8499: verdict 'flaky' is not one of"),
    ('[verdicts]\nDC-8499 = { verdict = "fail", why = "x" }\n', "verdicts.DC-8499: unknown key 'why'"),
    ('adapter = 3\n', "adapter: expected a string"),
    ('colour = "red"\n', "unknown key 'colour'"),
])
def test_a_bad_expectations_file_is_one_usage_error_naming_file_and_entry(user_dir, content, message):
    if content is not None:
        (user_dir / "bad.toml").write_text(content)
    outcome = _run("--expectations", "bad.toml")
    assert outcome.exit_code == 2, outcome.output
    assert "bad.toml" in outcome.output and message in outcome.output and "Traceback" not in outcome.output


def test_a_retired_fixture_id_is_named_as_retired(tmp_path):
    (tmp_path / "e.toml").write_text('[verdicts]\nDC-OLD1 = "pass"\n')
    with pytest.raises(ExpectationsError, match="DC-OLD1 is retired"):
        load_expectations(tmp_path / "e.toml", {"DC-8499"}, {"DC-OLD1"})


def test_expectations_of_another_adapter_are_refused(user_dir):
    (user_dir / "other.toml").write_text('adapter = "someone-else"\n[verdicts]\n')
    outcome = _run("--expectations", "other.toml")
    assert outcome.exit_code == 2 and "expectations of adapter 'someone-else', not of 'mine-a'" in outcome.output


@pytest.mark.parametrize("expected, observed, kind", [
    ("pass", "pass", None), ("fail", "fail", None), ("pass", "fail", "regression"),
    ("fail", "pass", "unexpected pass"), ("fail", "error", "changed"), ("n/a", "n/a", None),
])
def test_how_a_verdict_differs_from_its_expectation(expected, observed, kind):
    assert classify(Expectation(expected), observed) == kind


def test_the_pytest_plugin_adds_nothing_to_a_run_that_names_no_adapter(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert True\n")
    outcome = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                             cwd=tmp_path, capture_output=True, text=True)
    assert outcome.returncode == 0 and "1 passed" in outcome.stdout and "deltacheck::" not in outcome.stdout
