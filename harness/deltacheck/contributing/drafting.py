"""Draft a fixture: from a redacted capture (`deltacheck import`) or as a hand-written scaffold (`deltacheck new`).

A draft's `expected` comes from the reference assembler, so it is code's opinion, not a decision:
every draft carries `unreviewed`, which lint refuses until the contributor has checked the result
against the provider's documented semantics and deleted the field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from deltacheck import protocols
from deltacheck.adequacy.fuzz import format_fixture, new_fixture_id
from deltacheck.contributing.capture import BadCapture, Capture, read_capture
from deltacheck.contributing.redact import (
    Cipher,
    find_secrets,
    redact_chunks,
    rewrite_data,
    scrub_secrets,
    secret_locations,
)
from deltacheck.corpus.basis import HOW_TO_CHOOSE, PLACEHOLDER
from deltacheck.corpus.loader import Corpus, checked_problems, schema_validators
from deltacheck.corpus.schema_checks import compiled_checks
from deltacheck.errors import AssemblyError
from deltacheck.locations import PACKAGE_DIR
from deltacheck.reference import assemble

UNREVIEWED = (
    "the expected result was drafted by the reference assembler ({how}), not decided: check every field "
    "against the provider's documented stream semantics (write what it rests on in basis; where the provider "
    "leaves the outcome open, declare implementation_defined), set the title and tags, then delete this field"
)

BASIS_TO_DECIDE = (
    PLACEHOLDER + ": what the expected result rests on; lint refuses this fixture until this is replaced "
    "({how_to_choose}). Set kind and write here: documented, the section of the provider's documentation "
    "that states it ({documentation}); observed, the public report(s) of the servers that send this shape, "
    "named in servers (corpus/servers.json); policy, the CONTRACT.md section and rule that chose it "
    '("CONTRACT.md 3.3 {protocol} rule N")'
)


class DraftFailed(Exception):
    """The draft cannot be written; the message says why (nothing was written)."""


def draft_from_capture(
    corpus: Corpus,
    path: Path,
    *,
    title: str | None,
    tags: tuple[str, ...],
    source: str | None,
    keep_text: bool,
    cipher: Cipher | None = None,
) -> dict[str, Any]:
    """The fixture a capture drafts, redacted; BadCapture / DraftFailed say what is wrong."""
    capture = read_capture(path)
    cipher = cipher or Cipher()
    keep_sse = capture.framing_matters()
    chunks = redact_chunks(capture.protocol, capture.chunks, cipher, keep_text)
    data: dict[str, Any] = {
        "id": new_fixture_id(corpus),
        "title": title or f"captured {capture.protocol} stream (state the behaviour it shows)",
        "protocol": capture.protocol,
        "tags": [],
        "provenance": {"kind": "captured", "source": source or f"capture imported from {path.name} ({capture.fmt})"},
        # A capture is a shape some server sent: observed, until the contributor decides otherwise.
        "basis": {"kind": "observed", "source": basis_to_decide(capture.protocol), "servers": []},
        "chunks": chunks,
    }
    if keep_sse:
        data["sse"] = _redacted_body(capture, chunks, cipher, path)
    if capture.stream_end != "terminator":
        data["stream_end"] = capture.stream_end
    outcome_key, outcome = _outcome(corpus, capture.protocol, chunks, path)
    data[outcome_key] = outcome
    suggested = suggested_tags(outcome, keep_sse) if outcome_key == "expected" else []
    required = ["rejected-stream"] if outcome_key == "rejected" else []  # lint: the tag and `rejected` come together
    off_schema = _off_schema(corpus, capture.protocol, chunks)
    if off_schema:  # a real stream is representable: where it breaks the chunk shape, it says so (lint checks both)
        data["off_schema"] = off_schema
        required.append("off-schema")
    data["tags"] = list(dict.fromkeys([*(tags or suggested), *required]))
    data["unreviewed"] = UNREVIEWED.format(how=f"deltacheck import {path.name}")
    _refuse_secrets(data, path, _original_text(capture), keep_text)
    return data


def draft_new(corpus: Corpus, protocol: str, title: str, tags: tuple[str, ...], source: str | None) -> dict[str, Any]:
    """A scaffold: the protocol's minimal stream (`SCAFFOLD_CHUNKS` of its `drafting` module) to replace."""
    chunks = json.loads(json.dumps(protocols.protocol(protocol).part("drafting").SCAFFOLD_CHUNKS))
    _, expected = _outcome(corpus, protocol, chunks, Path("(scaffold)"))
    return {
        "id": new_fixture_id(corpus),
        "title": title,
        "protocol": protocol,
        "tags": list(dict.fromkeys(tags or ("text",))),
        "provenance": {"kind": "synthetic", "source": source or "TODO: the documentation section this stream follows"},
        "basis": {"kind": "documented", "source": basis_to_decide(protocol)},
        "chunks": chunks,
        "expected": expected,
        "unreviewed": UNREVIEWED.format(how="deltacheck new; replace the TODO stream with the behaviour's own"),
    }


def basis_to_decide(protocol: str) -> str:
    """A draft's basis source: what to write there, for this protocol (lint refuses it as it stands)."""
    documentation = protocols.protocol(protocol).part("drafting").STREAM_DOCUMENTATION
    return BASIS_TO_DECIDE.format(how_to_choose=HOW_TO_CHOOSE, documentation=documentation, protocol=protocol)


def _redacted_body(capture: Capture, chunks: list[Any], cipher: Cipher, path: Path) -> str:
    """The captured SSE body with each event's data rewritten to its redacted chunk; the framing kept."""
    for event, original, redacted in zip(capture.events, capture.chunks, chunks):
        data = event.data(capture.lines)
        rewritten = rewrite_data(data, original, redacted)
        if rewritten is None:
            raise DraftFailed(
                f"{path}: line {event.line_number}: the event's data repeats a key or does not line up with "
                "its parsed chunk, so its bytes cannot be redacted in place"
            )
        for index, value in zip(event.data_lines, rewritten.split("\n")):
            line = capture.lines[index]
            line.text = line.text[: len(line.text) - len(line.value)] + value
            line.value = value
    for line in capture.lines:
        if line.field == "id":
            line.text = line.text[: len(line.text) - len(line.value)] + cipher.identifier(line.value)
        elif line.field == "":  # a comment
            line.text = scrub_secrets(line.text)
    return capture.body()


def _outcome(corpus: Corpus, protocol: str, chunks: list[Any], path: Path) -> tuple[str, dict[str, Any]]:
    """("expected", the reference's result), or, for a stream the reference rejects, ("rejected", a draft of
    the rejection) where the corpus has rejected fixtures; DraftFailed otherwise."""
    try:
        outcome = assemble(protocol, chunks)
    except AssemblyError as exc:
        if not _corpus_has_rejections(corpus):
            raise DraftFailed(
                f"{path}: the reference assembler cannot assemble chunk {exc.chunk_index} ({exc.message}); "
                "write this fixture by hand (deltacheck new) and decide its expected result from the "
                "provider's documentation"
            ) from None
        return "rejected", {
            "reason": f"TODO: the rule of the protocol this stream breaks, with a reference (the reference assembler "
            f"rejects chunk {exc.chunk_index}: {exc.message})",
            "matches": re.escape(exc.message),
        }
    return "expected", {k: v for k, v in outcome.result.items() if k != "events"}


def _off_schema(corpus: Corpus, protocol: str, chunks: list[Any]) -> list[str]:
    """The pointers of the chunks' parts the corpus's chunk schema refuses (a shape a real server sent)."""
    try:
        check = compiled_checks(str(corpus.root / "schema")).chunks[protocol]
        validator = schema_validators(str(corpus.root / "schema"))[2][protocol]
    except (OSError, ValueError, KeyError):
        return []  # a corpus without a readable schema: lint says so, the draft is written as it is
    pointers = (
        p for n, chunk in enumerate(chunks) for p, _ in checked_problems(check, validator, chunk, f"/chunks/{n}")
    )
    return sorted(set(pointers))


def _corpus_has_rejections(corpus: Corpus) -> bool:
    try:
        schema = json.loads((corpus.root / "schema" / "fixture.schema.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return "rejected" in schema.get("properties", {}) and "rejected-stream" in corpus.tags


def suggested_tags(expected: dict[str, Any], transport: bool) -> list[str]:
    """Tags the drafted result shows on its face; the contributor adds the behaviour's own."""
    parts = [p for c in expected.get("choices", []) for p in c.get("parts", [])]
    kinds = [p.get("type") for p in parts]
    tags = []
    if "text" in kinds:
        tags.append("text")
    calls = kinds.count("tool_call")
    if calls:
        tags.append("tool-call")
    if calls > 1:
        tags.append("parallel-calls")
    if "reasoning" in kinds:
        tags.append("reasoning")
    if "refusal" in kinds:
        tags.append("refusal")
    if expected.get("usage") is not None:
        tags.append("usage")
    if expected.get("error") is not None:
        tags.append("mid-stream-error")
    if transport:
        tags.append("transport")
    return tags or ["finish-reason"]


def _original_text(capture: Capture) -> str:
    """Every string of the capture, and the texts its fragments assemble to: where a key it holds shows."""
    texts = [json.dumps(capture.chunks, ensure_ascii=False)]
    try:
        texts.append(json.dumps(assemble(capture.protocol, capture.chunks).result, ensure_ascii=False))
    except AssemblyError:
        pass  # a stream the reference rejects: its chunks are all there is to search
    return "\n".join(texts)


def _refuse_secrets(data: dict[str, Any], path: Path, original: str, keep_text: bool) -> None:
    """Stop if the draft shows an API key the capture holds. Redacted text that merely reads like one (a long
    blob, replaced) is no key of the capture's, and is let be."""
    for pointer in secret_locations(data):
        value = _at(data, pointer)
        if any(match.group() in original for match in find_secrets(value)):
            advice = (
                "import without --keep-text, or remove it from the capture"
                if keep_text
                else "remove it from the capture"
            )
            raise DraftFailed(
                f"{path}: something that looks like an API key or bearer token remains at {pointer} "
                f"(split across values the import cannot join, so it was not overwritten); nothing was written: {advice}"
            )


def _at(document: Any, pointer: str) -> str:
    """The string (or key) a pointer from `secret_locations` names."""
    if pointer == "/":
        return str(document)
    for step in pointer.split("/")[1:]:
        if isinstance(document, list):
            document = document[int(step)]
        elif isinstance(document, dict) and step in document:
            document = document[step]
        else:
            return step  # a key that looks like a secret
    return document if isinstance(document, str) else step


def fixture_path(corpus: Corpus, data: dict[str, Any], output: Path | None, titled: bool = True) -> Path:
    """--output, else fixtures/<protocol>/<the title as a file name>.json (captured-<id>.json for an untitled import).

    The corpus an installed deltacheck carries is package data, never written to: there the draft goes
    to the current directory, for the contributor to move into their checkout's corpus.
    """
    if output is not None:
        return output
    slug = re.sub(r"[^a-z0-9]+", "-", data["title"].lower()).strip("-")[:70].rstrip("-") if titled else ""
    name = f"{slug or 'captured-' + data['id'].lower()}.json"
    if corpus.root.resolve().is_relative_to(PACKAGE_DIR):
        return Path.cwd() / name
    return corpus.root / "fixtures" / data["protocol"] / name


def write_draft(data: dict[str, Any], path: Path) -> None:
    if path.exists():
        raise DraftFailed(f"{path}: already exists; nothing was written (choose another --output)")
    try:
        text = format_fixture(data)
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        raise DraftFailed(
            f"{path}: the stream holds a lone surrogate (a \\uD800-\\uDFFF escape with no partner), "
            "which the corpus cannot store as UTF-8; nothing was written"
        ) from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(encoded)
    except OSError as exc:
        raise DraftFailed(f"{path}: cannot write it ({exc.strerror or exc})") from None


__all__ = ["BadCapture", "DraftFailed", "draft_from_capture", "draft_new", "fixture_path", "write_draft"]
