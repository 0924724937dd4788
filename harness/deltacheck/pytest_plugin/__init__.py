"""The deltacheck pytest plugin (entry point `pytest11`): one test per fixture, for any adapter.

    pytest --deltacheck-adapter mypkg.module:MyAdapter          # or path/to/file.py:MyAdapter, or a bundled name
    pytest --deltacheck-adapter-cmd "node my-driver.mjs"        # any program speaking docs/PROTOCOL.md
    pytest ... --deltacheck-protocol PROTOCOL --deltacheck-fixture DC-8499 --deltacheck-corpus DIR
    pytest ... --deltacheck-expectations expectations.toml      # expected failures are xfail (strict)
    pytest ... --deltacheck-snapshots tests/observed            # opt-in syrupy snapshots, DIR/<adapter>/

The adapter and the expectations can also be set in pytest.ini / pyproject.toml (`deltacheck_adapter`,
`deltacheck_adapter_cmd`, `deltacheck_expectations`, `deltacheck_snapshots`). A run that sets no
adapter is not touched: the plugin then adds no test and imports nothing heavy.

An adapter whose `assemble` is `async def` runs on pytest-asyncio's event loop (the one the user's
async fixtures get by default, `asyncio_default_fixture_loop_scope`), so it can use clients, queues
and sessions those fixtures made for that loop; without pytest-asyncio installed it gets a fresh
loop per fixture (`asyncio.run`), as `deltacheck run` gives it.
"""

from __future__ import annotations

import importlib.util
import inspect
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ACTIVE = pytest.StashKey["Session"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("deltacheck", "deltacheck conformance (one test per corpus fixture)")
    group.addoption(
        "--deltacheck-adapter",
        action="append",
        default=[],
        metavar="SPEC",
        help="adapter to test: MODULE:CLASS, path/to/file.py:CLASS, a bundled name, or `all` (repeatable)",
    )
    group.addoption("--deltacheck-adapter-cmd", metavar="COMMAND", help="a driver command speaking docs/PROTOCOL.md")
    group.addoption(
        "--deltacheck-protocol", action="append", default=[], metavar="P", help="only fixtures of this protocol"
    )
    group.addoption(
        "--deltacheck-fixture", action="append", default=[], metavar="ID", help="only this fixture id (repeatable)"
    )
    group.addoption("--deltacheck-corpus", metavar="DIR", help="corpus directory (default: the bundled corpus)")
    group.addoption(
        "--deltacheck-expectations",
        metavar="FILE",
        help="expected verdicts (TOML); an expected failure is xfail, an unexpected pass fails",
    )
    group.addoption(
        "--deltacheck-snapshots",
        metavar="DIR",
        help="also compare each observed result with a syrupy snapshot in DIR/<adapter>/",
    )
    group.addoption("--deltacheck-timeout", type=float, default=None, metavar="SECONDS", help="seconds per fixture")
    parser.addini("deltacheck_adapter", "adapters to test (as --deltacheck-adapter), one per line", type="linelist")
    parser.addini("deltacheck_adapter_cmd", "a driver command to test (as --deltacheck-adapter-cmd)")
    parser.addini("deltacheck_expectations", "expected verdicts file (as --deltacheck-expectations)")
    parser.addini("deltacheck_snapshots", "snapshot folder (as --deltacheck-snapshots)")


@dataclass
class Session:
    """What one pytest run tests: the corpus, the selected fixtures, the adapters and what they are expected to get."""

    corpus: Any
    fixtures: list
    adapters: list  # (test id prefix, factory-or-running adapter, protocols or None)
    expectations: Any = None
    snapshots: Path | None = None
    timeout: float = 10.0
    records: dict = field(default_factory=dict)
    instances: dict = field(default_factory=dict)
    started: list = field(default_factory=list)

    def record(self, adapter_index: int, fixture):
        """Both tests judge the same run: an implementation is asked once per fixture."""
        from deltacheck.running.runner import run_fixtures

        key = (adapter_index, fixture.id)
        if key not in self.records:
            (self.records[key],) = run_fixtures(self.adapter(adapter_index), self.corpus, [fixture], self.timeout)
        return self.records[key]

    async def record_async(self, adapter_index: int, fixture):
        """`record` for an async adapter: its coroutine runs on the event loop pytest-asyncio runs this on."""
        from deltacheck.running.runner import run_fixture_async

        key = (adapter_index, fixture.id)
        if key not in self.records:
            self.records[key] = await run_fixture_async(self.adapter(adapter_index), self.corpus, fixture, self.timeout)
        return self.records[key]

    def runs_async(self, adapter_index: int) -> bool:
        """An in-process adapter whose `assemble` is a coroutine function, when pytest-asyncio is there to run it."""
        return (
            inspect.iscoroutinefunction(getattr(self.adapter(adapter_index), "assemble", None))
            and _has_pytest_asyncio()
        )

    def adapter(self, index: int):
        """The running adapter: a driver given by command is already started; others start on first use."""
        from deltacheck.driver.subprocess_adapter import SubprocessAdapter

        if index not in self.instances:
            factory = self.adapters[index][1]
            self.instances[index] = factory if isinstance(factory, SubprocessAdapter) else factory()
        return self.instances[index]


def _has_pytest_asyncio() -> bool:
    return importlib.util.find_spec("pytest_asyncio") is not None


def _option(config: pytest.Config, name: str):
    value = config.getoption(f"--deltacheck-{name.replace('_', '-')}")
    if value in (None, []):
        value = config.getini(f"deltacheck_{name}") or None
    return value


def pytest_configure(config: pytest.Config) -> None:
    adapters = list(_option(config, "adapter") or [])
    command = _option(config, "adapter_cmd")
    if not adapters and not command:
        return
    config.addinivalue_line("markers", "deltacheck: a corpus fixture run through an adapter by the deltacheck plugin")
    config.stash[ACTIVE] = _build_session(config, adapters, command)


def _build_session(config: pytest.Config, specs: list[str], command: str | None) -> Session:
    """Resolve everything a user can get wrong now, as one usage error each, before any test runs."""
    from deltacheck.adapter import get_adapter_factory, registered_adapters
    from deltacheck.corpus.loader import DEFAULT_CORPUS, layout_problem, load_corpus
    from deltacheck.errors import BadAdapterSpec, DriverFailed, UnknownAdapter
    from deltacheck.judge.expectations import ExpectationsError, load_expectations
    from deltacheck.protocols import PROTOCOLS
    from deltacheck.running.runner import DEFAULT_TIMEOUT

    corpus_dir = Path(config.getoption("--deltacheck-corpus") or DEFAULT_CORPUS)
    unusable = layout_problem(corpus_dir)
    if unusable is not None:
        raise pytest.UsageError(f"--deltacheck-corpus {corpus_dir}: {unusable}")
    protocols = config.getoption("--deltacheck-protocol")
    for protocol in protocols:
        if protocol not in PROTOCOLS:
            raise pytest.UsageError(f"--deltacheck-protocol {protocol!r}: not one of {', '.join(PROTOCOLS)}")
    corpus = load_corpus(corpus_dir)
    ids = config.getoption("--deltacheck-fixture")
    unknown = corpus.unknown_ids(ids)
    if unknown:
        raise pytest.UsageError(f"--deltacheck-fixture {unknown[0]}: no such fixture in {corpus_dir}")
    fixtures = corpus.select(protocols, ids)
    if ids and not fixtures and not any(p.fixture_id in ids for p in corpus.problems):
        raise pytest.UsageError(f"--deltacheck-fixture {', '.join(ids)}: not of protocol {', '.join(protocols)}")

    if specs == ["all"]:
        specs = [name for name in registered_adapters() if not name.startswith("miniature-")]
    adapters = []
    for spec in specs:
        try:
            factory = get_adapter_factory(spec)
        except (UnknownAdapter, BadAdapterSpec) as exc:
            raise pytest.UsageError(f"--deltacheck-adapter: {exc}") from None
        adapters.append((getattr(factory, "name", spec), factory, getattr(factory, "protocols", None)))
    session = Session(corpus, fixtures, adapters)
    if command:
        from deltacheck.driver.subprocess_adapter import SubprocessAdapter

        words = shlex.split(command)
        if not words:
            raise pytest.UsageError(f"--deltacheck-adapter-cmd {command!r} names no program")
        driver = SubprocessAdapter(words)  # started now: its hello says which protocols to generate tests for
        try:
            driver.start()
        except DriverFailed as exc:
            raise pytest.UsageError(f"--deltacheck-adapter-cmd: {exc}") from None
        session.started.append(driver)
        session.adapters.append((driver.name, driver, frozenset(driver.protocols)))

    session.timeout = config.getoption("--deltacheck-timeout") or DEFAULT_TIMEOUT
    if session.timeout <= 0:
        raise pytest.UsageError("--deltacheck-timeout must be a positive number of seconds")
    expectations = _option(config, "expectations")
    if expectations:
        if len(session.adapters) != 1:
            raise pytest.UsageError("--deltacheck-expectations describes one adapter; name exactly one")
        try:
            session.expectations = load_expectations(
                Path(expectations), {f.id for f in corpus.fixtures}, corpus.retired
            )
        except ExpectationsError as exc:
            raise pytest.UsageError(f"--deltacheck-expectations: {exc}") from None
    snapshots = _option(config, "snapshots")
    if snapshots:
        try:
            import syrupy  # noqa: F401
        except ImportError:
            raise pytest.UsageError("--deltacheck-snapshots needs syrupy (pip install syrupy)") from None
        session.snapshots = Path(config.rootpath, snapshots)
    return session


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(ACTIVE, None)
    if session is not None:
        for adapter in session.started:
            adapter.close()


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselection, so they apply to these tests too
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if ACTIVE not in config.stash:
        return
    module = ConformanceModule.from_parent(
        session, path=Path(__file__).with_name("conformance.py"), nodeid="deltacheck"
    )
    items.extend(session.genitems(module))


class ConformanceModule(pytest.Module):
    """The plugin's own test module, collected under the node id `deltacheck` wherever pytest runs."""

    def _getobj(self):
        import importlib

        return importlib.import_module("deltacheck.pytest_plugin.conformance")

    def collect(self):
        snapshots = self.config.stash[ACTIVE].snapshots is not None
        return [
            item
            for item in super().collect()
            if snapshots or getattr(item, "originalname", item.name) != "test_observed_result_is_unchanged"
        ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "deltacheck_case" not in metafunc.fixturenames or ACTIVE not in metafunc.config.stash:
        return
    session: Session = metafunc.config.stash[ACTIVE]
    params = []
    for index, (name, _, protocols) in enumerate(session.adapters):
        for fixture in session.fixtures:
            if protocols is None or fixture.protocol in protocols:
                params.append(pytest.param((index, fixture), id=f"{name}-{fixture.id}"))
    broken: dict[str, list] = {}  # one failing test per broken fixture file, naming all its problems
    for problem in session.corpus.problems:
        broken.setdefault(problem.path, []).append(problem)
    ids = set(metafunc.config.getoption("--deltacheck-fixture"))
    for index, (name, _, _) in enumerate(session.adapters):
        for path, problems in broken.items():
            if not ids or problems[0].fixture_id in ids:
                params.append(pytest.param((index, problems), id=f"{name}-BUG-{Path(path).stem}"))
    metafunc.parametrize("deltacheck_case", params)


@pytest.fixture
def deltacheck_session(request: pytest.FixtureRequest) -> Session:
    return request.config.stash[ACTIVE]
