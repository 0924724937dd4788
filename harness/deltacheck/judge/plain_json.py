"""What an implementation returned, as plain JSON, or one line saying why it is not.

An in-process adapter can return any Python object, and a driver's reply can be nested as deeply
as its line allows. Everything after this point (schema checks, comparison, the results file)
recurses or serialises, so the judge takes a copy made only of dict, list, str, int, float, bool
and None, walked without recursion, before it looks at anything.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

# Far deeper than any canonical result (fixtures nest at most about a dozen levels), far shallower
# than what Python's recursion limit lets the schema checks and the comparison walk.
MAX_DEPTH = 64
# Enough for a result of tens of thousands of parts; bounds the walk of a value that shares itself
# exponentially (a list holding the same list twice, sixty levels down).
MAX_VALUES = 2_000_000
# Python writes an integer of at most this many digits (sys.get_int_max_str_digits by default).
MAX_INT_DIGITS = 4300
_INT_LIMIT = 10**MAX_INT_DIGITS
_STR = {str}
_LEAVES = {str, bool, type(None)}
_PLAIN = _LEAVES | {int, float, dict, list}
POINTER_SHOWN = 100  # characters of a pointer a message shows: a deep one is mostly repetition


class NotPlainJson(ValueError):
    """Where a value stops being plain JSON (a JSON pointer) and what was found there."""

    def __init__(self, pointer: str, problem: str) -> None:
        shown = pointer if len(pointer) <= POINTER_SHOWN else pointer[:POINTER_SHOWN] + "..."
        super().__init__(f"{shown or '/'}: {problem}")
        self.pointer, self.problem = pointer or "/", problem


def already_plain(value: Any) -> bool:
    """Whether `value` is plain JSON of exact types only, so it can be judged as it is (the common case,
    checked without a copy); False sends it to `plain_json` for a copy or the reason it is not.

    The types of a container's members are collected at C speed (`set(map(type, ...))`): most
    members are strings, None or booleans and need no look of their own.
    """
    if type(value) is not dict:
        return False
    pending = [(value, 1)]
    count = 0
    while pending:
        container, depth = pending.pop()
        count += len(container)
        if depth > MAX_DEPTH or count > MAX_VALUES:
            return False
        if type(container) is dict:
            if container and set(map(type, container)) != _STR:
                return False
            members: Any = container.values()
        else:
            members = container
        kinds = set(map(type, members))
        if kinds <= _LEAVES:
            continue
        if not kinds <= _PLAIN:
            return False
        for member in members:
            kind = type(member)
            if kind is dict or kind is list:
                pending.append((member, depth + 1))
            elif kind is int:
                if not -_INT_LIMIT < member < _INT_LIMIT:
                    return False
            elif kind is float and not math.isfinite(member):
                return False
    return True


def plain_json(value: Any) -> Any:
    """A copy of `value` made of plain JSON values only; raises NotPlainJson.

    Tuples are taken as arrays and subclasses of dict, list, str, int and float as their base type
    (read through the base type's own methods, so an overridden __eq__, __iter__ or __repr__ never
    runs), the way `json.dumps` writes them. Anything else, a key that is not a string, NaN or an
    infinity, an integer too long to write, a value that contains itself, or nesting deeper than
    MAX_DEPTH is refused.
    """
    root, children = _start(value, "")
    if children is None:
        return root
    stack: list[tuple[Iterator[tuple[Any, Any]], Any, str, int]] = [(children, root, "", id(value))]
    open_containers = {id(value)}
    count = 1
    while stack:
        items, target, pointer, own_id = stack[-1]
        for key, child in items:
            count += 1
            if count > MAX_VALUES:
                raise NotPlainJson("", f"holds more than {MAX_VALUES:,} values")
            here = f"{pointer}/{_escaped(key)}"
            plain, grandchildren = _start(child, here)
            if type(target) is dict:
                target[key] = plain
            else:
                target.append(plain)
            if grandchildren is not None:
                if id(child) in open_containers:
                    raise NotPlainJson(here, "contains itself (a reference to an enclosing object)")
                if len(stack) >= MAX_DEPTH:
                    raise NotPlainJson(here, f"nested deeper than {MAX_DEPTH} levels")
                stack.append((grandchildren, plain, here, id(child)))
                open_containers.add(id(child))
                break
        else:
            stack.pop()
            open_containers.discard(own_id)
    return root


def kind_of(value: Any) -> str:
    """A value's type name, without calling anything the value defines."""
    try:
        name = type(value).__qualname__
    except Exception:  # a metaclass can make even this raise
        return "an object"
    return name if type(name) is str else "an object"


def _start(value: Any, pointer: str) -> tuple[Any, Iterator[tuple[Any, Any]] | None]:
    """(the plain copy of a scalar or an empty container, an iterator over a container's (key, child))."""
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value, None
    # type() and issubclass, never isinstance: a value can claim any __class__.
    if kind is int or issubclass(kind, int):
        number = int.__index__(value)
        if -_INT_LIMIT < number < _INT_LIMIT:
            return number, None
        raise NotPlainJson(pointer, f"an integer of more than {MAX_INT_DIGITS} digits, too long to write")
    if issubclass(kind, float):
        real = float.__float__(value)
        if math.isfinite(real):
            return real, None
        raise NotPlainJson(pointer, f"{real!r}, which JSON cannot express (RFC 8259 has no NaN or infinity)")
    if issubclass(kind, str):
        return str.__str__(value), None
    if issubclass(kind, dict):
        return {}, _checked_items(value, pointer)
    if issubclass(kind, list):
        return [], enumerate(list.__iter__(value))
    if issubclass(kind, tuple):
        return [], enumerate(tuple.__iter__(value))
    raise NotPlainJson(pointer, f"a value of type {kind_of(value)}, which is not a JSON value")


def _checked_items(value: dict[Any, Any], pointer: str) -> Iterator[tuple[str, Any]]:
    for key, child in dict.items(value):
        if type(key) is not str:
            if not issubclass(type(key), str):
                raise NotPlainJson(pointer, f"a key of type {kind_of(key)} (JSON object keys are strings)")
            key = str.__str__(key)
        yield key, child


def _escaped(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
