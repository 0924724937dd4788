"""Everything that can go wrong in a deltacheck run, in the order it can go wrong.

    load the corpus ........ FixtureProblem   a fixture file is unreadable, breaks the schema, or
                                              fails a lint rule; it names file, fixture id, field
    assemble (reference) ... AssemblyError    a stream the reference cannot assemble; names the
                                              chunk by its 0-based index
    read adapter manifests . ManifestProblem  an `adapters/*/manifest.json` is unreadable or
                                              invalid; it names file and field, the rest load
    find the adapter ....... UnknownAdapter   no adapter is registered under that name
                             BadAdapterSpec   a MODULE:CLASS or FILE.py:CLASS spec that does not
                                              import, or names something that is not an Adapter
    prepare its environment  EnvironmentFailed  creating a venv or running a setup command
                                              failed; it names the command and quotes its output
    start a driver ......... DriverFailed     a subprocess driver died, hung or answered `start`
                                              wrongly before the first fixture; quotes what it said
    run one fixture ........ (no exception)   an implementation that raises, hangs, crashes,
                                              breaks the protocol or returns garbage becomes a
                                              verdict (error, crash, timeout), never an exception
                                              that stops the run
    read results ........... InvalidResults   a results file that is not what `run` writes

Every exception carries the data a maintainer needs and renders a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FixtureProblem:
    """One thing wrong with one fixture file: a lint line, and the reason `run` skips it."""

    path: str
    fixture_id: str | None
    field: str
    message: str
    bug_in_fixture: bool = True
    # How many problems this line stands for: more than 1 for the line that says how many were left out.
    stands_for: int = 1

    def __str__(self) -> str:
        return f"{self.path}: {self.fixture_id or '<no id>'}: {self.field}: {self.message}"


# What one fixture file can put in front of a reader (lint's lines, stderr, a results file's skip message):
# enough to fix the first problems, and a count of the rest, never a line per chunk of a million-chunk file.
MAX_PROBLEMS_PER_FILE = 20
MAX_MESSAGE_CHARS = 500


def capped_problems(problems: list[FixtureProblem]) -> list[FixtureProblem]:
    """The first MAX_PROBLEMS_PER_FILE problems of one file, each message cut to MAX_MESSAGE_CHARS, then one line
    saying how many were left out."""
    kept = [_short(p) for p in problems[:MAX_PROBLEMS_PER_FILE]]
    left_out = len(problems) - len(kept)
    if left_out:
        first = kept[0]
        kept.append(
            FixtureProblem(
                first.path,
                first.fixture_id,
                "/",
                f"and {left_out:,} more problem(s) in this file, not listed (the first {len(kept)} are)",
                stands_for=left_out,
            )
        )
    return kept


def _short(problem: FixtureProblem) -> FixtureProblem:
    if len(problem.message) <= MAX_MESSAGE_CHARS:
        return problem
    message = shortened(problem.message, MAX_MESSAGE_CHARS)
    return FixtureProblem(problem.path, problem.fixture_id, problem.field, message, problem.bug_in_fixture)


# What a Python traceback formatted into a message begins with.
TRACEBACK_MARKER = "Traceback (most recent call last):"


def without_embedded_traceback(text: str) -> str:
    """An implementation's exception message without the traceback it formats into itself (litellm writes
    one into the message of the error it maps an unexpected exception to). The harness records the
    traceback from the exception, apart from the message; the embedded one names this machine's files,
    so a record, or a snapshot of it, would differ from one checkout to the next."""
    marker = text.find("\n" + TRACEBACK_MARKER)
    return text if marker < 0 else text[:marker].rstrip() + " (its traceback is recorded apart)"


def shortened(text: str, limit: int) -> str:
    """`text` up to `limit` characters, then how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters not shown)"


class AssemblyError(Exception):
    """The reference assembler met a stream it will not guess about."""

    def __init__(self, chunk_index: int, message: str) -> None:
        super().__init__(f"chunk {chunk_index}: {message}")
        self.chunk_index = chunk_index
        self.message = message


class UnknownAdapter(LookupError):
    """No adapter is registered under the requested name."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown adapter {name!r}; known adapters: {', '.join(sorted(known)) or 'none'}")
        self.name = name


class BadAdapterSpec(LookupError):
    """A `MODULE:CLASS` or `path/to/file.py:CLASS` adapter spec that does not give an Adapter subclass."""

    def __init__(self, spec: str, reason: str) -> None:
        super().__init__(f"adapter {spec!r}: {reason}")
        self.spec = spec
        self.reason = reason


@dataclass(frozen=True)
class FileProblem:
    """One thing wrong with one data file the harness reads; that entry (or file) is left out, the rest load."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.message}"


class ManifestProblem(FileProblem):
    """One thing wrong with one adapter manifest."""


class EnvironmentFailed(RuntimeError):
    """An adapter's environment could not be created: a venv, a pip install or a setup command failed."""

    def __init__(self, env: str, command: list[str], output: str) -> None:
        super().__init__(f"environment {env!r}: `{' '.join(command)}` failed; its output ends with:\n{output}")
        self.env = env
        self.command = command
        self.output = output


class DriverFailed(RuntimeError):
    """A subprocess driver did not get through the start handshake (or could not be restarted)."""

    def __init__(self, command: list[str], message: str) -> None:
        super().__init__(f"driver `{' '.join(command)}`: {message}")
        self.command = command
        self.message = message


class InvalidResults(ValueError):
    """A results file that `deltacheck report` cannot read."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
