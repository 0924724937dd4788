"""The contract version, read from the one line in CONTRACT.md that states it."""

from __future__ import annotations

import re

from deltacheck.locations import CONTRACT_PATH


def _read_contract_version() -> int:
    try:
        text = CONTRACT_PATH.read_text(encoding="utf-8")
    except OSError:
        return 1  # an installed copy without the document; version 1 is the only one so far
    match = re.search(r"^`contract_version: (\d+)`$", text, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"{CONTRACT_PATH} does not state `contract_version: N` on a line of its own")
    return int(match.group(1))


CONTRACT_VERSION = _read_contract_version()
