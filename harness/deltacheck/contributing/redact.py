"""Redact a captured stream so it can be published, without changing what it tests.

Every replaced string goes through one `Cipher`: a keyed substitution of each character by another
of the same kind (lower-case letter, upper-case letter, digit, a non-ASCII character of the same
UTF-8 length); everything else (punctuation, spaces, escapes, astral characters) is kept. So:

* the same value always becomes the same replacement, and different values different ones (each
  character is mapped by a bijection);
* it works piece by piece: redacting fragments one by one gives the redaction of their join, so a
  stream cut anywhere (inside a word, an escape, a multi-byte character) is cut at the same points
  after, and a text the deltas assembled to is the text the redacted deltas assemble to;
* prefixes that carry meaning (`call_`, `fc_`, `toolu_`, `msg_`, `resp_`, ...) are kept.

Tool-call arguments are JSON text cut into fragments: each call's fragments are joined, read as
JSON (keys and structure kept, string values ciphered, `\\uXXXX` escapes ciphered as escapes), and
cut again at the original points. Values under structural keys (`type`, `role`, `name`, `status`,
finish reasons, ...) are kept; with `keep_text` free text (message text, reasoning, tool-argument
values) is kept too, while ids, model names and fingerprints are still replaced. Whatever looks like
an API key or a bearer token is overwritten in every mode.

Which fields hold structure, free text and ids, the prefixes ids carry, and where a tool call's argument
text arrives in fragments are each protocol's own (`redaction` in its package); the substitution here
is the same for every protocol.
"""

from __future__ import annotations

import json
import random
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from deltacheck import protocols

# Every protocol's vocabulary applies to every stream (redaction has always read one vocabulary for all):
# a field is redacted alike in whichever protocol's stream it turns up, a gateway's mix included.
_VOCABULARIES = [p.part("redaction") for p in protocols.all_protocols()]
# Values under these keys are the stream's structure, not content: never replaced.
STRUCTURAL_KEYS = frozenset().union(*(v.STRUCTURAL_KEYS for v in _VOCABULARIES))
# Free text the contributor may own (kept with keep_text).
TEXT_KEYS = frozenset().union(*(v.TEXT_KEYS for v in _VOCABULARIES))
# Identifiers: a meaningful prefix is kept (the longest, should one extend another), the rest replaced.
ID_KEYS = frozenset().union(*(v.ID_KEYS for v in _VOCABULARIES))
MEANINGFUL_PREFIXES = tuple(sorted({p for v in _VOCABULARIES for p in v.ID_PREFIXES}, key=lambda p: (-len(p), p)))
# A tool call's whole argument JSON text (a string), and arguments already parsed (an object whose keys are the tool's).
ARGUMENT_TEXT_KEYS = frozenset().union(*(v.ARGUMENT_TEXT_KEYS for v in _VOCABULARIES))
TOOL_INPUT_KEYS = frozenset().union(*(v.TOOL_INPUT_KEYS for v in _VOCABULARIES))

SECRET = re.compile(
    r"(?:sk-(?:proj-|ant-(?:[a-z]+\d*-)?|svcacct-)?[A-Za-z0-9_\-]{20,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}|hf_[A-Za-z0-9]{30,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"
)
SECRET_MARK = "X"

# Non-ASCII ranges whose characters are permuted among themselves (same UTF-8 length; no surrogates).
_RANGES = ((0x00C0, 0x0800), (0x0800, 0xD800))


def _looks_secret(match: re.Match) -> bool:
    """A key mixes letters and digits; a hyphenated English phrase (`task-based-...`) does not."""
    body = match.group()
    return bool(re.search(r"\d", body) and re.search(r"[A-Za-z]", body[3:]))


def find_secrets(text: str) -> list[re.Match]:
    return [m for m in SECRET.finditer(text) if _looks_secret(m)]


def scrub_secrets(text: str) -> str:
    """Each secret-looking run overwritten with as many X's (so fragment cut points stay where they were)."""
    return SECRET.sub(lambda m: SECRET_MARK * len(m.group()) if _looks_secret(m) else m.group(), text)


class Cipher:
    """A keyed bijection on characters, applied one character at a time (see the module docstring)."""

    def __init__(self, seed: int | None = None) -> None:
        rng = random.Random(secrets.randbits(64) if seed is None else seed)
        table: dict[int, int] = {}
        for alphabet in ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"):
            shuffled = list(alphabet)
            while True:
                rng.shuffle(shuffled)
                if all(a != b for a, b in zip(alphabet, shuffled)):  # no character stays itself
                    break
            table.update({ord(a): ord(b) for a, b in zip(alphabet, shuffled)})
        self._ascii = table
        self._affine = []
        for low, high in _RANGES:
            # x -> a*x + b (mod size) is a bijection when a is coprime to size, and has no fixed point
            # (no character stays itself) when gcd(a - 1, size) does not divide b.
            size = high - low
            multiplier = rng.randrange(2, size)
            while _gcd(multiplier, size) != 1 or _gcd(multiplier - 1, size) == 1:
                multiplier = rng.randrange(2, size)
            step = _gcd(multiplier - 1, size)
            offset = rng.randrange(1, size)
            while offset % step == 0:
                offset = rng.randrange(1, size)
            self._affine.append((low, high, multiplier, offset))

    def char(self, code: int) -> int:
        if code < 0x80:
            return self._ascii.get(code, code)
        for low, high, multiplier, offset in self._affine:
            if low <= code < high:
                return low + (multiplier * (code - low) + offset) % (high - low)
        return code

    def text(self, value: str) -> str:
        return "".join(chr(self.char(ord(ch))) for ch in value)

    def identifier(self, value: str) -> str:
        """A prefix that carries meaning is kept; the rest is ciphered."""
        prefix = next((p for p in MEANINGFUL_PREFIXES if value.startswith(p)), "")
        return prefix + self.text(value[len(prefix) :])


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def redact_json_text(text: str, replace: Callable[[str], str]) -> str:
    """JSON text (complete or cut anywhere) with every string value's characters passed through `replace`.

    Keys, structure, numbers, literals and escape sequences stay; `\\uXXXX` escapes of letters, digits and
    non-ASCII characters are replaced by the escape of the replaced character. The result has the same
    length, so every position in it corresponds to the same position in `text`.
    """
    out: list[str] = []
    stack: list[str] = []
    expect_key = False
    in_string = is_key = False
    i = 0
    while i < len(text):
        ch = text[i]
        if not in_string:
            out.append(ch)
            if ch == '"':
                in_string, is_key = True, bool(stack) and stack[-1] == "{" and expect_key
            elif ch in "{[":
                stack.append(ch)
                expect_key = ch == "{"
            elif ch in "}]":
                if stack:
                    stack.pop()
                expect_key = False
            elif ch == ":":
                expect_key = False
            elif ch == ",":
                expect_key = bool(stack) and stack[-1] == "{"
            i += 1
            continue
        if ch == '"':
            out.append(ch)
            in_string = False
            i += 1
        elif ch == "\\":
            escape = text[i : i + 6]
            if re.fullmatch(r"\\u[0-9A-Fa-f]{4}", escape):
                code = int(escape[2:], 16)
                if is_key or 0xD800 <= code < 0xE000:
                    out.append(escape)
                else:
                    new = ord(replace(chr(code)))
                    digits = f"{new:04x}"
                    out.append("\\u" + (digits.upper() if escape[2:].isupper() else digits))
                i += 6
            else:  # a short escape, or one cut off by the end of the text: kept as it is
                partial = re.match(r"\\u[0-9A-Fa-f]{0,3}\Z", text[i:])
                piece = partial.group() if partial else text[i : i + 2]
                out.append(piece)
                i += len(piece)
        else:
            out.append(ch if is_key else replace(ch))
            i += 1
    return "".join(out)


@dataclass
class Redactor:
    """Redacts one stream's chunks (see `redact_chunks`)."""

    cipher: Cipher
    keep_text: bool = False
    # Argument fragments already redacted as part of their call's whole text: id(holder dict) -> {key: text}.
    fragments: dict[int, dict[str, str]] = field(default_factory=dict)

    def string(self, key: str | None, value: str) -> str:
        value = scrub_secrets(value)
        if key in STRUCTURAL_KEYS or (self.keep_text and key in TEXT_KEYS):
            return value
        return self.cipher.identifier(value) if key in ID_KEYS else self.cipher.text(value)

    def arguments(self, value: str) -> str:
        """Argument JSON text: string values replaced, everything else kept, the length unchanged."""
        value = scrub_secrets(value)
        if self.keep_text:
            return value
        return redact_json_text(value, self.cipher.text)

    def json_value(self, value: Any) -> Any:
        """Parsed tool input: keys kept, string values replaced as argument values are."""
        if isinstance(value, str):
            value = scrub_secrets(value)
            return value if self.keep_text else self.cipher.text(value)
        if isinstance(value, list):
            return [self.json_value(item) for item in value]
        if isinstance(value, dict):
            return {k: self.json_value(v) for k, v in value.items()}
        return value

    def walk(self, value: Any, key: str | None = None) -> Any:
        """A redacted copy of a chunk (or any part of one found under `key`)."""
        if isinstance(value, str):
            return self.string(key, value)
        if isinstance(value, list):
            return [self.walk(item, key) for item in value]
        if not isinstance(value, dict):
            return value
        done = self.fragments.get(id(value), {})
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k in done:
                out[k] = done[k]
            elif k in ARGUMENT_TEXT_KEYS and isinstance(v, str):
                out[k] = self.arguments(v)  # a whole text (a done event, an output item)
            elif k in TOOL_INPUT_KEYS and isinstance(v, (dict, list)):
                out[k] = self.json_value(v)  # its keys are the tool's, never the stream's structure
            else:
                out[k] = self.walk(v, k)
        if isinstance(out.get("token"), str) and isinstance(out.get("bytes"), list):
            out["bytes"] = list(out["token"].encode("utf-8"))  # logprob bytes spell the token
        return out


def redact_chunks(protocol: str, chunks: list[Any], cipher: Cipher, keep_text: bool = False) -> list[Any]:
    """The chunks redacted (a new list; the input is not changed)."""
    redactor = Redactor(cipher, keep_text)
    # Argument fragments first: each call's fragments are read as one JSON text, then cut where they were.
    calls: dict[tuple, list[tuple[Any, str]]] = {}
    for call, holder, key in protocols.protocol(protocol).part("redaction").argument_fragments(chunks):
        calls.setdefault(call, []).append((holder, key))
    for pieces in calls.values():
        for text, places in _runs(pieces):
            redacted = redactor.arguments(text)
            for holder, key, start, end in places:
                redactor.fragments.setdefault(id(holder), {})[key] = redacted[start:end]
    return [redactor.walk(chunk) for chunk in chunks]


def _runs(pieces: list[tuple[Any, str]]) -> list[tuple[str, list[tuple[Any, str, int, int]]]]:
    """A call's fragments as the texts they build: each fragment continues the text so far, except one
    that re-sends the whole text so far and more (cumulative streaming), which starts the text anew.

    Each run is (its text, where each of its fragments sits in it); a JSON text is read from its start,
    so a re-sent fragment is redacted as the same text again, not as a continuation.
    """
    runs: list[tuple[list[str], list[tuple[Any, str, int, int]]]] = []
    so_far = ""
    for holder, key in pieces:
        fragment = holder[key]
        if not runs or (so_far and fragment.startswith(so_far)):
            runs.append(([], []))
            so_far = ""
        texts, places = runs[-1]
        places.append((holder, key, len(so_far), len(so_far) + len(fragment)))
        texts.append(fragment)
        so_far += fragment
    return [("".join(texts), places) for texts, places in runs]


def secret_locations(document: Any, pointer: str = "") -> list[str]:
    """JSON pointers of every string (or key) in `document` that looks like an API key or bearer token."""
    found = []
    if isinstance(document, str):
        if find_secrets(document):
            found.append(pointer or "/")
    elif isinstance(document, dict):
        for k, v in document.items():
            here = f"{pointer}/{k}"
            if find_secrets(k):
                found.append(here)
            found.extend(secret_locations(v, here))
    elif isinstance(document, list):
        for i, item in enumerate(document):
            found.extend(secret_locations(item, f"{pointer}/{i}"))
    return found


# -- the raw SSE body, redacted in place -----------------------------------------------------------

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _strings_in_order(value: Any) -> Iterator[str]:
    """Every key and string value of a parsed JSON document, in document order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings_in_order(v)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_in_order(item)


def rewrite_data(raw: str, original: Any, redacted: Any) -> str | None:
    """`raw` (an event's data text) with each string token replaced as redaction replaced it; layout kept.

    None when the tokens do not line up with the parsed document (duplicate keys), so it cannot be
    rewritten in place.
    """
    before = list(_strings_in_order(original))
    after = list(_strings_in_order(redacted))
    tokens = list(_JSON_STRING.finditer(raw))
    if len(tokens) != len(before) or len(before) != len(after):
        return None
    out, last = [], 0
    for match, old, new in zip(tokens, before, after):
        out.append(raw[last : match.start()])
        token = match.group()
        if json.loads(token) != old:
            return None
        if old == new:
            out.append(token)
        else:
            ascii_only = token.isascii() and "\\u" in token
            out.append(json.dumps(new, ensure_ascii=ascii_only))
        last = match.end()
    out.append(raw[last:])
    return "".join(out)
