"""Every deltacheck command CONTRIBUTING.md shows runs, in order, as written (against a copy of the corpus)."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

from click.testing import CliRunner

from deltacheck.adapter import registered_adapters
from deltacheck.cli import main
from deltacheck.corpus.loader import DEFAULT_CORPUS, load_corpus
from deltacheck.driver.external import ExternalAdapter
from deltacheck.protocols import render_stream

CHECKOUT = Path(__file__).resolve().parent.parent
GUIDE = (CHECKOUT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def _block_commands() -> list[list[str]]:
    shell = "\n".join(re.findall(r"```sh\n(.*?)```", GUIDE, re.S)).replace("\\\n", " ")
    return [shlex.split(line, comments=True)[1:] for line in shell.splitlines() if line.startswith("deltacheck ")]


def _needs_an_unbuilt_environment(args: list[str]) -> bool:
    """Running a bundled adapter whose environment is not built would build it: that is `make report`'s job."""
    if "--adapter" not in args or "--repro" in args:
        return False
    factory = registered_adapters().get(args[args.index("--adapter") + 1])
    return isinstance(factory, ExternalAdapter) and factory.env_state() != "ready"


def test_every_command_in_the_contributing_guide_runs_as_documented(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus"
    shutil.copytree(DEFAULT_CORPUS, corpus)
    sample = load_corpus(check_reference=False).by_id()["DC-G3Y1"]
    (tmp_path / "capture.sse").write_bytes(render_stream(sample.protocol, sample.chunks))  # what `curl -N` saved
    monkeypatch.chdir(tmp_path)
    commands = _block_commands()
    assert {args[0] for args in commands} >= {"lint", "explain", "import", "new", "run", "check-driver"}
    drafted = False
    for args in commands:
        args = [arg.replace("python -m", f"{sys.executable} -m") for arg in args]
        help_text = CliRunner().invoke(main, [args[0], "--help"]).output
        for option in (a for a in args if a.startswith("--")):
            assert option in help_text, f"CONTRIBUTING.md shows `deltacheck {args[0]} {option}`; --help does not list it"
        if _needs_an_unbuilt_environment(args):
            continue
        if "--corpus" in help_text:
            args += ["--corpus", str(corpus)]
        result = CliRunner().invoke(main, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        assert "Traceback" not in result.output or "--adapter" in args, args
        drafted |= args[0] in ("import", "new")
        if args[0] == "lint" and drafted:  # the guide says: lint refuses a draft until it is reviewed
            assert result.exit_code == 1 and "/unreviewed: not reviewed" in result.output, result.output
        else:
            assert result.exit_code == 0, (args, result.output)
    assert drafted


def test_every_inline_deltacheck_command_in_the_guide_exists():
    inline = set(re.findall(r"`deltacheck ([a-z-]+)", GUIDE))
    assert inline >= {"import", "new-id", "lint"}
    for command in inline:
        assert CliRunner().invoke(main, [command, "--help"]).exit_code == 0, command
