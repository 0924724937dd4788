"""The syrupy extension for observed results: one JSON file per adapter x fixture.

Files live in `tests/observed/<adapter>/<test name>.json`: one folder per adapter, outside the
`__snapshots__` tree that syrupy sweeps for unknown files, so running one adapter never reports
another adapter's snapshots as unused. A pinned-library upgrade shows exactly which fixtures
changed behaviour.
"""

from __future__ import annotations

from pathlib import Path

from syrupy.extensions.json import JSONSnapshotExtension

OBSERVED_DIR = Path(__file__).resolve().parent / "observed"


def observed_snapshot_extension(adapter: str) -> type[JSONSnapshotExtension]:
    class ObservedResult(JSONSnapshotExtension):
        @classmethod
        def dirname(cls, *, test_location) -> str:
            return str(OBSERVED_DIR / adapter)

        @classmethod
        def discovery_dirname(cls, *, test_location) -> str:
            return cls.dirname(test_location=test_location)

    ObservedResult.__name__ = f"ObservedResult_{adapter}"
    return ObservedResult
