"""The reasons a protocol gives for capabilities no implementation of it can have, filled into descriptions.

A protocol package declares, in `Protocol.capability_notes`, why a field is absent for every adapter of its
protocol (a Chat Completions stream has no item ids). Adapters and drivers in any language declare only their
library's own reasons; the harness completes them here, where descriptions enter it: an Adapter's `describe()`
and a driver's hello (`Hello.from_json`). Standard library only: the generic driver imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from deltacheck.protocols import all_protocols


def with_protocol_reasons(
    protocols: Iterable[str], capabilities: Iterable[str], library_notes: Mapping[str, str]
) -> dict[str, str]:
    """capability_notes as the harness reports them: the library's own reasons, and for each other capability left
    out, the reason its protocol gives.

    An implementation of several protocols gets a protocol's reason only where each of its protocols gives one
    (a field one of them has is the library's to explain), their distinct reasons joined in registry order.
    A library's own reason always wins.
    """
    declared, spoken = set(capabilities), set(protocols)
    by_protocol = [p.capability_notes for p in all_protocols() if p.name in spoken]
    notes: dict[str, str] = {}
    for capability in {c for given in by_protocol for c in given} - declared:
        reasons = [given[capability] for given in by_protocol if capability in given]
        if len(reasons) == len(by_protocol):
            notes[capability] = "; ".join(dict.fromkeys(reasons))
    return dict(sorted({**notes, **library_notes}.items()))
