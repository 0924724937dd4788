"""Reference assembler for Gemini `GenerateContentResponse` chunks (CONTRACT.md 3.3, gemini rules).

Each chunk is a whole response whose candidates carry only their new parts. Text parts join with the
text part before them, unless either carries a `thoughtSignature`: a signed part stays a part of its
own, with its signature (Google: never merge a part with a signature with another part). Each
`functionCall` part is one call, whole; Vertex streams a call's arguments as `partialArgs` (JSON paths
and typed values) over several parts, which build the one object the paths describe.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from deltacheck.errors import AssemblyError
from deltacheck.reference.fragments import Fragments
from deltacheck.reference.parts import (
    ReferenceOutcome,
    error_type,
    json_text,
    reasoning_part,
    text_part,
    tool_call_part,
)

# The typed values a PartialArg carries, exactly one of them (Vertex `PartialArg`).
VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue")


@dataclass
class _Text:
    """A text part (`type` "text") or a thought part (`type` "reasoning") being joined."""

    type: str
    fragments: Fragments
    signature: str | None = None


@dataclass
class _Call:
    name: str
    id: str | None
    signature: str | None
    args: Any = None  # the arguments object: whole (`args`), or built from `partialArgs`
    last_chunk: int = 0
    done: bool = False


@dataclass
class _Candidate:
    index: int
    parts: list[_Text | _Call] = field(default_factory=list)
    open_call: _Call | None = None  # a Vertex call whose arguments are still streaming (`willContinue`)
    finish_reason: str | None = None
    finish_message: str | None = None


class GeminiAssembler:
    def __init__(self) -> None:
        self.candidates: dict[int, _Candidate] = {}
        self.usage: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.block_reason: str | None = None
        self.block_message: str | None = None
        self.events: list[dict[str, Any]] = []
        self.chunks_seen = 0

    def feed(self, n: int, chunk: Any) -> None:
        self.chunks_seen = n + 1
        if self.error is not None:
            return  # an error chunk ends the stream (rule 7)
        if not isinstance(chunk, dict):
            raise AssemblyError(n, f"chunk is {type(chunk).__name__}, not a JSON object")
        if chunk.get("error") is not None:
            self.error = _error_of(n, chunk["error"])
            return
        usage = chunk.get("usageMetadata")
        if usage is not None:
            if not isinstance(usage, dict):
                raise AssemblyError(n, "usageMetadata is not an object")
            self.usage = dict(usage)  # cumulative: the last one stands (rule 6)
        self._prompt_feedback(n, chunk.get("promptFeedback"))
        candidates = chunk.get("candidates")
        if candidates is None:
            return
        if not isinstance(candidates, list):
            raise AssemblyError(n, "candidates is not a list")
        for position, raw in enumerate(candidates):
            if not isinstance(raw, dict):
                raise AssemblyError(n, f"candidates[{position}] is not an object")
            self._candidate(n, raw)

    def _prompt_feedback(self, n: int, feedback: Any) -> None:
        if feedback is None:
            return
        if not isinstance(feedback, dict):
            raise AssemblyError(n, "promptFeedback is not an object")
        reason, message = feedback.get("blockReason"), feedback.get("blockReasonMessage")
        if isinstance(reason, str) and reason:
            self.block_reason = reason
        if isinstance(message, str) and message:
            self.block_message = message

    def _candidate(self, n: int, raw: dict[str, Any]) -> None:
        index = raw.get("index", 0)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise AssemblyError(n, f"candidate `index` is {index!r}, not a non-negative integer")
        candidate = self.candidates.setdefault(index, _Candidate(index))
        content = raw.get("content")
        if content is not None:
            if not isinstance(content, dict):
                raise AssemblyError(n, f"candidate {index}: content is not an object")
            parts = content.get("parts")
            if parts is not None and not isinstance(parts, list):
                raise AssemblyError(n, f"candidate {index}: content.parts is not a list")
            for part in parts or []:
                self._part(n, candidate, part)
        reason, message = raw.get("finishReason"), raw.get("finishMessage")
        if isinstance(message, str) and message:
            candidate.finish_message = message
        if isinstance(reason, str) and reason:
            candidate.finish_reason = reason
            if candidate.open_call is not None:  # the candidate is finished: so are its calls (rule 5)
                self._complete(candidate, candidate.open_call, n)

    def _part(self, n: int, candidate: _Candidate, part: Any) -> None:
        if not isinstance(part, dict):
            raise AssemblyError(n, f"candidate {candidate.index}: a part is not an object")
        signature = part.get("thoughtSignature")
        if signature is not None and not isinstance(signature, str):
            raise AssemblyError(n, "thoughtSignature is not a string")
        text, call = part.get("text"), part.get("functionCall")
        if text is not None and call is not None:
            raise AssemblyError(n, "a part carries both text and a functionCall")
        if call is not None:
            self._function_call(n, candidate, call, signature or None)
        elif text is not None:
            if not isinstance(text, str):
                raise AssemblyError(n, f"part text is {type(text).__name__}, not a string")
            thought = part.get("thought")
            if thought is not None and not isinstance(thought, bool):
                raise AssemblyError(n, "part `thought` is not a boolean")
            _join(candidate, "reasoning" if thought else "text", text, signature or None)
        # Other parts (inline data, code execution, an empty `{}`, a type from a future version) carry
        # nothing the canonical result holds (rule 8).

    def _function_call(self, n: int, candidate: _Candidate, call: Any, signature: str | None) -> None:
        if not isinstance(call, dict):
            raise AssemblyError(n, "functionCall is not an object")
        name, call_id, args = call.get("name"), call.get("id"), call.get("args")
        partial, will_continue = call.get("partialArgs"), call.get("willContinue")
        if name is not None and not isinstance(name, str):
            raise AssemblyError(n, "functionCall.name is not a string")
        if call_id is not None and not isinstance(call_id, str):
            raise AssemblyError(n, "functionCall.id is not a string")
        if args is not None and not isinstance(args, dict):
            raise AssemblyError(n, "functionCall.args is not an object")
        if partial is not None and not isinstance(partial, list):
            raise AssemblyError(n, "functionCall.partialArgs is not a list")
        if will_continue is not None and not isinstance(will_continue, bool):
            raise AssemblyError(n, "functionCall.willContinue is not a boolean")
        if name:  # a part with a name is a new call (rule 4), and ends one still streaming (rule 5)
            if candidate.open_call is not None:
                self._complete(candidate, candidate.open_call, n)
            current = _Call(name, call_id or None, signature, copy.deepcopy(args) if args is not None else None, n)
            candidate.parts.append(current)
        else:
            open_call = candidate.open_call
            if open_call is None:
                if partial or args is not None or call_id:
                    raise AssemblyError(n, "a functionCall part without a name continues no streaming call")
                return  # an empty `{}` or a keep-alive with no call open carries nothing
            current = open_call
            if args is not None:
                raise AssemblyError(n, "a streaming call's continuation carries whole `args`")
            if signature is not None:
                if current.signature not in (None, signature):
                    raise AssemblyError(n, "a streaming call's continuation carries another thoughtSignature")
                current.signature = signature
            if call_id and current.id is None:
                current.id = call_id
        for position, value in enumerate(partial or []):
            self._write_partial_arg(n, current, position, value)
            current.last_chunk = n
        if will_continue:
            candidate.open_call = current
        else:  # whole, or the part that ends a streaming call: `{}` or partialArgs without willContinue
            self._complete(candidate, current, n)

    def _write_partial_arg(self, n: int, call: _Call, position: int, raw: Any) -> None:
        _write_partial_arg(n, call, position, raw)

    def _complete(self, candidate: _Candidate, call: _Call, n: int) -> None:
        if candidate.open_call is call:
            candidate.open_call = None
        if call.done:
            return
        call.done = True
        self.events.append(
            {
                "type": "tool_call_done",
                "choice": candidate.index,
                "id": call.id,
                "name": call.name,
                "arguments": _arguments(call),
                "after_chunk": n,
            }
        )

    def finish(self) -> ReferenceOutcome:
        last = max(self.chunks_seen - 1, 0)
        for candidate in self.candidates.values():  # a call still streaming when the stream ends ends with it
            if candidate.open_call is not None:
                self._complete(candidate, candidate.open_call, last)
        choices: list[dict[str, Any]] = []
        last_fragment: dict[tuple[int, int], int] = {}
        for index in sorted(self.candidates):
            candidate = self.candidates[index]
            parts: list[dict[str, Any]] = []
            for part in candidate.parts:
                if isinstance(part, _Call):
                    last_fragment[(index, len(parts))] = part.last_chunk
                parts.append(_canonical(part))
            choices.append(
                {
                    "index": index,
                    "parts": parts,
                    "finish_reason": candidate.finish_reason,
                    "finish_detail": candidate.finish_message,
                }
            )
        if not self.candidates and self.block_reason is not None:  # the prompt was blocked (rule 9)
            choices.append(
                {"index": 0, "parts": [], "finish_reason": self.block_reason, "finish_detail": self.block_message}
            )
        result = {"choices": choices, "usage": self.usage, "error": self.error, "events": self.events}
        return ReferenceOutcome(result, last_fragment)


def _join(candidate: _Candidate, kind: str, text: str, signature: str | None) -> None:
    """Rules 2 and 3: a signed part is a part of its own, even empty; unsigned text joins the unsigned
    part of its kind just before it; an empty unsigned part adds nothing."""
    if signature is not None:
        candidate.parts.append(_Text(kind, Fragments(text), signature))
        return
    if not text:
        return
    last = candidate.parts[-1] if candidate.parts else None
    if isinstance(last, _Text) and last.type == kind and last.signature is None:
        last.fragments.append(text)
    else:
        candidate.parts.append(_Text(kind, Fragments(text)))


def _canonical(part: _Text | _Call) -> dict[str, Any]:
    if isinstance(part, _Call):
        out = tool_call_part("function", part.id, None, part.name, _arguments(part))
    elif part.type == "reasoning":
        return reasoning_part(part.fragments.text(), [], part.signature)
    else:
        out = text_part(part.fragments.text())
    if part.signature is not None:
        out["signature"] = part.signature
    return out


def _arguments(call: _Call) -> str:
    """The arguments object as JSON text; a call that never carried one has no arguments."""
    return json_text(_plain(call.args)) if call.args is not None else ""


def _plain(value: Any) -> Any:
    """The arguments tree with each string still held as fragments joined (written once, when the call is read)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value.text() if isinstance(value, Fragments) else value


def _error_of(n: int, error: Any) -> dict[str, Any]:
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        raise AssemblyError(n, "error chunk carries no `error` object with a string `message`")
    return {"type": error_type(error, "status"), "message": error["message"]}


# -- Vertex streamed arguments (rule 5) ------------------------------------------------------------

# One segment of an RFC 9535 normalized-style path: `.name`, `[0]`, `['name']` or `["name"]`.
_SEGMENT = re.compile(
    r"""\.(?P<name>[A-Za-z_\u0080-\U0010ffff][A-Za-z0-9_\u0080-\U0010ffff]*)"""
    r"""|\[(?P<index>0|[1-9][0-9]*)\]"""
    r"""|\['(?P<single>(?:[^'\\]|\\.)*)'\]"""
    r"""|\["(?P<double>(?:[^"\\]|\\.)*)"\]"""
)


@lru_cache(maxsize=1024)  # a streamed call sends the same few paths again and again
def json_path_segments(path: str) -> tuple[str | int, ...]:
    """The member names and array indices of a JSON path such as `$.recipe.steps[0]` (RFC 9535 singular
    queries: dot and bracket member names, array indices); ValueError for anything else."""
    if not path.startswith("$"):
        raise ValueError(f"JSON path {path!r} does not start at the root `$`")
    segments: list[str | int] = []
    position = 1
    while position < len(path):
        match = _SEGMENT.match(path, position)
        if match is None:
            raise ValueError(f"JSON path {path!r}: cannot read {path[position:]!r}")
        if match["name"] is not None:
            segments.append(match["name"])
        elif match["index"] is not None:
            segments.append(int(match["index"]))
        elif match["single"] is not None:
            segments.append(json.loads('"' + match["single"].replace("\\'", "'").replace('"', '\\"') + '"'))
        else:
            segments.append(json.loads('"' + match["double"] + '"'))
        position = match.end()
    return tuple(segments)


def _write_partial_arg(n: int, call: _Call, position: int, raw: Any, strings: str = "append") -> None:
    """Write one PartialArg into the call's arguments: a string value is appended to the text its path
    holds (a string arrives in fragments, the last often empty), any other value is set whole.
    (`strings="replace"` sets a string value over the one its path holds: a mutant's bug, never the rule.)"""
    where = f"functionCall.partialArgs[{position}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("jsonPath"), str):
        raise AssemblyError(n, f"{where} has no string `jsonPath`")
    present = [key for key in VALUE_KEYS if key in raw]
    if len(present) != 1:
        raise AssemblyError(n, f"{where} carries {len(present)} of {', '.join(VALUE_KEYS)}, not exactly one")
    kind = present[0]
    value = None if kind == "nullValue" else raw[kind]  # nullValue is protobuf's NULL_VALUE (or null)
    if kind == "stringValue" and not isinstance(value, str):
        raise AssemblyError(n, f"{where}.stringValue is not a string")
    if kind == "boolValue" and not isinstance(value, bool):
        raise AssemblyError(n, f"{where}.boolValue is not a boolean")
    if kind == "numberValue" and (not isinstance(value, (int, float)) or isinstance(value, bool)):
        raise AssemblyError(n, f"{where}.numberValue is not a number")
    try:
        segments = json_path_segments(raw["jsonPath"])
    except ValueError as exc:
        raise AssemblyError(n, f"{where}: {exc}") from None
    if not segments:
        raise AssemblyError(n, f"{where}: the path `$` would replace the whole arguments object")
    if call.args is None:
        call.args = {}
    holder: Any = call.args
    for here, following in zip(segments, segments[1:]):
        holder = _child(n, where, holder, here, {} if isinstance(following, str) else [])
    if isinstance(value, str):  # a stringValue, held as fragments: appending costs the piece, not the string so far
        if strings == "replace" and _get(n, where, holder, segments[-1]) is not _ABSENT:
            holder[segments[-1]] = Fragments(value)
            return
        value = Fragments(value)
    _set(n, where, holder, segments[-1], value)


def _child(n: int, where: str, holder: Any, key: str | int, empty: Any) -> Any:
    """The container at `key` of `holder`, created (as `empty`) when the path reaches it first."""
    current = _get(n, where, holder, key)
    if current is _ABSENT:
        _put(holder, key, empty)
        return empty
    if type(current) is not type(empty):
        raise AssemblyError(n, f"{where}: the path goes through a {type(current).__name__} as a {type(empty).__name__}")
    return current


def _set(n: int, where: str, holder: Any, key: str | int, value: Any) -> None:
    current = _get(n, where, holder, key)
    if current is _ABSENT:
        _put(holder, key, value)
    elif isinstance(value, Fragments) and isinstance(current, Fragments):
        current.append(value.text())  # the next piece of a string at this path
    else:
        raise AssemblyError(n, f"{where}: its path already holds a value")


_ABSENT = object()


def _get(n: int, where: str, holder: Any, key: str | int) -> Any:
    if isinstance(key, str):
        if not isinstance(holder, dict):
            raise AssemblyError(n, f"{where}: a member name in the path addresses a {type(holder).__name__}")
        return holder.get(key, _ABSENT)
    if not isinstance(holder, list):
        raise AssemblyError(n, f"{where}: an array index in the path addresses a {type(holder).__name__}")
    if key > len(holder):
        raise AssemblyError(n, f"{where}: array index {key} skips elements (the array holds {len(holder)})")
    return holder[key] if key < len(holder) else _ABSENT


def _put(holder: Any, key: str | int, value: Any) -> None:
    if isinstance(holder, list):
        holder.append(value)  # _get allowed only the next index
    else:
        holder[key] = value


Assembler = GeminiAssembler  # what the registry hands out (deltacheck.protocols.spec.Protocol.assembler)
