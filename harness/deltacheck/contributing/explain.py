"""A fixture, and optionally what one library did with it, written for a bug report.

`Explanation` gathers what is known (the fixture, the corpus version, and when an adapter ran: its
description, the verdict, and each finding the failure shows with what the library's tracker says of
it); `render_text` prints it for a terminal, `render_markdown` for an issue tracker (the citation
first, headings, fenced JSON, the raw stream in a collapsed block). A finding known upstream links
its report; one that appears unreported gets what a new report needs beside the rest.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from typing import Any

import deltacheck
from deltacheck.contract import CONTRACT_VERSION
from deltacheck.judge.compare import pretty
from deltacheck.judge.findings import Finding
from deltacheck.judge.severity import record_severity, scope_of
from deltacheck.judge.upstream import UpstreamEntry
from deltacheck.judge.verdict import Verdict
from deltacheck.model import AssemblyRequest, Fixture
from deltacheck.protocols import protocol
from deltacheck.protocols.sse import encode_chunk
from deltacheck.reports.markdown_text import code_span as _code
from deltacheck.reports.markdown_text import escape_markdown as _escape


@dataclass(frozen=True)
class Explanation:
    fixture: Fixture
    citation: str  # ID@CORPUS_VERSION
    adapter: dict[str, Any] | None = None  # the adapter's describe(), when one ran
    verdict: Verdict | None = None
    # Each finding a failing run shows (judge/findings.py), with the upstream entries that apply to it.
    findings: tuple[tuple[Finding, tuple[UpstreamEntry, ...]], ...] = ()
    reproduce: tuple[str, ...] = ()  # commands that reproduce the run: this explain, and a standalone script

    @property
    def severity(self) -> str | None:
        """How serious the failure is (CONTRACT.md 4.4): what the fixture rests on, and the implementation's scope."""
        if self.verdict is None:
            return None
        record = {
            **self.verdict.to_json(),
            "basis": self.fixture.basis,
            "off_schema": "off-schema" in self.fixture.tags,
        }
        return record_severity(record, scope_of(self.adapter or {}))

    @property
    def library_line(self) -> str:
        a = self.adapter or {}
        library = f"{a.get('library') or '(unknown library)'} {a.get('version') or '(unknown version)'}"
        return f"{library} (adapter {a.get('name')})"


def _provenance(fixture: Fixture) -> str:
    prov = fixture.provenance
    derived = f" (derived from {prov['derived_from']})" if prov.get("derived_from") else ""
    return f"{prov['kind']}, {prov['source']}{derived}"


def _basis(fixture: Fixture) -> str:
    """What the expected result rests on: "observed (vllm, sglang): <source>"."""
    basis = fixture.basis or {}
    servers = f" ({', '.join(basis['servers'])})" if basis.get("servers") else ""
    return f"{basis.get('kind')}{servers}: {basis.get('source', '')}"


def _stream_end(fixture: Fixture) -> str | None:
    """What follows the chunks on the wire, for a protocol whose streams end with a terminator (Chat's `[DONE]`)."""
    terminator = protocol(fixture.protocol).framing.terminator
    if terminator is None:
        return None
    return terminator if fixture.stream_end == "terminator" else f"(connection closes without {terminator})"


def served_request(fixture: Fixture, described: dict[str, Any] | None) -> AssemblyRequest:
    """The request the adapter was given: on the transport it reads, when it declares one that carries the fixture."""
    transport = (described or {}).get("transport")
    return fixture.request(transport if fixture.transport_problem(transport) is None else None)


# -- plain text ----------------------------------------------------------------------------------


def render_text(explanation: Explanation) -> str:
    fixture = explanation.fixture
    lines = [
        f"{explanation.citation}: {fixture.title}",
        f"protocol: {fixture.protocol}    tags: {', '.join(fixture.tags)}",
        f"file: {fixture.path}",
        f"provenance: {_provenance(fixture)}",
    ]
    if fixture.basis:
        lines.append(f"basis: {_basis(fixture)}")
    lines += [f"reproduces: {link}" for link in fixture.reports]
    if fixture.comment:
        lines.append(f"comment: {fixture.comment}")
    lines += ["", f"stream ({len(fixture.chunks)} chunks):", ""]
    lines += [f"  [{n}] {encode_chunk(chunk)}" for n, chunk in enumerate(fixture.chunks)]
    if end := _stream_end(fixture):
        lines.append(f"      {end}")
    if rejected := fixture.rejection:
        lines += [
            "",
            f"expected: a rejection of the stream ({rejected['reason']}),",
            f"  an error matching /{rejected['matches']}/",
        ]
    else:
        lines += ["", "expected result (CONTRACT.md 3):", "", pretty(fixture.expected).rstrip()]
    impl = fixture.implementation_defined
    if impl:
        lines += ["", f"implementation-defined: {impl['reason']}"]
        for alt in fixture.acceptable:
            lines += [
                f"  also acceptable: {alt['description']}",
                "    " + json.dumps(alt["result"], ensure_ascii=False),
            ]
        if fixture.raise_acceptable:
            lines.append(f"  raising an error is acceptable: {fixture.raise_acceptable}")
        for rule in fixture.forbidden:
            lines.append(f"  forbidden: {rule['description']} {json.dumps(rule['match'], ensure_ascii=False)}")
    if explanation.verdict is not None:
        lines += _text_run(explanation, explanation.verdict)
    return "\n".join(lines)


def _text_run(explanation: Explanation, verdict: Verdict) -> list[str]:
    a = explanation.adapter or {}
    lines = ["", f"library: {explanation.library_line}"]
    if a.get("code_path"):
        lines.append(f"code path: {a['code_path']}")
    lines.append(f"verdict: {verdict.verdict}" + (f": {verdict.message}" if verdict.message else ""))
    if explanation.severity:
        lines.append(f"severity: {explanation.severity} (CONTRACT.md 4.4)")
    if verdict.first_divergence:
        lines.append(f"first divergence: {verdict.first_divergence}")
    if len(verdict.divergences) > 1:
        lines.append(f"all {len(verdict.divergences)} divergences:")
        lines += [f"  {d['message']}" for d in verdict.divergences]
    if verdict.forbidden:
        lines.append(f"forbidden outcomes it matches: {'; '.join(verdict.forbidden)}")
    if verdict.na:
        lines.append(f"not judged (the adapter cannot express them): {', '.join(verdict.na)}")
    if verdict.observed is not None:
        lines += ["", "observed result:", "", pretty(verdict.observed).rstrip()]
    if verdict.diff:
        title = "traceback:" if verdict.observed is None else "diff (expected -> observed, as compared):"
        lines += ["", title, "", verdict.diff.rstrip()]
    elif _only_events_diverge(verdict):
        lines += ["", f"diff: none in the assembled result; {EVENTS_ONLY}"]
    return lines


EVENTS_ONLY = "the divergence is in the tool-call completion events (observed `events`; CONTRACT.md 3.4)"


def _only_events_diverge(verdict: Verdict) -> bool:
    return bool(verdict.divergences) and all(d.get("axis") == "events" for d in verdict.divergences)


# -- Markdown ------------------------------------------------------------------------------------


def fence(text: str, info: str = "") -> str:
    """A fenced block that the text cannot close early (the fence is longer than any backtick run in it)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def render_markdown(explanation: Explanation, raw_stream: bytes, binary: bool = False) -> str:
    """The explanation for an issue; `raw_stream` is the body served to the library (`binary`: event-stream
    messages, shown as base64)."""
    fixture = explanation.fixture
    verdict = explanation.verdict
    head = f"**{explanation.citation}**: {_escape(fixture.title)}"
    if verdict is not None:
        head += f" ({_escape(explanation.library_line)}: {verdict.verdict})"
    out = [head, ""]
    facts = [
        ("protocol", _code(fixture.protocol)),
        ("tags", ", ".join(_code(t) for t in fixture.tags)),
        ("fixture file", _code(fixture.path)),
        ("provenance", _escape(_provenance(fixture))),
        *([("basis", _escape(_basis(fixture)))] if fixture.basis else []),
    ]
    # A `seed:` report names a file of the project's own seed data: nothing a reader elsewhere can open.
    facts += [("reproduces", _escape(link)) for link in fixture.reports if not link.startswith("seed:")]
    out += [f"- {name}: {value}" for name, value in facts]
    if fixture.comment:
        out += ["", _escape(fixture.comment)]
    if verdict is not None:
        out += _markdown_run(explanation, verdict)
        out += _markdown_upstream(explanation)
    if rejected := fixture.rejection:
        out += [
            "",
            "### Expected outcome: a rejection of the stream",
            "",
            _escape(rejected["reason"]),
            "",
            f"An error matching {_code('/' + rejected['matches'] + '/')}",
        ]
    else:
        out += ["", "### Expected result (deltacheck CONTRACT.md 3)", "", fence(pretty(fixture.expected), "json")]
    impl = fixture.implementation_defined
    if impl:
        out += ["", "### Implementation-defined", "", _escape(impl["reason"])]
        for alt in fixture.acceptable:
            out += ["", f"Also acceptable: {_escape(alt['description'])}", "", fence(pretty(alt["result"]), "json")]
        if fixture.raise_acceptable:
            out += ["", f"Raising an error is acceptable: {_escape(fixture.raise_acceptable)}"]
        for rule in fixture.forbidden:
            out += [
                "",
                f"Forbidden: {_escape(rule['description'])} {_code(json.dumps(rule['match'], ensure_ascii=False))}",
            ]
    chunks = "\n".join(encode_chunk(chunk) for chunk in fixture.chunks)
    end = _stream_end(fixture)
    out += [
        "",
        "### Stream",
        "",
        f"{len(fixture.chunks)} chunks, one JSON payload per line" + (f"; then {end}" if end else "") + ":",
        "",
        fence(chunks, "jsonl"),
    ]
    out += [
        "",
        *(_raw_binary(raw_stream) if binary else _raw_sse(raw_stream)),
        "",
        "</details>",
    ]
    return "\n".join(out) + "\n"


def _raw_sse(body: bytes) -> list[str]:
    return [
        "<details><summary>Raw stream (the exact SSE bytes served to the library)</summary>",
        "",
        fence(body.decode("utf-8", errors="replace"), "text"),
    ]


def _raw_binary(body: bytes) -> list[str]:
    text = base64.b64encode(body).decode("ascii")
    return [
        "<details><summary>Raw stream (the exact bytes served to the library: binary event-stream messages, "
        "base64)</summary>",
        "",
        fence("\n".join(text[start : start + 76] for start in range(0, len(text), 76)), "text"),
    ]


def _markdown_run(explanation: Explanation, verdict: Verdict) -> list[str]:
    a = explanation.adapter or {}
    out = ["", "### Library", "", f"{_escape(explanation.library_line)}"]
    if a.get("code_path"):
        out += ["", f"Code path: {_escape(a['code_path'])}"]
    out += [
        "",
        "### Verdict",
        "",
        f"**{verdict.verdict}**" + (f": {_code(verdict.message)}" if verdict.message else ""),
    ]
    if explanation.severity:
        out += ["", f"Severity: {explanation.severity} (deltacheck CONTRACT.md 4.4)"]
    if verdict.first_divergence:
        out += ["", f"First divergence: {_code(verdict.first_divergence)}"]
    if len(verdict.divergences) > 1:
        out += ["", f"All {len(verdict.divergences)} divergences:", ""]
        out += [f"- {_code(d['message'])}" for d in verdict.divergences]
    if verdict.forbidden:
        out += ["", f"Forbidden outcomes it matches: {_escape('; '.join(verdict.forbidden))}"]
    if verdict.na:
        out += ["", f"Not judged (the adapter cannot express them): {', '.join(verdict.na)}"]
    if verdict.observed is not None:
        out += ["", "### Observed result", "", fence(pretty(verdict.observed), "json")]
    if verdict.diff:
        title = "### Traceback" if verdict.observed is None else "### Diff (expected → observed, as compared)"
        out += ["", title, "", fence(verdict.diff, "text" if verdict.observed is None else "diff")]
    elif _only_events_diverge(verdict):
        out += ["", "### Diff", "", f"None in the assembled result; {EVENTS_ONLY}."]
    return out


KNOWN = {
    "open": "Known upstream, still open",
    "fixed": "Fixed upstream",
    "closed-as-intended": "Closed upstream as intended",
    "closed-unfixed": "Reported upstream, closed without a fix (the behaviour stands)",
    "documented": "Documented by the library",
}


def _markdown_upstream(explanation: Explanation) -> list[str]:
    """Each finding with its upstream report; for one that appears unreported, what a new report needs."""
    if not explanation.findings:
        return []
    out = ["", "### Upstream"]
    unreported = False
    for finding, entries in explanation.findings:
        out += ["", f"Finding ({_escape(finding.axis)}): {_code(finding.what)}", ""]
        known = [entry for entry in entries if entry.status in KNOWN]
        for entry in known:
            fixed = f" in {entry.fixed_in}" if entry.fixed_in else ""
            out.append(f"- {KNOWN[entry.status]}{fixed}: {_escape(entry.url or '')} ({_escape(entry.note)})")
        if known:
            continue
        unreported = True
        searched = [entry.note for entry in entries if entry.status == "unreported"]
        if searched:
            out.append(f"- Appears unreported upstream (searched: {_escape('; '.join(searched))})")
        else:
            out.append("- No upstream report is recorded for it; search the library's tracker before filing one")
    if unreported:
        out += ["", "### Reproduce", ""]
        out.append(
            f"- Versions: {_escape(explanation.library_line)}; fixture {_code(explanation.citation)}; "
            f"deltacheck {deltacheck.__version__}, contract version {CONTRACT_VERSION}"
        )
        out += [f"- {_code(command)}" for command in explanation.reproduce]
    return out
