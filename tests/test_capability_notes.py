"""Every bundled adapter says, for each capability it leaves out, why (and only for those); a protocol's
reasons exist once, in its package, and the harness fills them into every description.

Python manifest adapters import their library at module level, which only works inside their own
environment (and takes seconds), so their class data is read from the source: the `protocols`,
`capabilities` and `capability_notes` assignments are evaluated with the module's simple constants
in scope. Node drivers are asked for their hello.
"""

from __future__ import annotations

import ast
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from deltacheck.adapter import CAPABILITIES, load_adapter_spec, registered_adapters
from deltacheck.driver.external import ExternalAdapter
from deltacheck.driver.manifests import ADAPTERS_DIR
from deltacheck.driver.python import implementation
from deltacheck.driver.subprocess_adapter import Hello, SubprocessAdapter
from deltacheck.protocols import all_protocols, protocol
from deltacheck.protocols.capability_notes import with_protocol_reasons


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
    scope: dict[str, Any] = {"frozenset": frozenset}
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
        notes = with_protocol_reasons(data["protocols"], data["capabilities"], data.get("capability_notes", {}))
        _check(factory.name, data["capabilities"], notes)


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


# -- a protocol's reasons exist once, and every description gets them --------------------------------

CHAT, RESPONSES, ANTHROPIC = (protocol(name) for name in ("openai-chat", "openai-responses", "anthropic-messages"))


def test_the_protocols_reasons_fill_in_what_the_library_leaves_out_and_does_not_explain():
    capabilities = set(CAPABILITIES) - {"item_id", "finish_detail", "events"}
    notes = with_protocol_reasons([CHAT.name], capabilities, {"events": "the library's own", "finish_detail": "its own too"})
    assert notes == {"events": "the library's own", "finish_detail": "its own too", "item_id": CHAT.capability_notes["item_id"]}
    assert list(notes) == sorted(notes)  # as results headers have always written them


def test_an_implementation_of_several_protocols_gets_a_reason_only_where_each_of_them_gives_one():
    lacking = {"item_id", "custom_tools", "server_tools"}
    notes = with_protocol_reasons([ANTHROPIC.name, CHAT.name], set(CAPABILITIES) - lacking, {})
    # Neither protocol has item ids or custom tools; Anthropic has server tools, so that one is the library's to explain.
    assert notes == {"custom_tools": f"{CHAT.capability_notes['custom_tools']}; {ANTHROPIC.capability_notes['custom_tools']}",
                     "item_id": f"{CHAT.capability_notes['item_id']}; {ANTHROPIC.capability_notes['item_id']}"}
    assert with_protocol_reasons([CHAT.name, RESPONSES.name], set(CAPABILITIES) - {"item_id"}, {}) == {}


ADAPTER = '''
from deltacheck import Adapter


class LacksItemIds(Adapter):
    name = "capability-notes-lacks-item-ids"
    library = "lib"
    version = "1"
    protocols = frozenset({{"openai-chat"}})
    capabilities = frozenset({capabilities!r})
    code_path = "none: only described"
    capability_notes = {{"events": "lib emits no events"}}
'''


def test_an_adapter_and_a_driver_declare_their_own_reasons_and_the_harness_adds_the_protocols(tmp_path):
    capabilities = sorted(set(CAPABILITIES) - {"item_id", "events"})
    (tmp_path / "lib_adapter.py").write_text(ADAPTER.format(capabilities=capabilities))
    spec = f"{tmp_path / 'lib_adapter.py'}:LacksItemIds"
    adapter_class = load_adapter_spec(spec)
    expected = {"events": "lib emits no events", "item_id": CHAT.capability_notes["item_id"]}
    assert adapter_class.describe()["capability_notes"] == expected
    assert implementation(adapter_class)["capability_notes"] == {"events": "lib emits no events"}  # what the driver sends
    with SubprocessAdapter([sys.executable, "-m", "deltacheck.driver", spec], startup_timeout=20) as driver:
        assert driver.describe() == {**adapter_class.describe(), "language": "python"}


def _driver_sources() -> list[Path]:
    """Every adapter's and driver's own source file (not the packages a driver installs)."""
    found = []
    for folder, dirs, files in os.walk(ADAPTERS_DIR):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "target", "__pycache__")]
        found += [Path(folder) / name for name in files if name.endswith((".py", ".mjs", ".java", ".kt", ".go"))]
    return found


def test_no_adapter_or_driver_repeats_a_protocols_reason():
    reasons = {why for p in all_protocols() for why in p.capability_notes.values()}
    sources = _driver_sources()
    assert {path.suffix for path in sources} == {".py", ".mjs", ".java", ".kt", ".go"}
    repeated = {str(path.relative_to(ADAPTERS_DIR)): sorted(why for why in reasons if why in path.read_text(encoding="utf-8"))
                for path in sources}
    assert {path: found for path, found in repeated.items() if found} == {}
