"""pytest options and the conformance parametrisation: adapters x fixtures from the corpus.

    pytest                              self-tests + conformance of the reference adapter
    pytest --adapter NAME               conformance of NAME (snapshots under tests/__snapshots__/…/NAME/)
    pytest --protocol P --fixture ID    narrow the conformance tests
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.corpus import DEFAULT_CORPUS, load_corpus


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("deltacheck")
    group.addoption("--adapter", action="append", default=[], metavar="NAME",
                    help="adapter whose conformance to test (repeatable; `all` for every bundled one; default: reference)")
    group.addoption("--protocol", action="append", default=[], metavar="P", help="only fixtures of this protocol")
    group.addoption("--fixture", action="append", default=[], metavar="ID", help="only this fixture id (repeatable)")
    group.addoption("--corpus", default=str(DEFAULT_CORPUS), metavar="DIR", help="corpus directory")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance(adapter): one fixture run through one adapter")


def _speaks(adapter_name: str, protocol: str) -> bool:
    from harness.adapter import registered_adapters

    factory = registered_adapters().get(adapter_name)
    protocols = getattr(factory, "protocols", None)
    return protocols is None or protocol in protocols


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    options = metafunc.config.option
    corpus = load_corpus(Path(options.corpus))
    fixtures = corpus.select(options.protocol, options.fixture)
    adapters = options.adapter or ["reference"]
    if adapters == ["all"]:
        from harness.adapter import registered_adapters
        adapters = [name for name in registered_adapters() if not name.startswith("miniature-")]
    params = [pytest.param((name, fixture), id=f"{name}-{fixture.id}") for name in adapters for fixture in fixtures
              if _speaks(name, fixture.protocol)]
    broken: dict[str, list] = {}  # one failing test per broken file, naming all its problems
    for problem in corpus.problems:
        broken.setdefault(problem.path, []).append(problem)
    params += [pytest.param((name, problems), id=f"{name}-BUG-{Path(path).stem}")
               for name in adapters for path, problems in broken.items()]
    metafunc.parametrize("conformance_case", params)
