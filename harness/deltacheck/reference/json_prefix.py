"""Whether a text can still grow into one JSON value.

A reference assembler once used it to take an arguments fragment that re-sends the text so far as a
snapshot; the contract now appends every fragment (CONTRACT 3.3), and the mutant that puts that old
rule back (in its protocol's mutants.py) is what still asks.
"""

from __future__ import annotations

_LITERALS = ("true", "false", "null")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_WHITESPACE = frozenset(" \t\r\n")


def is_json_prefix(text: str) -> bool:
    """True when some continuation of `text` (possibly none) is exactly one JSON value.

    A scanner over the grammar's tokens, not a parser: numbers are checked only for their
    characters, which is enough to tell a fragment from a second value glued onto the first.
    """
    stack: list[str] = []  # open containers, "{" or "["
    expect = "value"  # value | key | colon | comma_or_end | done; plus "value_or_end", "key_or_end" after an opener
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
            continue
        if expect == "done":
            return False
        if expect in ("key", "key_or_end"):
            if ch == "}" and expect == "key_or_end":
                stack.pop()
                expect = _after_value(stack)
                i += 1
                continue
            if ch != '"':
                return False
            i = _skip_string(text, i)
            if i < 0:
                return True  # the key string is still open
            expect = "colon"
            continue
        if expect == "colon":
            if ch != ":":
                return False
            expect = "value"
            i += 1
            continue
        if expect == "comma_or_end":
            if ch == ",":
                expect = "key" if stack[-1] == "{" else "value"
            elif (ch == "}" and stack[-1] == "{") or (ch == "]" and stack[-1] == "["):
                stack.pop()
                expect = _after_value(stack)
            else:
                return False
            i += 1
            continue
        # a value is expected here
        if ch == "]" and expect == "value_or_end":
            stack.pop()
            expect = _after_value(stack)
            i += 1
        elif ch in "{[":
            stack.append(ch)
            expect = "key_or_end" if ch == "{" else "value_or_end"
            i += 1
        elif ch == '"':
            i = _skip_string(text, i)
            if i < 0:
                return True
            expect = _after_value(stack)
        elif ch in _NUMBER_CHARS:
            while i < n and text[i] in _NUMBER_CHARS:
                i += 1
            expect = _after_value(stack)
        elif ch.isalpha():
            start = i
            while i < n and text[i].isalpha():
                i += 1
            word = text[start:i]
            if i == n:
                return any(literal.startswith(word) for literal in _LITERALS)
            if word not in _LITERALS:
                return False
            expect = _after_value(stack)
        else:
            return False
    return True


def _after_value(stack: list[str]) -> str:
    return "comma_or_end" if stack else "done"


def _skip_string(text: str, start: int) -> int:
    """The index after the string that opens at `start`, or -1 when the text ends inside it."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return -1
