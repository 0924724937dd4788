"""The harness's shape: protocols known only in their packages, no import circles, folders a person can scan.

A protocol is one package under `deltacheck/protocols/`; the rest of the harness asks the registry
and never names a protocol, so adding one (Gemini, Bedrock) touches that package and nothing else.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deltacheck.protocols import PACKAGES, REGISTRY

PACKAGE = Path(__file__).resolve().parent.parent / "harness" / "deltacheck"
PROTOCOL_NAMES = re.compile("|".join(re.escape(name) for name in (*REGISTRY, *PACKAGES)))
MOST_MODULES_PER_FOLDER = 15


def _harness_files(suffixes: tuple[str, ...] = (".py",)) -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*") if path.suffix in suffixes and "__pycache__" not in path.parts)


def _outside_protocols() -> list[Path]:
    return [path for path in _harness_files((".py", ".tmpl")) if path.relative_to(PACKAGE).parts[0] != "protocols"]


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("path", _outside_protocols(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_module_outside_the_protocol_packages_names_a_protocol(path):
    named = sorted(set(PROTOCOL_NAMES.findall(path.read_text(encoding="utf-8"))))
    assert not named, f"{path.relative_to(PACKAGE)} names {', '.join(named)}: ask deltacheck.protocols instead"


def test_the_check_for_protocol_names_finds_one(tmp_path):
    name = next(iter(REGISTRY))
    assert PROTOCOL_NAMES.findall(f'DEFAULT = "{name}"\n') == [name]


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The deltacheck modules a module imports anywhere in its body (at the top or inside a function)."""
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
    return found - {_module_name(path)}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


def test_no_two_harness_modules_import_each_other_even_through_others():
    files = _harness_files()
    modules = {_module_name(path) for path in files}
    graph = {_module_name(path): _imports(path, modules) for path in files}
    assert _circles(graph) == []


def test_the_circle_check_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_harness_folder_holds_more_than_fifteen_modules():
    crowded = {}
    for folder in [PACKAGE, *(path for path in PACKAGE.rglob("*") if path.is_dir() and path.name != "__pycache__")]:
        count = len(list(folder.glob("*.py")))
        if count > MOST_MODULES_PER_FOLDER:
            crowded[str(folder.relative_to(PACKAGE.parent))] = count
    assert crowded == {}


def test_every_registered_protocol_is_one_package_with_a_reference_assembler():
    for name, protocol in REGISTRY.items():
        folder = PACKAGE / "protocols" / protocol.package.rpartition(".")[2]
        assert (folder / "__init__.py").is_file() and (folder / "reference.py").is_file(), name
        assembler = protocol.assembler()
        assert callable(assembler.feed) and callable(assembler.finish), name


CHECKOUT = PACKAGE.parent.parent
UNRESOLVED_DELTACHECK = re.compile(r'^(\S+): error: Cannot find implementation or library stub for module named "(deltacheck[\w.]*)"',
                                   re.MULTILINE)


def test_a_type_checker_resolves_every_deltacheck_import_of_the_checkout_without_an_install(tmp_path):
    # An editor on a fresh clone sees the sources only: mypy without site-packages (where an install of
    # deltacheck would be) must still find every `deltacheck.*` module the harness, adapters, tests and
    # benchmarks import. Third-party modules it cannot find there are not this test's business.
    checked = subprocess.run([sys.executable, "-m", "mypy", "--no-site-packages", "--follow-imports=silent",
                              "--cache-dir", str(tmp_path), "--config-file", "pyproject.toml",
                              "harness/deltacheck", "adapters", "tests", "bench"],
                             cwd=CHECKOUT, capture_output=True, text=True, timeout=600)
    assert "error: " in checked.stdout, checked.stdout + checked.stderr  # it ran, and met the missing third parties
    assert UNRESOLVED_DELTACHECK.findall(checked.stdout) == []
