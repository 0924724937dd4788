"""The syrupy extension for observed results: one JSON file per adapter x fixture.

Files live in `tests/__snapshots__/<test module>/<adapter>/<test name>.json`, so running one adapter
never sees another adapter's snapshots as unused, and a pinned-library upgrade shows exactly which
fixtures changed behaviour.
"""

from __future__ import annotations

from pathlib import Path

from syrupy.extensions.json import JSONSnapshotExtension


def observed_snapshot_extension(adapter: str) -> type[JSONSnapshotExtension]:
    class ObservedResult(JSONSnapshotExtension):
        @classmethod
        def dirname(cls, *, test_location) -> str:
            return str(Path(super().dirname(test_location=test_location)) / adapter)

        @classmethod
        def discovery_dirname(cls, *, test_location) -> str:
            return cls.dirname(test_location=test_location)

    ObservedResult.__name__ = f"ObservedResult_{adapter}"
    return ObservedResult
