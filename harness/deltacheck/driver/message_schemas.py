"""The driver protocol's JSON Schemas (harness/deltacheck/driver/schemas/protocol/), one per message, and their checks."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas" / "protocol"
MESSAGES = ("start-request", "start-reply", "run-request", "run-reply", "stop-request")
REPLY_KINDS = ("result", "errored", "skipped")
PROBLEM_CHARS = 200


@cache
def schema(message: str) -> dict[str, Any]:
    if message not in MESSAGES:
        raise ValueError(f"no protocol message {message!r}; known: {', '.join(MESSAGES)}")
    return json.loads((SCHEMA_DIR / f"{message}.schema.json").read_text(encoding="utf-8"))


@cache
def _validator(message: str) -> jsonschema.Validator:
    import jsonschema  # noqa: PLC0415 - on the first driver message, not when the CLI starts (~45 ms)

    return jsonschema.Draft202012Validator(schema(message))


def message_problems(message: str, document: Any) -> list[str]:
    """`pointer: message` for each way `document` breaks the schema of `message`; [] when it is valid."""
    validator = _validator(message)
    if validator.is_valid(document):  # the hot path: one cheap pass, messages only on failure
        return []
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        pointer = "".join(f"/{p}" for p in error.absolute_path) or "/"
        if message == "run-reply" and error.validator == "oneOf" and not error.absolute_path:
            carried = [kind for kind in REPLY_KINDS if isinstance(document, dict) and kind in document]
            problems.append(
                f"/: a run reply carries exactly one of {', '.join(REPLY_KINDS)}; "
                f"this one carries {', '.join(carried) or 'none'}"
            )
        else:  # jsonschema quotes the whole offending value: a reply can make that megabytes
            text = error.message if len(error.message) <= PROBLEM_CHARS else error.message[:PROBLEM_CHARS] + "..."
            problems.append(f"{pointer}: {text}")
    return problems
