"""What a fixture's expected result rests on: its `basis`, checked against the server vocabulary and the contract.

Three kinds (corpus/README.md, *Basis*): `documented`, the provider's own documentation of its stream,
cited by URL; `observed`, a shape real servers send, cited by report, with the servers named from
corpus/servers.json; `policy`, the contract's choice where providers are silent, cited by its
CONTRACT.md section. The report's severity of a failure follows from it, so lint holds every
fixture to naming one it can back.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from deltacheck.corpus.schema_checks import compiled_schema_check
from deltacheck.errors import FixtureProblem
from deltacheck.locations import CONTRACT_PATH
from deltacheck.protocols.spec import Protocol

SERVERS_FILE = "servers.json"
SERVERS_SCHEMA = "servers.schema.json"
PLACEHOLDER = "TODO"  # how a draft's basis begins until its contributor decides it
HOW_TO_CHOOSE = "corpus/README.md, Basis"

_URL = re.compile(r"https?://[^\s)\]>,;\"']+")
_CONTRACT_SECTION = re.compile(r"CONTRACT\.md (\d+(?:\.\d+)*)")
_SECTION_HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)


def read_servers(corpus_root: Path, protocols: tuple[Protocol, ...]) -> tuple[dict[str, Any], list[FixtureProblem]]:
    """The server vocabulary by slug, and what is wrong with it (each protocol's provider must be in it)."""
    path = corpus_root / SERVERS_FILE
    where = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {}, [FixtureProblem(where, None, "/", f"unreadable server vocabulary: {exc}")]
    schema = corpus_root / "schema" / SERVERS_SCHEMA
    if schema.is_file() and (problem := _schema_problem(data, str(schema))) is not None:
        return {}, [FixtureProblem(where, None, *problem)]
    if not isinstance(data, dict):
        return {}, [FixtureProblem(where, None, "/", "not an object of server slugs")]
    servers = {slug: entry for slug, entry in data.items() if not slug.startswith("$")}
    problems = []
    for spec in protocols:
        if spec.provider not in servers:
            problems.append(
                FixtureProblem(
                    where, None, "/", f"no entry for {spec.provider!r}, the provider of the protocol {spec.name}"
                )
            )
        elif not servers[spec.provider].get("documentation"):
            problems.append(
                FixtureProblem(
                    where,
                    None,
                    f"/{spec.provider}",
                    f"the provider of {spec.name} lists no `documentation` URL prefixes for documented bases to cite",
                )
            )
    return servers, problems


def basis_problems(basis: dict[str, Any], spec: Protocol, servers: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, message) for every way a schema-valid basis fails to back the fixture's expected result."""
    kind, source = basis["kind"], basis["source"]
    if source.startswith(PLACEHOLDER):
        return [
            (
                "/basis",
                f"not decided: say what the expected result rests on, documented, observed or policy "
                f"({HOW_TO_CHOOSE}), and replace the {PLACEHOLDER} source with its citation",
            )
        ]
    out = []
    named = basis.get("servers")
    if kind == "observed":
        if not named:
            out.append(
                (
                    "/basis/servers",
                    f"an observed basis lists the servers that send this shape (slugs of corpus/{SERVERS_FILE})",
                )
            )
        for position, slug in enumerate(named or ()):
            if slug not in servers:
                out.append(
                    (f"/basis/servers/{position}", f"unknown server {slug!r} (vocabulary: corpus/{SERVERS_FILE})")
                )
    elif named is not None:
        out.append(
            (
                "/basis/servers",
                f"only an observed basis names servers; a {kind} basis rests on "
                + ("the provider's documentation" if kind == "documented" else "the contract's choice"),
            )
        )
    if kind == "policy":
        out.extend(("/basis/source", message) for message in _policy_source_problems(source, spec))
    elif kind == "documented":
        prefixes = tuple(servers.get(spec.provider, {}).get("documentation") or ())
        if prefixes and not any(url.startswith(prefixes) for url in _URL.findall(source)):
            out.append(
                (
                    "/basis/source",
                    f"a documented basis cites {spec.provider}'s documentation of its stream by URL "
                    f"({', '.join(prefixes)}...); where the provider says nothing, the basis is policy or observed",
                )
            )
    return out


def _policy_source_problems(source: str, spec: Protocol) -> list[str]:
    cited = _CONTRACT_SECTION.findall(source)
    if not cited:
        return [
            f'a policy basis names the CONTRACT.md section whose rule chose the result ("CONTRACT.md 3.3 {spec.name} rule N")'
        ]
    sections = contract_sections()
    if not sections:  # no CONTRACT.md to read (a partial install): the citation's form is all that can be checked
        return []
    return [f"CONTRACT.md has no section {number}" for number in cited if number not in sections]


@cache
def contract_sections(contract: Path = CONTRACT_PATH) -> frozenset[str]:
    """The numbers of CONTRACT.md's sections ("2", "3.3", ...), or none when it cannot be read."""
    try:
        text = contract.read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    return frozenset(_SECTION_HEADING.findall(text))


def _schema_problem(data: Any, schema_path: str) -> tuple[str, str] | None:
    """(pointer, message) of the first violation of a standalone schema, or None."""
    if compiled_schema_check(schema_path)(data):
        return None
    import jsonschema  # noqa: PLC0415 - only to explain a document the compiled check did not pass

    validator = jsonschema.Draft202012Validator(json.loads(Path(schema_path).read_text(encoding="utf-8")))
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is None:
        return None
    return "/" + "/".join(str(p) for p in error.absolute_path), error.message
