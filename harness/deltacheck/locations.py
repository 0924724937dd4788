"""Where deltacheck finds its data and puts its output, in a checkout and when installed.

In a checkout the package `deltacheck` is the folder `harness/deltacheck/`, and the corpus,
CONTRACT.md and the adapters sit beside it. An installed wheel carries the same files as package
data under `deltacheck/data/` and `deltacheck/adapters/`. Output never goes into the package: it goes
to the checkout when the command runs inside one, to the current directory otherwise. Environments
built for bundled adapters go to `.venvs/` in a checkout, to a user cache directory otherwise.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT_CANDIDATE = PACKAGE_DIR.parent.parent

# The checkout this package is running from, if any (an editable install, or the repository on sys.path).
CHECKOUT: Path | None = (
    _CHECKOUT_CANDIDATE
    if PACKAGE_DIR.parent.name == "harness"
    and (_CHECKOUT_CANDIDATE / "pyproject.toml").is_file()
    and (_CHECKOUT_CANDIDATE / "corpus" / "VERSION").is_file()
    else None
)

DATA_DIR = CHECKOUT if CHECKOUT is not None else PACKAGE_DIR / "data"

# Where this copy of deltacheck lies; recorded tracebacks name files under it.
_INSTALL_ROOT = str(CHECKOUT or PACKAGE_DIR.parent)


def portable(text: str) -> str:
    """`text` with this copy's root written `<repo>`: a results file, and the cut a long traceback
    gets, must not depend on where the checkout or the wheel was put."""
    return text.replace(_INSTALL_ROOT, "<repo>")


BUNDLED_CORPUS = DATA_DIR / "corpus"
CONTRACT_PATH = DATA_DIR / "CONTRACT.md"
ADAPTERS_DIR = CHECKOUT / "adapters" if CHECKOUT is not None else PACKAGE_DIR / "adapters"


def output_root() -> Path:
    """The checkout when the current directory is inside it, else the current directory."""
    cwd = Path.cwd().resolve()
    if CHECKOUT is not None and (cwd == CHECKOUT or CHECKOUT in cwd.parents):
        return CHECKOUT
    return cwd


def file_stem(name: str) -> str:
    """An adapter's or a route's name as a file name in results/: its own letters, never a path
    (an adapter named `../../x` writes results/_.._x.jsonl, not a file two folders up)."""
    return re.sub(r"[^A-Za-z0-9._+@-]", "_", name).lstrip(".") or "_"


def default_results_dir() -> Path:
    return output_root() / "results"


def default_report() -> Path:
    return output_root() / "REPORT.md"


def envs_dir() -> Path:
    """Where bundled adapters' environments are built: DELTACHECK_ENVS_DIR, `.venvs/` of a checkout, a user cache."""
    if os.environ.get("DELTACHECK_ENVS_DIR"):
        return Path(os.environ["DELTACHECK_ENVS_DIR"])
    if CHECKOUT is not None:
        return CHECKOUT / ".venvs"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "deltacheck" / "envs"
