"""What the pages and the JSON documents say about the results, computed once: per implementation its
scores and findings, per fixture every implementation's record, and the CONTRACT rules fixtures cite."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from deltacheck.corpus.loader import Corpus
from deltacheck.judge.findings import Finding, distinct_findings
from deltacheck.judge.severity import SEVERITIES, SPEC_VIOLATION, most_serious, scope_of, strand_severity
from deltacheck.judge.upstream import Upstream, UpstreamEntry
from deltacheck.model import Fixture
from deltacheck.protocols import PROTOCOLS
from deltacheck.reports.inputs import ReportInputs
from deltacheck.reports.scorecard import NOT_PASSED, failure_severity, score_counts
from deltacheck.running.results import Results


def protocol_order(protocol: str) -> int:
    return PROTOCOLS.index(protocol) if protocol in PROTOCOLS else 99


def fixture_key(record: dict[str, Any]) -> str:
    return record.get("fixture") or f"({record.get('path')})"


@dataclass(frozen=True)
class FindingRow:
    finding: Finding
    severities: Counter[str]
    upstream: tuple[UpstreamEntry, ...]

    @property
    def severity(self) -> str:
        return most_serious(self.severities)


@dataclass
class Implementation:
    run: Results

    @property
    def name(self) -> str:
        return str(self.run.adapter.get("name", "?"))

    @property
    def adapter(self) -> dict[str, Any]:
        return self.run.adapter

    @property
    def is_gateway(self) -> bool:
        return isinstance(self.adapter.get("gateway"), dict)

    @property
    def kind(self) -> str:
        return "reference" if self.name == "reference" else "gateway" if self.is_gateway else "library"

    @property
    def language(self) -> str:
        return str(self.adapter.get("language") or ("python" if self.name == "reference" else "–"))

    @cached_property
    def by_protocol(self) -> dict[str, list[dict[str, Any]]]:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in self.run.records:
            groups[record.get("protocol") or "?"].append(record)
        return dict(sorted(groups.items(), key=lambda item: protocol_order(item[0])))

    def scores(self) -> dict[str, dict[str, Any]]:
        return {protocol: score_counts(records, self.run) for protocol, records in self.by_protocol.items()}

    def failures(self) -> list[dict[str, Any]]:
        failing = (r for r in self.run.records if r["verdict"] in NOT_PASSED)
        return sorted(failing, key=lambda r: (protocol_order(r.get("protocol") or "?"), fixture_key(r)))

    def severity(self, record: dict[str, Any]) -> str:
        return failure_severity(record, self.run)

    def findings(self, tags: dict[str, tuple[str, ...]], upstream: Upstream) -> list[FindingRow]:
        """Distinct findings, spec violations first (the order REPORT.md gives them)."""
        failing = {r["fixture"]: r for r in self.failures() if r.get("fixture")}
        scope = scope_of(self.adapter)
        rows = []
        for finding in distinct_findings(failing.values(), tags):
            severities = Counter(
                strand_severity(failing[fixture], (finding.axis, finding.what), scope) for fixture in finding.fixtures
            )
            rows.append(FindingRow(finding, severities, tuple(upstream.of(self.name, finding))))
        rows.sort(key=lambda row: SEVERITIES.index(row.severity))
        return rows


@dataclass
class SiteFacts:
    inputs: ReportInputs
    corpus: Corpus
    upstream: Upstream
    contract_text: str = ""
    implementations: list[Implementation] = field(init=False)

    def __post_init__(self) -> None:
        self.implementations = [Implementation(run) for run in self.inputs.runs]

    @property
    def corpus_version(self) -> str:
        return self.corpus.version

    @cached_property
    def fixtures(self) -> dict[str, Fixture]:
        return self.corpus.by_id()

    @cached_property
    def tags(self) -> dict[str, tuple[str, ...]]:
        return {fixture.id: fixture.tags for fixture in self.corpus.fixtures}

    @cached_property
    def records_by_fixture(self) -> dict[str, list[tuple[Implementation, dict[str, Any]]]]:
        """Every fixture any run recorded (or the corpus holds), with each implementation's record of it."""
        table: dict[str, list[tuple[Implementation, dict[str, Any]]]] = {fixture: [] for fixture in self.fixtures}
        for implementation in self.implementations:
            for record in implementation.run.records:
                table.setdefault(fixture_key(record), []).append((implementation, record))
        return dict(sorted(table.items(), key=lambda item: (protocol_order(self.protocol_of(item[0])), item[0])))

    def protocol_of(self, fixture: str) -> str:
        if fixture in self.fixtures:
            return self.fixtures[fixture].protocol
        records = self.records_by_fixture.get(fixture) if "records_by_fixture" in self.__dict__ else None
        return next((r.get("protocol") or "?" for _, r in records or ()), "?")

    def title_of(self, fixture: str) -> str:
        if fixture in self.fixtures:
            return self.fixtures[fixture].title
        return next((r.get("title") or r.get("path", "") for _, r in self.records_by_fixture.get(fixture, ())), "")

    def is_spec_violation(self, implementation: Implementation, record: dict[str, Any]) -> bool:
        return record["verdict"] in NOT_PASSED and implementation.severity(record) == SPEC_VIOLATION


# "CONTRACT.md 3.3 <protocol> rule 1", "CONTRACT 4.4", "CONTRACT.md 3.3 every protocol, rule 2"
CITATION = re.compile(r"CONTRACT(?:\.md)? (\d+(?:\.\d+)*)(?:,? ((?:every protocol|[a-z]+(?:-[a-z]+)*)),? rule (\d+))?")


def cited_rules(fixture: Fixture) -> list[str]:
    """The CONTRACT sections and rules a fixture's comment, basis and reasons cite, in order, once each."""
    texts = [fixture.comment or "", (fixture.basis or {}).get("source", ""), fixture.provenance.get("source", "")]
    texts += [(fixture.implementation_defined or {}).get("reason", ""), (fixture.rejection or {}).get("reason", "")]
    found: list[str] = []
    for text in texts:
        for match in CITATION.finditer(text):
            section, scope, rule = match.groups()
            citation = f"{section} {scope} rule {rule}" if rule else section
            if citation not in found:
                found.append(citation)
    return found


def contract_excerpt(contract: str, citation: str) -> str:
    """The cited rule's text (a numbered rule under its protocol in 3.3), else the section's heading line."""
    parts = citation.split(" rule ")
    section = parts[0].split(" ")[0]
    heading = re.search(rf"^#+ {re.escape(section)}\.? .*$", contract, re.MULTILINE)
    if heading is None:
        return ""
    if len(parts) == 1:
        return heading.group().lstrip("# ")
    scope, rule = parts[0].split(" ", 1)[1], parts[1]
    body = contract[heading.end() :]
    following = re.search(r"^#+ \d", body, re.MULTILINE)
    body = body[: following.start()] if following else body
    # 3.3 holds one block of numbered rules per protocol (its name opens a line), then "Every protocol:".
    openers = "|".join(re.escape(name) for name in (*PROTOCOLS, "Every protocol"))
    starts = list(re.finditer(rf"^({openers})\b", body, re.MULTILINE))
    mine = next((i for i, m in enumerate(starts) if m.group(1).lower() == scope.lower()), None)
    if mine is None:
        return heading.group().lstrip("# ")
    end = starts[mine + 1].start() if mine + 1 < len(starts) else len(body)
    block = body[starts[mine].end() : end]
    item = re.search(rf"^{re.escape(rule)}\. (.*?)(?=^\d+\. |\Z)", block, re.MULTILINE | re.DOTALL)
    return " ".join(item.group(1).split()) if item else heading.group().lstrip("# ")
