"""Build configuration that pyproject.toml cannot express: the folder-to-package mapping and the data.

The repository keeps its layout (`harness/`, `adapters/`, `corpus/`); the distribution installs one
package, `deltacheck`: `harness/` is the source root that holds it (`harness/deltacheck/`), `adapters/`
becomes `deltacheck.adapters`, and the corpus, CONTRACT.md and docs/PROTOCOL.md are copied under `deltacheck/data/`, so nothing
with a generic name lands in site-packages and an installed deltacheck needs no checkout.
"""

from pathlib import Path
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
FOLDERS = {"deltacheck": "harness/deltacheck", "deltacheck.adapters": "adapters"}
# Copied as they are (source, destination in the package): data, documents, the Node, JVM and Go drivers
# and the bundled gateways (folders of files, not Python packages; they are installed or built where they run).
DATA = [("corpus", "data/corpus"), ("CONTRACT.md", "data/CONTRACT.md"), ("docs/PROTOCOL.md", "data/PROTOCOL.md"),
        ("adapters/node", "adapters/node"), ("adapters/jvm", "adapters/jvm"), ("adapters/go", "adapters/go"),
        ("adapters/gateways", "adapters/gateways")]
SKIPPED = shutil.ignore_patterns("node_modules", "target", "__pycache__", "*.pyc")


def packages() -> list[str]:
    """Every folder with an __init__.py under the mapped folders, as a dotted name."""
    names = []
    for package, folder in FOLDERS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            relative = init.parent.relative_to(ROOT / folder).parts
            names.append(".".join((package, *relative)))
    return sorted(set(names))


class BuildWithData(build_py):
    """build_py, then the copied data (corpus and documents under deltacheck/data/, the Node drivers)."""

    def run(self) -> None:
        package = Path(self.build_lib) / "deltacheck"
        # A build folder left by an earlier build keeps modules since moved or deleted: start empty.
        shutil.rmtree(package, ignore_errors=True)
        super().run()
        for source, destination in DATA:
            target = package / destination
            if (ROOT / source).is_dir():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(ROOT / source, target, ignore=SKIPPED)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ROOT / source, target)


setup(
    packages=packages(),
    package_dir=FOLDERS,
    package_data={
        "deltacheck": ["py.typed", "driver/schemas/*.json", "driver/schemas/protocol/*.json", "judge/schemas/*.json",
                       "site/schemas/*.json", "site/assets/*", "history/schemas/*.json",
                       "contributing/repro/*.tmpl"],
        "deltacheck.adapters": ["*/manifest.json", "*/requirements*.txt", "*/upstream.json"],
    },
    include_package_data=False,  # MANIFEST.in feeds the sdist only; the wheel gets exactly what is listed here
    cmdclass={"build_py": BuildWithData},
)
