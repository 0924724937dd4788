"""The compiled schema checks never pass a document jsonschema would reject (they are only a shortcut)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deltacheck.corpus.loader import DEFAULT_CORPUS, _validators, schema_problems
from deltacheck.protocols import PROTOCOLS
from deltacheck.corpus.schema_checks import _const_as_enum, compiled_checks

SCHEMA_DIR = str(DEFAULT_CORPUS / "schema")
CHECKS = compiled_checks(SCHEMA_DIR)
FIXTURE_V, RESULT_V, CHUNK_V = _validators(SCHEMA_DIR)
DOCUMENTS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((DEFAULT_CORPUS / "fixtures").rglob("*.json"))]

# Values that JSON Schema tells apart and Python's `==` does not, plus the kinds a field can wrongly hold.
ODD_VALUES = [None, True, False, 0, 1, 1.0, -1, 2**64, "", "x", "0", [], {}, [None], {"type": None}, 1.5]


def _agrees(check, validator, document) -> None:
    if check(document):
        assert schema_problems(validator, document) == [], json.dumps(document)[:300]


def test_the_two_agree_on_every_corpus_document() -> None:
    """Agreement both ways here: a corpus document the compiled check rejects would cost jsonschema's time."""
    for document in DOCUMENTS:
        assert CHECKS.fixture(document), document["id"]
        for position, chunk in enumerate(document["chunks"]):  # off-schema chunks fail both
            valid = not schema_problems(CHUNK_V[document["protocol"]], chunk)
            assert CHECKS.chunks[document["protocol"]](chunk) == valid, (document["id"], position)
        if document.get("expected") is not None:
            assert CHECKS.result(document["expected"]), document["id"]


def _paths(value, here=()):
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*here, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _paths(item, (*here, position))


def _mutated(document, path, replacement, delete: bool):
    out = copy.deepcopy(document)
    if not path:
        return replacement
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(replacement)
    return out


@st.composite
def mutations(draw, documents):
    document = draw(st.sampled_from(documents))
    paths = list(_paths(document))
    path = draw(st.sampled_from(paths))
    return _mutated(document, path, draw(st.sampled_from(ODD_VALUES)), draw(st.booleans()))


@settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutations(DOCUMENTS))
def test_a_mutated_fixture_passes_the_compiled_check_only_if_jsonschema_passes_it(document) -> None:
    _agrees(CHECKS.fixture, FIXTURE_V, document)


CHUNKS = [(d["protocol"], c) for d in DOCUMENTS for c in d["chunks"] if isinstance(c, dict)]


@settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(CHUNKS), st.data())
def test_a_mutated_chunk_passes_the_compiled_check_only_if_jsonschema_passes_it(pair, data) -> None:
    protocol, chunk = pair
    _agrees(CHECKS.chunks[protocol], CHUNK_V[protocol], data.draw(mutations([chunk])))


RESULTS = [d["expected"] for d in DOCUMENTS if d.get("expected") is not None]


@settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutations(RESULTS))
def test_a_mutated_result_passes_the_compiled_check_only_if_jsonschema_passes_it(result) -> None:
    _agrees(CHECKS.result, RESULT_V, result)


def test_const_becomes_a_one_value_enum_and_property_names_stay() -> None:
    schema = {"properties": {"const": {"const": "a"}, "type": {"enum": ["x", "y"], "const": "y"}}}
    assert _const_as_enum(schema) == {"properties": {"const": {"enum": ["a"]}, "type": {"enum": ["y"]}}}


def test_a_schema_comparing_numbers_or_booleans_is_left_to_jsonschema(tmp_path: Path) -> None:
    for name in ("fixture.schema.json", "result.schema.json", "chunks.schema.json"):
        document = json.loads((DEFAULT_CORPUS / "schema" / name).read_text(encoding="utf-8"))
        if name == "result.schema.json":
            document["properties"]["flag"] = {"const": True}  # Python's == says 1 is True; JSON does not
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    checks = compiled_checks(str(tmp_path))
    assert not checks.result(RESULTS[0]) and not checks.fixture(DOCUMENTS[0])
    assert not any(checks.chunks[p](CHUNKS[0][1]) for p in PROTOCOLS)
