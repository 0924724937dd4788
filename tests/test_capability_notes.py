"""Every bundled adapter says, for each capability it leaves out, why (and only for those).

Python manifest adapters import their library at module level, which only works inside their own
environment (and takes seconds), so their class data is read from the source: the `capabilities`
and `capability_notes` assignments are evaluated with the module's simple constants in scope. Node
drivers are asked for their hello.
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from deltacheck.adapter import CAPABILITIES, protocol_notes, registered_adapters
from deltacheck.driver.external import ExternalAdapter
from deltacheck.driver.manifests import ADAPTERS_DIR
from deltacheck.driver.subprocess_adapter import Hello


def _check(name: str, capabilities: Any, notes: dict[str, str]) -> None:
    lacking = set(CAPABILITIES) - set(capabilities)
    assert set(notes) == lacking, f"{name}: notes for {sorted(notes)}, lacking {sorted(lacking)}"
    for capability, why in notes.items():
        assert isinstance(why, str) and why.strip(), name
        # A note says why the library cannot express the field; "not mapped yet" says it can.
        for excuse in ("not implemented", "not yet mapped"):
            assert excuse not in why.lower(), f"{name}: {capability}: {why}"


def test_in_process_adapters_explain_every_lacking_capability():
    for name, factory in registered_adapters().items():
        # Bundled only: other tests register miniature adapters of their own.
        if not isinstance(factory, ExternalAdapter) and factory.__module__.startswith("deltacheck.adapters."):
            described = factory.describe()
            _check(name, described["capabilities"], described["capability_notes"])


def _class_data(module: str) -> dict[str, dict[str, Any]]:
    """{class name: its capabilities and capability_notes}, evaluated from the adapter's source."""
    path = ADAPTERS_DIR.joinpath(*module.split(".")[2:]).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scope: dict[str, Any] = {"frozenset": frozenset, "protocol_notes": protocol_notes}
    classes: dict[str, dict[str, Any]] = {}

    def assign(statement: ast.stmt, namespace: dict[str, Any]) -> None:
        if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
            try:
                value = eval(compile(ast.Expression(statement.value), str(path), "eval"), {**scope, **namespace})
            except Exception:  # a value built from the library: not class data this test needs
                return
            for target in statement.targets:
                namespace[target.id] = value

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            namespace: dict[str, Any] = {}
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in classes:
                    namespace.update(classes[base.id])
            for statement in node.body:
                assign(statement, namespace)
            classes[node.name] = namespace
        else:
            assign(node, scope)
    return classes


def test_python_manifest_adapters_explain_every_lacking_capability():
    external = [f for f in registered_adapters().values()
                if isinstance(f, ExternalAdapter) and f.manifest.language == "python"]
    assert external
    for factory in external:
        module, _, class_name = factory.manifest.entry.partition(":")
        data = _class_data(module)[class_name]
        _check(factory.name, data["capabilities"], data.get("capability_notes", {}))


def test_node_manifest_adapters_explain_every_lacking_capability():
    ready = [f for f in registered_adapters().values()
             if isinstance(f, ExternalAdapter) and f.manifest.language != "python" and f.env_state() == "ready"]
    if not ready:
        pytest.skip("no Node driver environment is built (`deltacheck envs`)")
    with ThreadPoolExecutor(max_workers=len(ready)) as pool:  # each probe mostly waits for its own process
        hellos = list(pool.map(ExternalAdapter.probe, ready))
    for factory, hello in zip(ready, hellos):
        assert isinstance(hello, Hello), factory.name
        _check(factory.name, hello.capabilities, dict(hello.capability_notes))
