"""Start the generic driver inside an adapter's own environment, where deltacheck is not installed.

    python -P .../deltacheck/driver/boot.py PACKAGE_DIR ADAPTERS_DIR package.module:AdapterClass

It registers PACKAGE_DIR as the package `deltacheck` and ADAPTERS_DIR as `deltacheck.adapters`, so
the adapter imports the same modules under the same names as in the harness, without putting the
harness's own environment, or a folder with generic names, on the adapter's sys.path. Then it runs
`deltacheck.driver.python`. Standard library only; `-P` keeps this file's folder off sys.path.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path


def register_package(name: str, directory: Path) -> None:
    init = directory / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(directory)])
        assert spec is not None and spec.loader is not None  # a .py file gets a spec with a source loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    else:  # an adapters folder without __init__.py still holds importable subpackages
        module = types.ModuleType(name)
        module.__path__ = [str(directory)]
        sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -P boot.py PACKAGE_DIR ADAPTERS_DIR package.module:AdapterClass", file=sys.stderr)
        return 2
    package_dir, adapters_dir, entry = Path(argv[0]), Path(argv[1]), argv[2]
    register_package("deltacheck", package_dir)
    register_package("deltacheck.adapters", adapters_dir)
    return importlib.import_module("deltacheck.driver.python").main([entry])


if __name__ == "__main__":
    status = main(sys.argv[1:])
    driver = sys.modules.get("deltacheck.driver.python")
    sys.exit(status) if driver is None else driver.end_process(status)
