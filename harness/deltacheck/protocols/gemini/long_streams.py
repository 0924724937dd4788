"""Gemini streams of the long-stream scenarios (deltacheck.cost.long_streams).

One GenerateContentResponse per fragment, each with the cumulative usageMetadata so far, as the API
streams them. Text arrives as text parts. Calls are Vertex AI streamed calls, one after another: an
opening part with the name, id and `willContinue`, then one part per fragment whose `partialArgs`
carries the piece of the `$.content` string that fragment spells (a fragment inside the object's
punctuation, or inside a JSON escape, spells nothing yet: a keep-alive part), the closing `""`, and
the terminal `{}`. The stream ends with an empty text part and STOP.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from deltacheck.reference.parts import json_text

if TYPE_CHECKING:
    from deltacheck.cost.long_streams import Scenario

SHAPES = ("text", "tool", "tools4")  # calls stream one after another
CALL_ITEM_IDS = False
PATH = "$.content"
_PREFIX, _SUFFIX = '{"content":"', '"}'


def finish_reason(s: Scenario) -> str:
    return "STOP"  # Gemini has no tool-call finish reason


def usage(s: Scenario) -> dict[str, Any]:
    """The last usageMetadata: input tokens, one output token per fragment."""
    return _usage(s, s.count)


def arguments(text: str) -> str:
    """A call's arguments as the assembled object writes them: the same JSON value, compact, non-ASCII kept."""
    return json_text(json.loads(text))


def _usage(s: Scenario, produced: int) -> dict[str, Any]:
    return {
        "promptTokenCount": s.input_tokens,
        "candidatesTokenCount": produced,
        "totalTokenCount": s.input_tokens + produced,
    }


def _chunk(s: Scenario, produced: int, parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "usageMetadata": _usage(s, produced), "modelVersion": "m", "responseId": "long"}


def chunks(s: Scenario) -> list[dict[str, Any]]:
    stream: list[dict[str, Any]] = []
    produced = 0
    if not s.calls:
        for _, piece in s.order:
            produced += 1
            stream.append(_chunk(s, produced, [{"text": piece}]))
    else:
        for which, call in enumerate(s.calls):  # one call after another: open, pieces, close
            stream.append(
                _chunk(s, produced, [{"functionCall": {"id": call["id"], "name": call["name"], "willContinue": True}}])
            )
            decoder = _StringPieces()
            for _, piece in (entry for entry in s.order if entry[0] == which):
                produced += 1
                text = decoder.feed(piece)
                if text:
                    value = {"jsonPath": PATH, "stringValue": text, "willContinue": True}
                    part = {"functionCall": {"partialArgs": [value], "willContinue": True}}
                    s.append_fragment(stream, which, _chunk(s, produced, [part]))
                else:  # punctuation, or the start of an escape: nothing of the string yet
                    stream.append(_chunk(s, produced, [{"functionCall": {"willContinue": True}}]))
            closing = {"functionCall": {"partialArgs": [{"jsonPath": PATH, "stringValue": ""}], "willContinue": True}}
            s.append_fragment(stream, which, _chunk(s, produced, [closing]))
            stream.append(_chunk(s, produced, [{"functionCall": {}}]))
    stream.append(_chunk(s, produced, [{"text": ""}], finish="STOP"))
    return stream


class _StringPieces:
    """Reads a `{"content":"..."}` JSON text fragment by fragment; gives the string's characters each completes."""

    def __init__(self) -> None:
        self.seen = 0  # characters of the whole text read so far
        self.escape = ""  # an escape sequence begun and not yet complete

    def feed(self, fragment: str) -> str:
        out = []
        for char in fragment:
            position, self.seen = self.seen, self.seen + 1
            if position < len(_PREFIX) or char in '"}' and not self.escape:
                continue  # the object's punctuation, not the string's
            if self.escape or char == "\\":
                self.escape += char
                if _escape_complete(self.escape):
                    out.append(json.loads(f'"{self.escape}"'))
                    self.escape = ""
                continue
            out.append(char)
        return "".join(out)


def _escape_complete(sequence: str) -> bool:
    return len(sequence) == 6 if sequence[1:2] == "u" else len(sequence) == 2


def joined_fragments(stream: list[dict[str, Any]]) -> dict[Any, str]:
    """Each part's text joined: the answer's, or each streamed call's arguments (by call), the object its
    string value makes: nothing else checked."""
    pieces: dict[Any, list[str]] = {}
    calls = 0
    for chunk in stream:
        for part in chunk["candidates"][0]["content"]["parts"]:
            call = part.get("functionCall")
            if call is None:
                if part["text"]:  # the closing empty part adds nothing
                    pieces.setdefault("text", []).append(part["text"])
                continue
            if call.get("name"):
                calls += 1
            for value in call.get("partialArgs") or ():
                pieces.setdefault(calls, []).append(value["stringValue"])
    joined = {key: "".join(value) for key, value in pieces.items()}
    return {key: value if key == "text" else json_text({"content": value}) for key, value in joined.items()}
