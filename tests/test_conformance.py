"""The conformance tests themselves come from the pytest plugin (deltacheck.pytest_plugin.conformance);
this module checks what the plugin cannot see: snapshots left behind by fixtures that are gone."""

from __future__ import annotations

import re
from pathlib import Path

from deltacheck.corpus.loader import load_corpus

OBSERVED_DIR = Path(__file__).resolve().parent / "observed"


def test_no_snapshot_outlives_its_fixture():
    """A snapshot whose fixture is gone (or whose adapter was renamed) is stale: delete it."""
    ids = {f.id for f in load_corpus(check_reference=False).fixtures}
    stale = []
    for path in sorted(OBSERVED_DIR.glob("*/*.json")):
        match = re.search(r"\[(.+)-(DC-[0-9A-Z]{4})\]\.json$", path.name)
        if match is None or match.group(1) != path.parent.name or match.group(2) not in ids:
            stale.append(str(path.relative_to(OBSERVED_DIR)))
    assert stale == []
