"""Redact a captured stream so it can be published, without changing what it tests.

Every replaced string goes through one `Cipher`, whose key is random per import and never written:

* each character of a value is replaced by one of its own kind (in free text, any printable ASCII
  character but a quote or a backslash; in an id, model name or opaque token, a letter, digit, `-` or
  `_`; a non-ASCII character by one of the same UTF-8 length); controls, quotes, backslashes and
  astral characters are kept;
* which one is derived (keyed BLAKE2b, a MAC) from the key and everything before it in the value, so
  the replacement of a letter depends on the whole prefix: guessing one word decodes nothing else, and
  case, digits, spaces and punctuation are not kept;
* so the same value always becomes the same replacement, and different values of the same length
  different ones (at their first difference the prefix is the same, and each position is a bijection);
* a text streamed in fragments is redacted as the whole text it builds, then cut again at the original
  points: the text the redacted deltas assemble to is the redaction of the original's, and equals the
  redaction of that text where a stream repeats it whole (a `.done` event, a final item);
* prefixes that carry meaning (`call_`, `fc_`, `toolu_`, `msg_`, `resp_`, ...) are kept;
* an opaque blob sent as base64 (Bedrock's `redactedContent`) has its bytes replaced, each by a keyed
  other byte, and is written as base64 again, so the stream still decodes.

Tool-call arguments are JSON text cut into fragments: each call's fragments are joined, read as
JSON (keys and structure kept, each string value redacted as a value of its own, `\\uXXXX` escapes
replaced by escapes), and cut again at the original points. Values under structural keys (`type`,
`role`, `name`, `status`, finish reasons, ...) are kept; with `keep_text` free text (message text,
reasoning, tool-argument values) is kept too, while ids, model names and fingerprints are still
replaced. Whatever looks like an API key or a bearer token is overwritten in every mode.

Which fields hold structure, free text and ids, the prefixes ids carry, and where a text or a tool
call's argument text arrives in fragments are each protocol's own (`redaction` in its package); the
substitution here is the same for every protocol.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from collections.abc import Iterator
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
# Opaque tokens (model names, signatures, encrypted blobs): replaced by a token of the same length, so they stay one.
TOKEN_KEYS = frozenset().union(*(v.TOKEN_KEYS for v in _VOCABULARIES))
# Opaque blobs sent as base64: their bytes replaced, so they stay base64 of the same length.
BLOB_KEYS = frozenset().union(*(v.BLOB_KEYS for v in _VOCABULARIES))
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


def _looks_secret(match: re.Match) -> bool:
    """A key mixes letters and digits; a hyphenated English phrase (`task-based-...`) does not."""
    body = match.group()
    return bool(re.search(r"\d", body) and re.search(r"[A-Za-z]", body[3:]))


def find_secrets(text: str) -> list[re.Match]:
    return [m for m in SECRET.finditer(text) if _looks_secret(m)]


def scrub_secrets(text: str) -> str:
    """Each secret-looking run overwritten with as many X's (so fragment cut points stay where they were)."""
    return SECRET.sub(lambda m: SECRET_MARK * len(m.group()) if _looks_secret(m) else m.group(), text)


# The kinds a character is replaced within. Free text: any printable ASCII character but the two that
# end or escape a JSON string, so argument JSON stays valid and no word shape survives. Tokens (ids, model
# names, signatures): the characters ids are made of, so a token stays one.
_TEXT_ASCII = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\')
_TOKEN_ASCII = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
_INDEX = {alphabet: {ch: i for i, ch in enumerate(alphabet)} for alphabet in (_TEXT_ASCII, _TOKEN_ASCII)}
# Non-ASCII characters of two and three UTF-8 bytes (surrogates left out): one range each, replaced within it.
_TWO_BYTE = (0x80, 0x800)
_THREE_BYTE = (0x800, 0x10000)
_SURROGATES = 0xE000 - 0xD800


class Keystream:
    """One value's replacement, character by character: each replacement is keyed by the whole prefix."""

    __slots__ = ("_alphabet", "_index", "_mac", "_state")

    def __init__(self, mac: Any, alphabet: str) -> None:
        self._mac = mac
        self._alphabet = alphabet
        self._index = _INDEX[alphabet]
        start = mac.copy()
        start.update(alphabet.encode())  # a value's first character is keyed too, and by its kind
        self._state = start.digest()

    def _shift(self, size: int) -> int:
        """1..size-1, from the MAC of the prefix so far: never 0, so no character stays itself."""
        return 1 + int.from_bytes(self._state[:8], "big") % (size - 1)

    def char(self, code: int) -> int:
        ch = chr(code)
        if code < 0x80:
            position = self._index.get(ch)
            new = (
                code
                if position is None
                else ord(self._alphabet[(position + self._shift(len(self._alphabet))) % len(self._alphabet)])
            )
        elif code < _TWO_BYTE[1]:
            size = _TWO_BYTE[1] - _TWO_BYTE[0]
            new = _TWO_BYTE[0] + (code - _TWO_BYTE[0] + self._shift(size)) % size
        elif code < _THREE_BYTE[1] and not 0xD800 <= code < 0xE000:
            size = _THREE_BYTE[1] - _THREE_BYTE[0] - _SURROGATES
            position = code - _THREE_BYTE[0] - (_SURROGATES if code >= 0xE000 else 0)
            new = (position + self._shift(size)) % size + _THREE_BYTE[0]
            new += _SURROGATES if new >= 0xD800 else 0
        else:  # astral characters and lone surrogates: kept (a pair may be cut between two escapes)
            new = code
        mac = self._mac.copy()
        mac.update(self._state + code.to_bytes(3, "big"))
        self._state = mac.digest()
        return new

    def text(self, value: str) -> str:
        return "".join([chr(self.char(ord(ch))) for ch in value])

    def octets(self, value: bytes) -> bytes:
        """Bytes (an opaque blob's): each replaced by another byte, keyed by the prefix as characters are."""
        out = bytearray()
        for octet in value:
            out.append((octet + self._shift(256)) % 256)
            mac = self._mac.copy()
            mac.update(self._state + octet.to_bytes(3, "big"))
            self._state = mac.digest()
        return bytes(out)


class Cipher:
    """Keyed replacement of values (see the module docstring); `seed` makes it reproducible, for tests."""

    def __init__(self, seed: int | None = None) -> None:
        key = secrets.token_bytes(32) if seed is None else hashlib.sha256(f"deltacheck-test-{seed}".encode()).digest()
        self._mac = hashlib.blake2b(key=key, digest_size=16)

    def stream(self, token: bool = False) -> Keystream:
        return Keystream(self._mac, _TOKEN_ASCII if token else _TEXT_ASCII)

    def text(self, value: str) -> str:
        return self.stream().text(value)

    def token(self, value: str) -> str:
        """An opaque token (a model name, a signature): it stays made of the characters ids are made of."""
        return self.stream(token=True).text(value)

    def blob(self, value: str) -> str:
        """A base64 blob (Bedrock's redactedContent): its bytes replaced, written as base64 again, so the
        stream still decodes; a value that is not base64 is replaced as a token."""
        try:
            data = base64.b64decode(value, validate=True)
        except ValueError:
            return self.token(value)
        return base64.b64encode(self.stream(token=True).octets(data)).decode("ascii")

    def identifier(self, value: str) -> str:
        """A prefix that carries meaning is kept; the rest is replaced as a token."""
        prefix = next((p for p in MEANINGFUL_PREFIXES if value.startswith(p)), "")
        return prefix + self.token(value[len(prefix) :])


_SHORT_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def redact_json_text(text: str, cipher: Cipher) -> str:
    """JSON text (complete or cut anywhere) with every string value redacted as a value of its own.

    Keys, structure, numbers, literals and short escapes stay; `\\uXXXX` escapes of letters, digits and
    non-ASCII characters are replaced by the escape of the replaced character. The result has the same
    length, so every position in it corresponds to the same position in `text`.
    """
    out: list[str] = []
    stream = cipher.stream()
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
                stream = cipher.stream()  # each string value is a value of its own
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
                    new = stream.char(code)
                    digits = f"{new:04x}"
                    out.append("\\u" + (digits.upper() if escape[2:].isupper() else digits))
                i += 6
            else:  # a short escape, or one cut off by the end of the text: kept as it is
                partial = re.match(r"\\u[0-9A-Fa-f]{0,3}\Z", text[i:])
                piece = partial.group() if partial else text[i : i + 2]
                if not is_key and len(piece) == 2:
                    stream.char(ord(_SHORT_ESCAPES.get(piece[1], piece[1])))  # kept, but part of the prefix
                out.append(piece)
                i += len(piece)
        else:
            out.append(ch if is_key else chr(stream.char(ord(ch))))
            i += 1
    return "".join(out)


@dataclass
class Redactor:
    """Redacts one stream's chunks (see `redact_chunks`)."""

    cipher: Cipher
    keep_text: bool = False
    # Fragments already redacted as part of the whole text they build: id(holder dict) -> {key: text}.
    fragments: dict[int, dict[str, str]] = field(default_factory=dict)

    def string(self, key: str | None, value: str) -> str:
        value = scrub_secrets(value)
        if key in STRUCTURAL_KEYS or (self.keep_text and key in TEXT_KEYS):
            return value
        if key in ID_KEYS:
            return self.cipher.identifier(value)
        if key in BLOB_KEYS:
            return self.cipher.blob(value)
        return self.cipher.token(value) if key in TOKEN_KEYS else self.cipher.text(value)

    def arguments(self, value: str) -> str:
        """Argument JSON text: string values replaced, everything else kept, the length unchanged."""
        value = scrub_secrets(value)
        if self.keep_text:
            return value
        return redact_json_text(value, self.cipher)

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
    vocabulary = protocols.protocol(protocol).part("redaction")
    # Fragments first: each call's argument fragments are read as one JSON text, each streamed text as the
    # text it builds; both are redacted whole (an API key split across them included), then cut where they were.
    # (Only argument text is ever re-sent whole: a text delta is always appended, as the references read it.)
    for fragments, redact, resends in (
        (vocabulary.argument_fragments(chunks), lambda key, text: redactor.arguments(text), True),
        (vocabulary.text_fragments(chunks), redactor.string, False),
    ):
        groups: dict[tuple, list[tuple[Any, str]]] = {}
        for group, holder, key in fragments:
            groups.setdefault(group, []).append((holder, key))
        for pieces in groups.values():
            for text, places in _runs(pieces, resends):
                redacted = redact(pieces[0][1], text)
                for holder, key, start, end in places:
                    redactor.fragments.setdefault(id(holder), {})[key] = redacted[start:end]
    _redact_blobs(vocabulary.blob_fragments(chunks), redactor)
    return [redactor.walk(chunk) for chunk in chunks]


def _redact_blobs(fragments: Iterator[tuple[tuple, Any, str]], redactor: Redactor) -> None:
    """A blob streamed in base64 fragments is redacted as the bytes they build, then cut where each
    fragment's bytes were and written as base64 again: the blob the redacted fragments build is the
    redaction of the whole (a fragment that is not base64 is replaced as a value of its own)."""
    groups: dict[tuple, list[tuple[Any, str, bytes]]] = {}
    for group, holder, key in fragments:
        try:
            groups.setdefault(group, []).append((holder, key, base64.b64decode(holder[key], validate=True)))
        except ValueError:
            continue
    for pieces in groups.values():
        whole = redactor.cipher.stream(token=True).octets(b"".join(data for _, _, data in pieces))
        start = 0
        for holder, key, data in pieces:
            piece = whole[start : start + len(data)]
            redactor.fragments.setdefault(id(holder), {})[key] = base64.b64encode(piece).decode("ascii")
            start += len(data)


def _runs(pieces: list[tuple[Any, str]], resends: bool = True) -> list[tuple[str, list[tuple[Any, str, int, int]]]]:
    """A call's fragments as the texts they build: each fragment continues the text so far, except one
    that re-sends the whole text so far and more (cumulative streaming), which starts the text anew.

    Each run is (its text, where each of its fragments sits in it); a JSON text is read from its start,
    so a re-sent fragment is redacted as the same text again, not as a continuation.
    """
    runs: list[tuple[list[str], list[tuple[Any, str, int, int]]]] = []
    so_far = ""
    for holder, key in pieces:
        fragment = holder[key]
        if not runs or (resends and so_far and fragment.startswith(so_far)):
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
    return _rewrite_bytes_arrays("".join(out), redacted)


_BYTES_ARRAY = re.compile(r'("bytes"\s*:\s*)\[([^\[\]]*)\]')


def _bytes_arrays_in_order(value: Any) -> Iterator[list[Any]]:
    """Every logprob `bytes` array (a list under the key `bytes`) of a parsed document, in document order."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "bytes" and isinstance(v, list):
                yield v
            else:
                yield from _bytes_arrays_in_order(v)
    elif isinstance(value, list):
        for item in value:
            yield from _bytes_arrays_in_order(item)


def _rewrite_bytes_arrays(raw: str, redacted: Any) -> str | None:
    """Logprob `bytes` arrays spell their token in numbers: each rewritten to spell the redacted token, in the
    layout it had (the original bytes would spell the original text back)."""
    arrays = list(_bytes_arrays_in_order(redacted))
    if not arrays:
        return raw
    matches = list(_BYTES_ARRAY.finditer(raw))
    if len(matches) != len(arrays):
        return None
    out, last = [], 0
    for match, numbers in zip(matches, arrays):
        separator = ", " if ", " in match.group(2) else ","
        out.append(raw[last : match.start()] + match.group(1) + "[" + separator.join(str(n) for n in numbers) + "]")
        last = match.end()
    out.append(raw[last:])
    return "".join(out)
