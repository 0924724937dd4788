"""The corpus schemas compiled to Python (fastjsonschema): a cheap "valid" on the hot paths.

Lint checks every fixture and every chunk, and the judge every result; jsonschema's validators
walk each document interpreting the schema (25-50 µs a chunk), where compiled code answers in 1-2
µs. A compiled check only ever says "valid, nothing to report": on any other answer the caller asks
jsonschema, whose messages (and verdict) are the ones reported. So a document the two libraries
judge differently is at worst checked twice, never let through unchecked by jsonschema's rules,
provided the compiled check is no more lenient; `tests/test_schema_checks.py` holds them to agreeing.

The schemas are written for draft 2020-12; the compiler knows draft 7, which has every keyword they
use with the same meaning (no `$ref` has sibling keywords, the one place where the drafts differ).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema

from deltacheck.protocols import PROTOCOLS

SCHEMA_FILES = ("fixture.schema.json", "result.schema.json", "chunks.schema.json")
DRAFT_7 = "http://json-schema.org/draft-07/schema#"

Check = Callable[[Any], bool]


def _never(document: Any) -> bool:
    return False


@dataclass(frozen=True)
class CompiledChecks:
    fixture: Check
    result: Check
    chunks: dict[str, Check]  # by protocol


# Keywords whose value maps names to schemas: the names are data, never keywords to rewrite.
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def _const_as_enum(schema: Any) -> Any:
    """`const: x` as `enum: [x]`, which means the same: the compiler cannot write `const` without the
    detailed exception messages, which quintuple the generated code (and its start-up cost)."""
    if isinstance(schema, list):
        return [_const_as_enum(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _const_as_enum(sub) for name, sub in value.items()}
        elif key == "const":
            out["enum"] = [value] if "enum" not in schema else [v for v in schema["enum"] if v == value]
        elif key in ("enum", "default", "examples"):  # values, not schemas
            out.setdefault(key, value)
        else:
            out[key] = _const_as_enum(value)
    return out


def _values_compare_as_json(schema: Any) -> bool:
    """Whether every `const`/`enum` value is text or null: the compiled code compares with Python's
    `==`, for which `true == 1`, where JSON Schema tells them apart."""
    if isinstance(schema, list):
        return all(_values_compare_as_json(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    for key, value in schema.items():
        if key in SCHEMA_MAPS and isinstance(value, dict):
            if not all(_values_compare_as_json(sub) for sub in value.values()):
                return False
            continue
        if key == "const" and not (value is None or isinstance(value, str)):
            return False
        if key == "enum" and not all(v is None or isinstance(v, str) for v in value):
            return False
        if key not in ("const", "enum", "default", "examples") and not _values_compare_as_json(value):
            return False
    return True


@cache
def compiled_checks(schema_dir: str) -> CompiledChecks:
    root = Path(schema_dir)
    documents = {name: json.loads((root / name).read_text(encoding="utf-8")) for name in SCHEMA_FILES}
    if not _values_compare_as_json(list(documents.values())):
        return CompiledChecks(_never, _never, {protocol: _never for protocol in PROTOCOLS})  # jsonschema decides all
    documents = {name: _const_as_enum(document) for name, document in documents.items()}
    by_id = {document["$id"]: document for document in documents.values()}

    def fetch(uri: str) -> dict[str, Any]:  # a `$ref` to another corpus schema, by its `$id`; never the network
        return by_id[uri.split("#", 1)[0]]

    handlers = {scheme: fetch for scheme in {uri.split(":", 1)[0] for uri in by_id}}

    def compiled(schema: dict[str, Any]) -> Check:
        validate = fastjsonschema.compile(
            {**schema, "$schema": DRAFT_7},
            handlers=handlers,
            use_formats=False,
            use_default=False,
            detailed_exceptions=False,
        )

        def is_valid(document: Any) -> bool:
            try:
                validate(document)
            except RecursionError:
                raise  # a document nested too deeply is reported by the caller, as with jsonschema
            except Exception:  # noqa: BLE001 - not proven valid: jsonschema decides and explains
                return False
            return True

        return is_valid

    chunks_id = documents["chunks.schema.json"]["$id"]
    return CompiledChecks(
        fixture=compiled(documents["fixture.schema.json"]),
        result=compiled(documents["result.schema.json"]),
        chunks={protocol: compiled({"$ref": f"{chunks_id}#/$defs/{protocol}"}) for protocol in PROTOCOLS},
    )


@cache
def compiled_schema_check(schema_path: str) -> Check:
    """One standalone schema file (no `$ref` to others) compiled the same way: valid, or ask jsonschema."""
    document = json.loads(Path(schema_path).read_text(encoding="utf-8"))
    if not _values_compare_as_json(document):
        return _never
    validate = fastjsonschema.compile(
        {**_const_as_enum(document), "$schema": DRAFT_7},
        use_formats=False,
        use_default=False,
        detailed_exceptions=False,
    )

    def is_valid(data: Any) -> bool:
        try:
            validate(data)
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - not proven valid: jsonschema decides and explains
            return False
        return True

    return is_valid
