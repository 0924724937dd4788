"""How serious a failure is, from what its expected result rests on (CONTRACT.md 4.4).

Four kinds, most serious first:

* spec violation: the implementation misreads a stream whose meaning the provider documents, or a
  shape a server it promises to read really sends (a call dropped, merged or corrupted, an error
  lost, data invented);
* strictness: it raises on a stream that breaks the provider's published chunk shape (the fixture is
  tagged `off-schema`): refusing what the provider says cannot happen;
* compatibility: the shape is one only other servers send (an `observed` basis none of whose
  servers is the protocol's provider), and the implementation is a provider's own SDK, which promises
  to read that provider's streams only;
* policy divergence: providers are silent and the implementation chose differently from the
  contract's recommendation (a `policy` basis, no forbidden outcome matched).

Headline scores count spec violations only. Everything here reads a results record and its run's
header, so a report, `explain` and anyone holding a results file judge a failure the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from deltacheck.judge.findings import RAISED, finding_keys
from deltacheck.protocols import REGISTRY

SPEC_VIOLATION = "spec violation"
STRICTNESS = "strictness"
COMPATIBILITY = "compatibility"
POLICY_DIVERGENCE = "policy divergence"
SEVERITIES = (SPEC_VIOLATION, STRICTNESS, COMPATIBILITY, POLICY_DIVERGENCE)  # most serious first

SCOPES = ("provider", "multi-provider")

# Strands that rest on one general rule of the contract, whatever the fixture is about, with that
# rule's basis (CONTRACT.md 4.4). Usage a client fills in when the stream carried none: the provider
# documents what it sends, not what a client reports when nothing came, and libraries document their
# estimates. An id a client gives a call the stream sent without one: providers document the id as
# absent there (Gemini's optional `functionCall.id`, Chat's legacy `function_call`), and a client whose
# message model needs an id for every call must name it somehow.
GENERAL_POLICY_STRANDS = {("usage", "/usage: invented"), ("identity", "/choices/*/parts/*/id: invented")}

FAILING = frozenset({"fail", "error", "crash", "timeout"})


def scope_of(adapter: Mapping[str, Any]) -> str:
    """The scope a run's header declares; an implementation that declares none promises every server."""
    scope = adapter.get("scope")
    return scope if scope in SCOPES else "multi-provider"


def fixture_severity(record: Mapping[str, Any], scope: str) -> str:
    """The severity a failing record's fixture gives every strand that does not rest on a general rule."""
    basis = record.get("basis") or {}
    provider = getattr(REGISTRY.get(record.get("protocol") or ""), "provider", None)
    if basis.get("kind") == "observed" and scope == "provider" and provider not in basis.get("servers", ()):
        return COMPATIBILITY
    if record.get("verdict") == "error" and record.get("off_schema") and RAISED.match(record.get("message", "")):
        return STRICTNESS
    if basis.get("kind") == "policy" and not record.get("forbidden"):
        return POLICY_DIVERGENCE
    return SPEC_VIOLATION


def strand_severity(record: Mapping[str, Any], strand: tuple[str, str], scope: str) -> str:
    """The severity of one strand (a finding) of a failing record."""
    severity = fixture_severity(record, scope)
    if severity == SPEC_VIOLATION and strand in GENERAL_POLICY_STRANDS:
        return POLICY_DIVERGENCE
    return severity


def record_severity(record: Mapping[str, Any], scope: str) -> str | None:
    """The most serious severity among a record's strands; None for a record that did not fail."""
    if record.get("verdict") not in FAILING:
        return None
    return most_serious(strand_severity(record, strand, scope) for strand in finding_keys(dict(record)))


def most_serious(severities: Iterable[str]) -> str:
    ranked = sorted(severities, key=SEVERITIES.index)
    return ranked[0] if ranked else SPEC_VIOLATION
