"""Text that arrives in fragments, kept so that adding a fragment costs that fragment only.

`text += fragment` on an attribute copies the whole text every time: a stream of N fragments then
costs N² characters. `Fragments` keeps the pieces in a list and joins them when the text is read
(once, as a rule: the join is kept). `JsonFragments` also knows, at any time, whether the text is
one whole JSON value, from a scanner state each fragment advances instead of a parse of everything.
"""

from __future__ import annotations

import re

from deltacheck.json_spec import is_json

JSON_WHITESPACE = " \t\r\n"
_STRUCTURE = re.compile(r'[{}\[\]"]')  # what changes the nesting outside strings
_STRING_STOP = re.compile(r'["\\]')  # what can end a string, or escape the character that would
_LITERALS = ("null", "true", "false")  # JSON's bare words (json.loads also takes NaN and Infinity: not JSON)


class Fragments:
    """A text assembled from fragments: `append` costs the fragment, `text()` joins once."""

    __slots__ = ("_pieces", "length")

    def __init__(self, text: str = "") -> None:
        self._pieces: list[str] = [text] if text else []
        self.length = len(text)

    def append(self, piece: str) -> None:
        if piece:
            self._pieces.append(piece)
            self.length += len(piece)

    def text(self) -> str:
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""


# Where the text stands against "one JSON value, surrounded by JSON whitespace" (RFC 8259; json_spec.is_json).
_BEFORE = "before"  # only whitespace so far
_NESTED = "nested"  # inside an object, an array or a top-level string
_BARE = "bare"  # inside a top-level number or word (true, NaN, -Infinity...)
_AFTER = "after"  # one whole valid value, then only whitespace
_BROKEN = "broken"  # no continuation can make it one JSON value

# A deterministic automaton for json's number grammar, -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?:
# state -> {character class -> next state}; states 2, 3, 5 and 8 end a whole number.
_DIGITS = "0123456789"
_NUMBER_MOVES: dict[int, dict[str, int]] = {
    0: {"-": 1, "0": 2, **dict.fromkeys("123456789", 3)},
    1: {"0": 2, **dict.fromkeys("123456789", 3)},
    2: {".": 4, "e": 6, "E": 6},
    3: {**dict.fromkeys(_DIGITS, 3), ".": 4, "e": 6, "E": 6},
    4: dict.fromkeys(_DIGITS, 5),
    5: {**dict.fromkeys(_DIGITS, 5), "e": 6, "E": 6},
    6: {"+": 7, "-": 7, **dict.fromkeys(_DIGITS, 8)},
    7: dict.fromkeys(_DIGITS, 8),
    8: dict.fromkeys(_DIGITS, 8),
}
_INTEGER_ENDS = frozenset({2, 3})
_FRACTION_ENDS = frozenset({5, 8})


class JsonFragments(Fragments):
    """Fragments of JSON text that know whether they form one whole JSON value so far.

    `is_complete` is exactly `json_spec.is_json(text)`: each fragment is scanned once for what
    changes the nesting (brackets and strings, escapes included, across fragment boundaries); when
    the top-level value closes, is_json checks it once. Any valid continuation of a text is
    tokenised as the scanner does, so a value that closes invalid (or brackets that do not match)
    stays invalid whatever follows, and a closed valid value stays whole while only whitespace follows.
    """

    __slots__ = ("_state", "_open", "_in_string", "_escaped", "_number", "_word")

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._state = _BEFORE
        self._open: list[str] = []  # the brackets still open, "{" or "["
        self._in_string = False
        self._escaped = False
        self._number: int | None = 0  # the number automaton's state for a bare value; None: not a number
        self._word: str | None = ""  # a bare value's characters while they can still spell a literal; else None
        self.append(text)

    @property
    def is_complete(self) -> bool:
        if self._state == _BARE:  # an integer of any length is JSON, however many digits Python converts
            return self._number in _INTEGER_ENDS or self._number in _FRACTION_ENDS or self._word in _LITERALS
        return self._state == _AFTER

    def append(self, piece: str) -> None:
        if not piece:
            return
        # The common case: a piece inside a string that neither ends it nor escapes changes nothing.
        inside_a_string = self._state == _NESTED and self._in_string and not self._escaped
        if self._state != _BROKEN and not (inside_a_string and _STRING_STOP.search(piece) is None):
            self._scan(piece)
        self._pieces.append(piece)
        self.length += len(piece)

    def _scan(self, piece: str) -> None:
        i = 0
        while i < len(piece) and self._state != _BROKEN:
            if self._state == _BEFORE:
                i = self._start_value(piece, i)
            elif self._state == _NESTED:
                i = self._scan_nested(piece, i)
            elif self._state == _BARE:
                i = self._scan_bare(piece, i)
            else:  # _AFTER: only whitespace may follow a whole value
                if piece[i:].strip(JSON_WHITESPACE):
                    self._state = _BROKEN
                return

    def _start_value(self, piece: str, i: int) -> int:
        rest = piece[i:].lstrip(JSON_WHITESPACE)
        if not rest:
            return len(piece)
        i = len(piece) - len(rest)
        if rest[0] in "{[":
            self._open.append(rest[0])
            self._state = _NESTED
            return i + 1
        if rest[0] == '"':
            self._in_string = True
            self._state = _NESTED
            return i + 1
        self._state = _BARE
        return i

    def _scan_nested(self, piece: str, i: int) -> int:
        """Advance through an object, array or top-level string; the index where scanning stopped."""
        while i < len(piece):
            if self._escaped:
                self._escaped = False
                i += 1
                continue
            if self._in_string:
                stop = _STRING_STOP.search(piece, i)
                if stop is None:
                    return len(piece)
                i = stop.end()
                if stop.group() == "\\":
                    self._escaped = True
                    continue
                self._in_string = False
            else:
                stop = _STRUCTURE.search(piece, i)
                if stop is None:
                    return len(piece)
                i, char = stop.end(), stop.group()
                if char == '"':
                    self._in_string = True
                    continue
                if char in "{[":
                    self._open.append(char)
                    continue
                if not self._open or self._open.pop() != ("{" if char == "}" else "["):
                    self._state = _BROKEN
                    return i
            if not self._open and not self._in_string:  # the top-level value just closed
                whole = is_json(self.text() + piece[:i])
                self._state = _AFTER if whole else _BROKEN
                return i
        return i

    def _scan_bare(self, piece: str, i: int) -> int:
        """Advance through a top-level number or word, up to the whitespace that ends it."""
        while i < len(piece):
            char = piece[i]
            if char in JSON_WHITESPACE:
                self._state = _AFTER if self.is_complete else _BROKEN
                return i
            if self._number is not None:
                self._number = _NUMBER_MOVES[self._number].get(char)
            if self._word is not None:
                self._word += char
                if not any(literal.startswith(self._word) for literal in _LITERALS):
                    self._word = None
            if self._number is None and self._word is None:
                self._state = _BROKEN
                return i
            i += 1
        return i
