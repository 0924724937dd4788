"""What "valid JSON" means wherever the harness decides it: the JSON specification (RFC 8259), not
whatever Python's json.loads happens to accept.

json.loads reads NaN, Infinity and -Infinity, which are not JSON, and refuses an integer longer than
sys.get_int_max_str_digits() or a value nested deeper than the recursion limit, which are. Lint, the
reference's flagging of calls that cannot run, the comparator and gateway validity all ask here.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2.6, absent from typeshed
from typing import Any, NoReturn


class NotJson(ValueError):
    """The text is not one JSON value (RFC 8259)."""


class TooDeepToRead(ValueError):
    """The text is JSON, nested deeper than Python's parser can build."""


NON_JSON_WORDS = "NaN, Infinity and -Infinity are not JSON (RFC 8259)"
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = ("true", "false", "null")
_CLOSER = {"[": "]", "{": "}"}


def refuse_non_json_word(word: str) -> NoReturn:
    """json.loads's parse_constant: the words it would accept are not JSON."""
    raise NotJson(f"{word}: {NON_JSON_WORDS}")


def _not_converted(_token: str) -> None:
    return None  # validity needs no number's value, and converting one is where Python has limits


def is_json(text: Any) -> bool:
    """Whether `text` is exactly one JSON value, surrounded by JSON whitespace only (RFC 8259)."""
    if not isinstance(text, str):
        return False
    try:
        json.loads(text, parse_int=_not_converted, parse_float=_not_converted, parse_constant=refuse_non_json_word)
    except RecursionError:
        return _is_json_without_recursion(text)
    except ValueError:
        return False
    return True


def _exact_integer(token: str) -> int | Decimal:
    try:
        return int(token)
    except ValueError:  # more digits than Python converts to an int: Decimal holds it exactly
        return Decimal(token)


def _exact_number(token: str) -> float | Decimal:
    value = float(token)
    return value if math.isfinite(value) else Decimal(token)  # 1e400 is a number, not infinity


def parse(text: str) -> Any:
    """The JSON value of `text`, every number kept exactly (a Decimal where int or float cannot hold it).

    Raises NotJson when the text is not JSON, TooDeepToRead when it is JSON nested too deep to build.
    """
    try:
        return json.loads(
            text, parse_int=_exact_integer, parse_float=_exact_number, parse_constant=refuse_non_json_word
        )
    except RecursionError:
        if _is_json_without_recursion(text):
            raise TooDeepToRead("JSON nested deeper than the harness can read") from None
        raise NotJson("not JSON") from None
    except NotJson:
        raise
    except ValueError as exc:
        raise NotJson(str(exc)) from None


def finite_float(token: str) -> float:
    """json.loads's parse_float for documents the harness keeps as Python values (fixtures): a number
    beyond a double's range would come back as infinity, and be written out as `Infinity`."""
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(f"the number {token[:40]} is beyond the range the harness reads (a 64-bit float)")
    return value


def _skip_whitespace(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _end_of_string(text: str, position: int) -> int:
    """Where the string starting at `position` ends, or -1 when none starts there or it is broken."""
    if not text.startswith('"', position):
        return -1
    try:
        return scanstring(text, position + 1, True)[1]
    except ValueError:
        return -1


def _end_of_key(text: str, position: int) -> int:
    """After `"key" :` and the whitespace that follows, or -1."""
    position = _end_of_string(text, position)
    if position < 0:
        return -1
    position = _skip_whitespace(text, position)
    if not text.startswith(":", position):
        return -1
    return _skip_whitespace(text, position + 1)


def _end_of_scalar(text: str, position: int) -> int:
    if text.startswith('"', position):
        return _end_of_string(text, position)
    number = _NUMBER.match(text, position)
    if number:
        return number.end()
    word = next((w for w in _LITERALS if text.startswith(w, position)), None)
    return position + len(word) if word else -1


def _is_json_without_recursion(text: str) -> bool:
    """The grammar checked with an explicit stack: for values nested deeper than json.loads can go."""
    open_brackets: list[str] = []
    position = _skip_whitespace(text, 0)
    while True:
        # A value starts at `position`: open a container, or read a scalar.
        if text.startswith(("[", "{"), position):
            bracket = text[position]
            open_brackets.append(bracket)
            position = _skip_whitespace(text, position + 1)
            if text.startswith(_CLOSER[bracket], position):
                open_brackets.pop()
                position += 1
            else:
                if bracket == "{":
                    position = _end_of_key(text, position)
                    if position < 0:
                        return False
                continue
        else:
            position = _end_of_scalar(text, position)
            if position < 0:
                return False
        # A value ended: close containers until a comma asks for the next value.
        while True:
            position = _skip_whitespace(text, position)
            if not open_brackets:
                return position == len(text)
            if text.startswith(",", position):
                position = _skip_whitespace(text, position + 1)
                if open_brackets[-1] == "{":
                    position = _end_of_key(text, position)
                    if position < 0:
                        return False
                break
            if not text.startswith(_CLOSER[open_brackets[-1]], position):
                return False
            open_brackets.pop()
            position += 1
