"""The project's own pytest setup.

The conformance tests come from deltacheck's pytest plugin, the same one a user's repository gets
through the `pytest11` entry point (`pip install -e .`, which `make test` runs, registers it here
too). pyproject.toml's [tool.pytest.ini_options] points it at the reference adapter, with the
observed-result snapshots in tests/observed/<adapter>/:

    pytest                                                   self-tests + conformance of the reference
    pytest --deltacheck-adapter NAME                         conformance of NAME, with its snapshots
    pytest --deltacheck-adapter all                          every bundled adapter
    pytest --deltacheck-protocol P --deltacheck-fixture ID   narrow the conformance tests
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("deltacheck"):
        raise pytest.UsageError("deltacheck's pytest plugin is not registered: install the project (`make test` "
                                "runs `pip install -e '.[test]'` into .venv) and run its pytest")
