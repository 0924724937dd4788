"""Load the corpus and check every fixture: schema, vocabulary, ids, chunk shapes, reference agreement.

`load_corpus` never stops at the first bad file. Each problem names the file, the fixture id and
the field; a fixture with any problem is left out of runs (and `run` records it as skipped with the
same message), while all other fixtures load.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deltacheck.corpus.basis import HOW_TO_CHOOSE, basis_problems, read_servers
from deltacheck.corpus.schema_checks import SCHEMA_FILES, Check, compiled_checks
from deltacheck.errors import AssemblyError, FixtureProblem, capped_problems
from deltacheck.json_spec import NotJson, finite_float, refuse_non_json_word
from deltacheck.judge.compare import MISSING, compare, is_no_arguments, json_equal, normalised, resolve_pointer
from deltacheck.locations import BUNDLED_CORPUS as DEFAULT_CORPUS
from deltacheck.model import Fixture, frames_body
from deltacheck.protocols import PROTOCOLS, all_protocols, decode_stream, protocol
from deltacheck.reference import ReferenceOutcome, assemble

if TYPE_CHECKING:
    import jsonschema

TITLE_WORDS_NOT_ALLOWED = re.compile(r"\b(should|test that|tests that)\b", re.IGNORECASE)


@dataclass
class Corpus:
    root: Path
    version: str
    tags: dict[str, dict[str, Any]]
    fixtures: list[Fixture] = field(default_factory=list)
    problems: list[FixtureProblem] = field(default_factory=list)
    reference: dict[str, ReferenceOutcome] = field(default_factory=dict)  # filled when lint ran the reference
    retired: set[str] = field(default_factory=set)  # corpus/RETIRED_IDS: ids never to be used again
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # corpus/servers.json, by slug
    _required: dict[tuple[str, ...], frozenset[str]] = field(default_factory=dict, repr=False)  # by a fixture's tags

    def reference_outcome(self, fixture: Fixture) -> ReferenceOutcome | None:
        """What the reference assembles for a fixture (for the event rules); None if it cannot."""
        if fixture.id not in self.reference:
            try:
                self.reference[fixture.id] = assemble(fixture.protocol, fixture.chunks)
            except AssemblyError:
                return None
        return self.reference[fixture.id]

    def by_id(self) -> dict[str, Fixture]:
        return {f.id: f for f in self.fixtures}

    def select(self, protocols: Iterable[str] | None = None, ids: Iterable[str] | None = None) -> list[Fixture]:
        protocols = set(protocols or ())
        ids = set(ids or ())
        return [f for f in self.fixtures if (not protocols or f.protocol in protocols) and (not ids or f.id in ids)]

    def required_capabilities(self, fixture: Fixture) -> frozenset[str]:
        """The capabilities a fixture is about (its tags' `requires`)."""
        known = self._required.get(fixture.tags)
        if known is None:
            known = self._required[fixture.tags] = frozenset(
                self.tags[t]["requires"] for t in fixture.tags if "requires" in self.tags.get(t, {})
            )
        return known

    def unknown_ids(self, ids: Iterable[str]) -> list[str]:
        """The ids that name no fixture of this corpus, loaded or broken (a typo, or another corpus's id)."""
        known = {f.id for f in self.fixtures} | {p.fixture_id for p in self.problems}
        return sorted(set(ids) - known)

    def cite(self, fixture_id: str) -> str:
        return f"{fixture_id}@{self.version}"


class SchemaValidator:
    """A jsonschema validator built on first use: the compiled checks (deltacheck.corpus.schema_checks)
    answer for valid documents, so most runs never import jsonschema (~50 ms) or build one."""

    def __init__(self, schema_dir: str, name: str, protocol: str | None = None) -> None:
        self.schema_dir, self.name, self.protocol = schema_dir, name, protocol

    @cached_property
    def validator(self) -> jsonschema.Validator:
        fixture, result, chunks = _validators(self.schema_dir)
        if self.protocol is None:
            return {"fixture": fixture, "result": result}[self.name]
        return chunks[self.protocol]

    def iter_errors(self, document: Any) -> Iterable[jsonschema.ValidationError]:
        return self.validator.iter_errors(document)


@cache
def _validators(schema_dir: str) -> tuple[jsonschema.Validator, jsonschema.Validator, dict[str, jsonschema.Validator]]:
    import jsonschema  # noqa: PLC0415 - only when a document needs its problems explained (see SchemaValidator)
    from referencing import Registry, Resource  # noqa: PLC0415

    root = Path(schema_dir)
    documents = {
        name: json.loads((root / name).read_text(encoding="utf-8"))
        for name in ("fixture.schema.json", "result.schema.json", "chunks.schema.json")
    }
    registry = Registry().with_resources((doc["$id"], Resource.from_contents(doc)) for doc in documents.values())
    fixture = jsonschema.Draft202012Validator(documents["fixture.schema.json"], registry=registry)
    result = jsonschema.Draft202012Validator(documents["result.schema.json"], registry=registry)
    chunks: dict[str, jsonschema.Validator] = {
        p: jsonschema.Draft202012Validator(
            {"$ref": f"{documents['chunks.schema.json']['$id']}#/$defs/{p}"}, registry=registry
        )
        for p in PROTOCOLS
    }
    return fixture, result, chunks


@cache
def schema_validators(schema_dir: str) -> tuple[SchemaValidator, SchemaValidator, dict[str, SchemaValidator]]:
    return (
        SchemaValidator(schema_dir, "fixture"),
        SchemaValidator(schema_dir, "result"),
        {p: SchemaValidator(schema_dir, "chunks", p) for p in PROTOCOLS},
    )


def result_validator(corpus_root: Path = DEFAULT_CORPUS) -> SchemaValidator:
    return schema_validators(str(corpus_root / "schema"))[1]


def fast_result_check(corpus_root: Path = DEFAULT_CORPUS) -> Check:
    """A cheap yes/no on the hot path: the result schema compiled (deltacheck.corpus.schema_checks).

    It answers only "valid or not"; the messages come from `result_validator`.
    """
    return compiled_checks(str(corpus_root / "schema")).result


def checked_problems(
    check: Check, validator: SchemaValidator, document: Any, prefix: str = ""
) -> list[tuple[str, str]]:
    """`schema_problems`, asking jsonschema only about a document the compiled check did not pass."""
    return [] if check(document) else schema_problems(validator, document, prefix)


# The most schema violations one document is asked about: every caller shows a few, and an adapter's result
# with 100,000 broken parts would otherwise cost minutes and gigabytes of jsonschema errors (bench/reliability.py).
PROBLEMS_ASKED = 20


def schema_problems(
    validator: SchemaValidator | jsonschema.Validator, document: Any, prefix: str = ""
) -> list[tuple[str, str]]:
    """(JSON pointer, message) for the first PROBLEMS_ASKED schema violations, most specific first."""
    from jsonschema.exceptions import best_match  # noqa: PLC0415 - see SchemaValidator

    out = []
    first = itertools.islice(validator.iter_errors(document), PROBLEMS_ASKED)
    for error in sorted(first, key=lambda e: list(map(str, e.absolute_path))):
        best = error
        while best.validator in ("anyOf", "oneOf") and best.context:  # say which branch came closest
            best = best_match(_branch_for_type(best))
        pointer = prefix + "".join(f"/{p}" for p in best.absolute_path)
        out.append((pointer or "/", _shorten(best.message)))
    return out


def _branch_for_type(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """For a part that matches no branch, the errors of the branch its own `type` selects, if any."""
    by_branch: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    for errors in by_branch.values():
        if not any(e.validator == "const" and list(e.relative_path) == ["type"] for e in errors):
            return errors
    return list(error.context)


class NotACorpus(ValueError):
    """A directory the corpus cannot be read from at all (no fixtures/ inside it, no readable schema)."""


def layout_problem(root: Path) -> str | None:
    """Why `root` is no corpus directory, in a few words; None when its layout is a corpus's."""
    fixtures = root / "fixtures"
    if not fixtures.is_dir():
        return "not a corpus directory (it has no fixtures/ folder)"
    if not fixtures.resolve().is_relative_to(root.resolve()):
        return f"fixtures/ is a link to {fixtures.resolve()}, outside the corpus; a corpus is what its directory holds"
    for name in SCHEMA_FILES:
        schema = root / "schema" / name
        try:
            document = json.loads(schema.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            return f"not a corpus directory: schema/{name} unreadable ({getattr(exc, 'strerror', None) or exc})"
        except ValueError as exc:
            return f"not a corpus directory: schema/{name} is not JSON ({exc})"
        if not isinstance(document, dict) or not isinstance(document.get("$id"), str):
            return f"not a corpus directory: schema/{name} is no JSON schema with an $id"
    return None


def load_corpus(root: Path | str = DEFAULT_CORPUS, check_reference: bool = True) -> Corpus:
    """The corpus in `root`: its fixtures, and a problem for every file that is not one.

    Raises NotACorpus when the directory itself cannot be a corpus (see `layout_problem`)."""
    root = Path(root)
    unusable = layout_problem(root)
    if unusable is not None:
        raise NotACorpus(f"{root}: {unusable}")
    problems: list[FixtureProblem] = []
    version = _read_version(root, problems)
    tags = _read_tags(root, problems)
    corpus = Corpus(root, version, tags, problems=problems)
    retired = corpus.retired = _read_retired(root)
    corpus.servers, vocabulary_problems = read_servers(root, all_protocols())
    problems.extend(vocabulary_problems)
    fixture_v, _, chunk_v = schema_validators(str(root / "schema"))
    checks = compiled_checks(str(root / "schema"))
    seen: dict[str, list[str]] = {}
    inside = root.resolve()
    for path in sorted((root / "fixtures").rglob("*.json")):
        rel = str(path.relative_to(root.parent)) if root.parent in path.parents else str(path)
        if not path.resolve().is_relative_to(inside):  # a link to the file, or to a folder holding it
            # A corpus is what its directory holds: a link must not pull in (or leak) a file from elsewhere.
            problems.append(FixtureProblem(rel, None, "/", "symlink to a file outside the corpus; not loaded"))
            continue
        try:
            fixture, found = _check_file(
                path,
                rel,
                (checks, fixture_v, chunk_v),
                (tags, corpus.servers),
                retired,
                seen,
                check_reference,
                corpus.reference,
            )
        except RecursionError:
            # json, jsonschema, the reference and the comparison all recurse: a file nested deeper than
            # Python's limit is a problem of that file, and every other file is still checked.
            fixture, found = (
                None,
                [FixtureProblem(rel, None, "/", "nested too deeply to check (deeper than Python's recursion limit)")],
            )
        problems.extend(capped_problems(found))
        if fixture is not None and not found:
            corpus.fixtures.append(fixture)
    _check_duplicates(corpus, seen)
    _check_derivations(corpus)
    problems.extend(_scenario_problems(root))
    return corpus


def _scenario_problems(root: Path) -> list[FixtureProblem]:
    """The cost axis's scenario specs (corpus/scenarios) are linted with the fixtures."""
    from deltacheck.cost.scenarios import load_scenarios  # the cost axis's modules, only when linting

    return load_scenarios(root)[1]


def _check_duplicates(corpus: Corpus, seen: dict[str, list[str]]) -> None:
    """An id used twice is trusted in neither file: both are reported and left out."""
    for fid, paths in seen.items():
        if len(paths) < 2:
            continue
        for path in paths:
            others = ", ".join(p for p in paths if p != path)
            corpus.problems.append(FixtureProblem(path, fid, "/id", f"duplicate id, also used by {others}"))
        corpus.fixtures = [f for f in corpus.fixtures if f.id != fid]


def _check_file(path: Path, rel: str, schemas, vocabularies, retired, seen, check_reference, outcomes):
    checks, fixture_v, chunk_v = schemas
    tags, servers = vocabularies

    def problem(field_name: str, message: str, fid: str | None = None) -> FixtureProblem:
        return FixtureProblem(rel, fid, field_name, message)

    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text, parse_constant=refuse_non_json_word, parse_float=finite_float)
    except OSError as exc:  # unreadable, or a dangling link
        return None, [problem("/", f"unreadable: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        return None, [problem("/", f"not UTF-8: {exc}")]
    except json.JSONDecodeError as exc:
        return None, [problem("/", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")]
    except NotJson as exc:  # a bare NaN or Infinity, which json.loads alone would take
        return None, [problem("/", f"not JSON: {exc}")]
    except (
        ValueError
    ) as exc:  # JSON the harness cannot hold: an integer over sys.get_int_max_str_digits() digits, 1e400
        return None, [problem("/", f"JSON the harness cannot read: {exc}")]
    fid = data.get("id") if isinstance(data, dict) and isinstance(data.get("id"), str) else None
    # A lone surrogate (a JSON escape such as \ud800 with no partner) is no Unicode text: lint's output,
    # the results file and the SSE served to an adapter are all UTF-8, so it is a problem of this file,
    # named before any other check can copy it (or a key holding it, as a field) into a message.
    surrogates = _lone_surrogates(data) if _SURROGATE_ESCAPE.search(text) else []  # the walk only where one can be
    found = [
        problem(pointer, message, None if fid is None or _SURROGATE.search(fid) else fid)
        for pointer, message in surrogates
    ]
    if found:
        return None, found
    found = [
        problem(pointer, _with_hint(message), fid)
        for pointer, message in checked_problems(checks.fixture, fixture_v, data)
    ]
    if found:
        return None, found
    for position, tag in enumerate(data["tags"]):
        if tag not in tags:
            found.append(problem(f"/tags/{position}", f"unknown tag {tag!r} (vocabulary: corpus/tags.json)", fid))
    if TITLE_WORDS_NOT_ALLOWED.search(data["title"]):
        found.append(problem("/title", 'state the behaviour as a fact; titles never say "should" or "test that"', fid))
    if "unreviewed" in data:
        found.append(
            problem(
                "/unreviewed",
                "not reviewed: the expected result was drafted by code; check every field "
                "against the provider's documented stream semantics, then delete `unreviewed`",
                fid,
            )
        )
    if fid in retired:
        found.append(problem("/id", f"{fid} is retired (corpus/RETIRED_IDS); ids are never reused", fid))
    seen.setdefault(fid, []).append(rel)
    if path.parent.name in PROTOCOLS and path.parent.name != data["protocol"]:
        found.append(problem("/protocol", f"{data['protocol']!r} in the {path.parent.name}/ directory", fid))
    found.extend(
        problem(p, m, fid)
        for p, m in _chunk_shape_problems(data, checks.chunks[data["protocol"]], chunk_v[data["protocol"]])
    )
    spec = protocol(data["protocol"])
    if "basis" in data:  # a corpus whose own schema predates the field has none to check
        found.extend(problem(p, m, fid) for p, m in basis_problems(data["basis"], spec, servers))
    if (lint := spec.optional_part("lint")) is not None:
        found.extend(problem(p, m, fid) for p, m in lint.chunk_problems(data["chunks"]))
    if data.get("stream_end") == "eof" and spec.framing.terminator is None:
        found.append(
            problem(
                "/stream_end",
                f"`eof` only means something for a protocol whose streams end with a "
                f"terminator; {data['protocol']} has none",
                fid,
            )
        )
    if "sse" in data or "frames" in data:
        found.extend(problem(p, m, fid) for p, m in _raw_sse_problems(data))
    if "sse_cuts" in data:
        found.extend(problem(p, m, fid) for p, m in _cut_problems(data))
    fixture = Fixture.from_json(data, rel)
    found.extend(problem(p, m, fid) for p, m in _expectation_problems(fixture))
    if check_reference and not found:
        found.extend(problem(p, m, fid) for p, m in reference_problems(fixture, outcomes))
    return fixture, found


_SCHEMA_HINTS = {
    "'basis' is a required property": (
        "'basis' is a required property: say what the expected result rests on, the provider's documentation, "
        f"a shape real servers send, or the contract's choice ({HOW_TO_CHOOSE})"
    ),
}


def _with_hint(message: str) -> str:
    """A schema message, with what to do about it where the schema alone cannot say."""
    return _SCHEMA_HINTS.get(message, message)


def _chunk_shape_problems(data: dict[str, Any], chunk_check: Check, chunk_validator) -> list[tuple[str, str]]:
    """Every chunk has its protocol's shape, except at the places an `off-schema` fixture declares."""
    declared = set(data.get("off_schema", ()))
    tagged = "off-schema" in data["tags"]
    out: list[tuple[str, str]] = []
    if bool(declared) != tagged:
        out.append(
            (
                "/off_schema",
                "the tag `off-schema` and the list `off_schema` come together: a fixture that breaks "
                "the chunk shape says so in both",
            )
        )
    broken: set[str] = set()
    for position, chunk in enumerate(data["chunks"]):
        for pointer, message in checked_problems(chunk_check, chunk_validator, chunk, f"/chunks/{position}"):
            if pointer in declared:
                broken.add(pointer)
            else:
                out.append((pointer, f"not a {data['protocol']} chunk: {message}"))
    for pointer in sorted(declared - broken):
        out.append(("/off_schema", f"{pointer} is listed as off-schema, but nothing there breaks the chunk shape"))
    return out


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # how one gets into a UTF-8 file: as a JSON escape


def _lone_surrogates(data: Any) -> list[tuple[str, str]]:
    """(pointer, message) for every string and key holding a lone surrogate, in document order."""
    out = []
    stack = [("", data)]  # not recursive: a deeply nested file is left to the checks that report it
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, str):
            if lone := _SURROGATE.search(value):
                out.append(
                    (
                        pointer or "/",
                        f"lone surrogate {_escaped(lone.group())} in a string "
                        "(no Unicode character; the harness writes fixtures' text as UTF-8)",
                    )
                )
        elif isinstance(value, dict):
            children = []
            for key, item in value.items():
                here = f"{pointer}/{_escaped(key)}"
                if _SURROGATE.search(key):
                    out.append((here, "lone surrogate in this key (no Unicode character)"))
                children.append((here, item))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{pointer}/{i}", item) for i, item in enumerate(value)]))
    return out


def _escaped(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _own_body(data: dict[str, Any]) -> tuple[str, bytes]:
    """(the field that holds it, the body) of a transport fixture: `sse` text, or a binary framing's `frames`."""
    if "sse" in data:
        return "/sse", data["sse"].encode("utf-8")
    return "/frames", frames_body(data["frames"])


def _raw_sse_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """A transport fixture's own body must decode to exactly its chunks (and its terminator): SSE text for a
    protocol on SSE, base64 `frames` for one whose framing is binary."""
    binary = getattr(protocol(data["protocol"]).framing, "binary", False)
    if binary != ("frames" in data) or "sse" in data and "frames" in data:
        wanted = "`frames` (its messages, base64)" if binary else "`sse` (its SSE text)"
        return [
            ("/frames" if "frames" in data else "/sse", f"a {data['protocol']} fixture carries its body as {wanted}")
        ]
    try:
        where, body = _own_body(data)
    except ValueError as exc:
        return [("/frames", f"a frame is not base64: {exc}")]
    try:
        decoded, done = decode_stream(data["protocol"], body)
    except ValueError as exc:
        return [(where, f"an event's data is not JSON: {exc}")]
    out = []
    if len(decoded) != len(data["chunks"]):
        out.append((where, f"decodes to {len(decoded)} chunks, the fixture lists {len(data['chunks'])}"))
    for position, (got, want) in enumerate(zip(decoded, data["chunks"])):
        if not json_equal(got, want):
            out.append((where, f"event {position} decodes to something other than /chunks/{position}"))
            break
    terminator = protocol(data["protocol"]).framing.terminator
    if terminator is not None and done != (data.get("stream_end", "terminator") == "terminator"):
        out.append((where, f"its {terminator} disagrees with `stream_end`"))
    return out


def _cut_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Byte-level cuts need the fixture's own bytes, and must fall inside them, in order."""
    if "sse" not in data and "frames" not in data:
        return [
            ("/sse_cuts", "cuts are byte offsets into the fixture's own body; this fixture has no `sse` or `frames`")
        ]
    try:
        size = len(_own_body(data)[1])
    except ValueError:
        return []  # reported once, at /frames
    cuts = data["sse_cuts"]
    if any(b <= a for a, b in zip(cuts, cuts[1:])):
        return [("/sse_cuts", "offsets must increase strictly")]
    if cuts[-1] >= size:
        return [("/sse_cuts", f"offset {cuts[-1]} is not inside the {size}-byte body")]
    return []


def _expectation_problems(fixture: Fixture) -> list[tuple[str, str]]:
    """A forbidden outcome must not describe the expected result or an acceptable one."""
    out = []
    if (fixture.rejection is not None) != ("rejected-stream" in fixture.tags):
        out.append(("/rejected", "the tag `rejected-stream` and `rejected` come together"))
    if fixture.rejection is not None:
        if fixture.raise_acceptable:
            out.append(
                (
                    "/implementation_defined/raise_acceptable",
                    "a rejected stream already accepts its rejection (`rejected.matches`)",
                )
            )
        try:
            re.compile(fixture.rejection["matches"])
        except re.error as exc:
            out.append(("/rejected/matches", f"not a regular expression: {exc}"))
    outcomes = ([("/expected", fixture.expected)] if fixture.expected is not None else []) + [
        (f"/implementation_defined/acceptable/{i}/result", a["result"]) for i, a in enumerate(fixture.acceptable)
    ]
    for i, rule in enumerate(fixture.forbidden):
        for pointer, value in rule["match"].items():
            if pointer.endswith("/arguments") and is_no_arguments(value):
                out.append(
                    (
                        f"/implementation_defined/forbidden/{i}/match",
                        f'{pointer}: spell no arguments as "{{}}" (CONTRACT 4 makes null and "" the same value)',
                    )
                )
        for where, outcome in outcomes:
            if forbidden_matches(rule, normalised(outcome, fixture.protocol)):
                out.append(
                    (
                        f"/implementation_defined/forbidden/{i}",
                        f"matches {where}: a forbidden outcome cannot also be acceptable",
                    )
                )
    if fixture.implementation_defined and not (fixture.acceptable or fixture.raise_acceptable or fixture.forbidden):
        out.append(
            ("/implementation_defined", "lists no acceptable alternative, raise_acceptable or forbidden outcome")
        )
    if bool(fixture.raise_acceptable) != bool(fixture.raise_matches):
        out.append(
            (
                "/implementation_defined",
                "raise_acceptable and raise_matches come together: an accepted raise names the error it accepts",
            )
        )
    elif fixture.raise_matches:
        try:
            re.compile(fixture.raise_matches)
        except re.error as exc:
            out.append(("/implementation_defined/raise_matches", f"not a regular expression: {exc}"))
    return out


def forbidden_matches(rule: dict[str, Any], result: dict[str, Any]) -> bool:
    return all(
        (value := resolve_pointer(result, pointer)) is not MISSING and json_equal(value, want)
        for pointer, want in rule["match"].items()
    )


def reference_problems(fixture: Fixture, outcomes: dict[str, ReferenceOutcome] | None = None) -> list[tuple[str, str]]:
    """The reference must reproduce `expected` exactly, or raise the rejection `rejected` names."""
    try:
        outcome = assemble(fixture.protocol, fixture.chunks)
    except AssemblyError as exc:
        if fixture.rejection is None:
            return [(f"/chunks/{exc.chunk_index}", f"the reference cannot assemble this chunk: {exc.message}")]
        if not re.search(fixture.rejection["matches"], f"AssemblyError: {exc}", re.IGNORECASE):
            return [
                (
                    "/rejected/matches",
                    f'the reference rejects the stream with "AssemblyError: {exc}", '
                    f"which /{fixture.rejection['matches']}/ does not match",
                )
            ]
        return []
    if fixture.rejection is not None:
        return [("/rejected", "the reference assembles this stream instead of rejecting it")]
    assert fixture.expected is not None  # a fixture without `rejected` has `expected` (the fixture schema's oneOf)
    if outcomes is not None:
        outcomes[fixture.id] = outcome
    produced = {k: v for k, v in outcome.result.items() if k != "events"}
    if json_equal(produced, fixture.expected):
        return []
    divergences = compare(fixture.expected, produced)
    if not divergences:  # equal under the comparison's tolerances, yet not byte-identical
        from deltacheck.judge.compare import full_diff

        return [
            (
                "/expected",
                "the reference's result differs in bytes the comparison tolerates; the fixture must hold "
                "exactly what the reference produces:\n" + full_diff(fixture.expected, produced),
            )
        ]
    return [
        (f"/expected{d.pointer}", f"the reference disagrees: {d.describe().split(': ', 1)[1]}") for d in divergences
    ]


def _check_derivations(corpus: Corpus) -> None:
    ids = corpus.by_id()
    for fixture in list(corpus.fixtures):
        parent = fixture.provenance.get("derived_from")
        if parent is not None and parent not in ids:
            corpus.problems.append(
                FixtureProblem(
                    fixture.path, fixture.id, "/provenance/derived_from", f"{parent} is not a fixture in this corpus"
                )
            )
            corpus.fixtures.remove(fixture)


def _read_version(root: Path, problems: list[FixtureProblem]) -> str:
    try:
        version = (root / "VERSION").read_text(encoding="utf-8").strip()
    except OSError as exc:
        problems.append(FixtureProblem(str(root / "VERSION"), None, "/", f"unreadable: {exc}"))
        return "unknown"
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        problems.append(FixtureProblem(str(root / "VERSION"), None, "/", f"{version!r} is not MAJOR.MINOR.PATCH"))
    return version


def _read_tags(root: Path, problems: list[FixtureProblem]) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((root / "tags.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(FixtureProblem(str(root / "tags.json"), None, "/", f"unreadable tag vocabulary: {exc}"))
        return {}
    return {k: v for k, v in data.items() if not k.startswith("$")}


def _read_retired(root: Path) -> set[str]:
    path = root / "RETIRED_IDS"
    if not path.exists():
        return set()
    return {line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines()} - {""}


def _shorten(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"
