"""The syrupy extension for observed results: one JSON file per adapter x fixture in a folder of the user's.

Used by the pytest plugin's opt-in `--deltacheck-snapshots DIR`: files live in `DIR/<adapter>/`, one
folder per adapter and outside the `__snapshots__` tree that syrupy sweeps for unknown files, so
running one adapter never reports another adapter's snapshots as unused. Imported only when
snapshots are asked for (syrupy is then required).
"""

from __future__ import annotations

from pathlib import Path

from syrupy.extensions.json import JSONSnapshotExtension


def observed_snapshot_extension(folder: Path) -> type[JSONSnapshotExtension]:
    class ObservedResult(JSONSnapshotExtension):
        @classmethod
        def dirname(cls, *, test_location) -> str:
            return str(folder)

        @classmethod
        def discovery_dirname(cls, *, test_location) -> str:
            return cls.dirname(test_location=test_location)

    ObservedResult.__name__ = f"ObservedResult_{folder.name}"
    return ObservedResult
