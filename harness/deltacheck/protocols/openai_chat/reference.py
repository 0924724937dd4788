"""Reference assembler for OpenAI Chat Completions chunks (CONTRACT.md 3.3, openai-chat rules)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from deltacheck.errors import AssemblyError
from deltacheck.reference.fragments import JsonFragments
from deltacheck.reference.parts import (
    ReferenceOutcome,
    error_type,
    json_text,
    reasoning_part,
    refusal_part,
    text_part,
    tool_call_part,
)

REASONING_FIELDS = ("reasoning_content", "reasoning")


@dataclass
class _Call:
    slot: int | None  # tool_calls[].index; None for index-less entries and legacy function_call
    first_seen: int
    id: str | None = None
    name: str | None = None
    fragments: JsonFragments = field(default_factory=JsonFragments)  # the arguments
    last_chunk: int = 0
    done_emitted: bool = False
    extra_content: dict[str, Any] | None = None  # the provider's extension object (rule 5), merged key by key

    @property
    def arguments(self) -> str:
        return self.fragments.text()

    @arguments.setter
    def arguments(self, text: str) -> None:
        self.fragments = JsonFragments(text)


@dataclass
class _Choice:
    index: int
    reasoning: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    current: dict[int, _Call] = field(default_factory=dict)  # slot index (-1: no index) -> the call it now names
    latest: _Call | None = None  # the call the choice's last tool_calls entry went to
    # slot index (-1: no index) -> extra_content sent there before any call, for the call that opens there next
    pending_extra: dict[int, dict[str, Any]] = field(default_factory=dict)
    legacy: _Call | None = None
    finish_reason: str | None = None
    extra_content: dict[str, Any] | None = None  # the message's own extension object (rule 5), merged key by key


class ChatAssembler:
    def __init__(self) -> None:
        self.choices: dict[int, _Choice] = {}
        self.usage: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.chunks_seen = 0

    def feed(self, n: int, chunk: Any) -> None:
        self.chunks_seen = n + 1
        if self.error is not None:
            return  # an error chunk ends the stream; anything after it is not part of the message
        if not isinstance(chunk, dict):
            raise AssemblyError(n, f"chunk is {type(chunk).__name__}, not a JSON object")
        if chunk.get("error"):
            self.error = _error_of(n, chunk["error"])
            return
        if chunk.get("object") == "error":  # vLLM's flat error shape
            self.error = {"type": error_type(chunk), "message": _message_of(n, chunk)}
            return
        choices = chunk.get("choices", [])
        if not isinstance(choices, list):
            raise AssemblyError(n, "`choices` is not an array")
        for choice in choices:
            self._feed_choice(n, choice)
        if chunk.get("usage") is not None:
            if not isinstance(chunk["usage"], dict):
                raise AssemblyError(n, "`usage` is not an object")
            self.usage = chunk["usage"]

    def _feed_choice(self, n: int, raw: Any) -> None:
        if not isinstance(raw, dict):
            raise AssemblyError(n, "a `choices` entry is not an object")
        index = raw.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise AssemblyError(n, f"choice `index` is {index!r}, not a non-negative integer")
        choice = self.choices.get(index)
        if choice is None:
            choice = self.choices[index] = _Choice(index)
        delta = raw.get("delta") or {}
        if not isinstance(delta, dict):
            raise AssemblyError(n, f"choices[{index}].delta is not an object")
        _append_text(n, delta, "content", choice.text)
        _append_text(n, delta, "refusal", choice.refusal)
        _append_reasoning(n, delta, choice.reasoning)
        extra = delta.get("extra_content")
        if extra is not None:
            if not isinstance(extra, dict):
                raise AssemblyError(n, f"choices[{index}].delta.extra_content is not an object")
            if extra:  # rule 5: the message's own extension object (Gemini's signature on an answer without calls)
                choice.extra_content = {**(choice.extra_content or {}), **extra}
        tool_calls = delta.get("tool_calls")
        if tool_calls is not None:
            if not isinstance(tool_calls, list):
                raise AssemblyError(n, f"choices[{index}].delta.tool_calls is not an array")
            for entry in tool_calls:
                self._feed_tool_call(n, choice, entry)
        if delta.get("function_call") is not None:
            self._feed_legacy_function_call(n, choice, delta["function_call"])
        # The empty string is no finish reason (some servers send it on every chunk instead of null):
        # it neither sets the finish reason nor completes the calls (rule 7).
        if raw.get("finish_reason") not in (None, "") and choice.finish_reason is None:
            choice.finish_reason = raw["finish_reason"]
            self._complete_calls(choice, after_chunk=n)

    def _feed_tool_call(self, n: int, choice: _Choice, entry: Any) -> None:
        if not isinstance(entry, dict):
            raise AssemblyError(n, "a tool_calls entry is not an object")
        slot = entry.get("index")
        function = entry.get("function") or {}
        if not isinstance(function, dict):
            raise AssemblyError(n, "tool_calls[].function is not an object")
        new_id = _nonempty(entry.get("id"))
        new_name = _nonempty(function.get("name"))
        if slot is not None and (not isinstance(slot, int) or isinstance(slot, bool) or slot < 0):
            raise AssemblyError(n, f"tool_calls[].index is {slot!r}, not a non-negative integer")
        key = -1 if slot is None else slot  # index-less entries share one "current call" of their own
        arguments = function.get("arguments")
        extra = entry.get("extra_content")
        if extra is not None and not isinstance(extra, dict):
            raise AssemblyError(n, "tool_calls[].extra_content is not an object")
        call = choice.current.get(key)
        if new_id is None and new_name is None and arguments in (None, ""):
            # Only metadata: nothing here identifies or fills a call (rule 5), but Gemini's extra_content
            # belongs to the call this entry names, or to the next one opened there.
            if extra:
                target = call if call is not None or slot is not None else choice.latest
                if target is not None:
                    _merge_extra(target, extra)
                else:
                    choice.pending_extra[key] = {**choice.pending_extra.get(key, {}), **extra}
            return
        if slot is None and new_id is None and new_name is None and (call is None or _complete(call)):
            continued = self._continued_indexed_call(choice)
            if continued is not None:  # rule 5: a continuation that lost its index
                choice.latest = continued
                if extra:
                    _merge_extra(continued, extra)
                self._add_arguments(n, continued, arguments)
                return
        emitted_again = call is not None and _complete(call) and self._is_resent(call, new_id, new_name, arguments)
        if call is None:
            call = self._open_call(choice, slot, key, n)
        elif (new_id is not None or new_name is not None or slot is None) and _complete(call) and not emitted_again:
            call = self._open_call(choice, slot, key, n)  # rules 4 and 5: a reused index, after a whole call
        choice.latest = call
        if key in choice.pending_extra:
            _merge_extra(call, choice.pending_extra.pop(key))
        if extra:
            _merge_extra(call, extra)
        if emitted_again:
            self._take_call_emitted_again(n, call, arguments)
            return
        if new_id is not None and call.id is None:
            call.id = new_id
        if new_name is not None:
            call.name = _merge_name(n, call, new_name)
        self._add_arguments(n, call, arguments)

    def _feed_legacy_function_call(self, n: int, choice: _Choice, fragment: Any) -> None:
        if not isinstance(fragment, dict):
            raise AssemblyError(n, "delta.function_call is not an object")
        name = _nonempty(fragment.get("name"))
        if choice.legacy is None:
            if name is None and fragment.get("arguments") in (None, ""):
                return  # an empty stub (`{"name": "", "arguments": ""}`) beside tool_calls: no call (rule 9)
            choice.legacy = self._open_call(choice, None, None, n)
        if name is not None:
            choice.legacy.name = _merge_name(n, choice.legacy, name)
        self._add_arguments(n, choice.legacy, fragment.get("arguments"))

    @staticmethod
    def _is_resent(call: _Call, new_id: str | None, new_name: str | None, arguments: Any) -> bool:
        """Rule 4: an entry with the whole call's own id (and its name, or none) whose arguments are
        none or exactly the call's complete arguments is that call emitted again, not a new call."""
        if new_id is None or new_id != call.id or new_name not in (None, call.name):
            return False
        # Reading the arguments costs their length: worth it only for a value exactly as long.
        return arguments in (None, "") or (
            isinstance(arguments, str) and len(arguments) == call.fragments.length and arguments == call.arguments
        )

    @staticmethod
    def _continued_indexed_call(choice: _Choice) -> _Call | None:
        """Rule 5: an index-less fragment with no identity, where no index-less call is open, continues the
        call the choice's previous entry went to when that call has an index and its arguments are not yet
        whole (servers that send index on a call's first fragment only)."""
        latest = choice.latest
        return latest if latest is not None and latest.slot is not None and not _complete(latest) else None

    @staticmethod
    def _take_call_emitted_again(n: int, call: _Call, arguments: Any) -> None:
        """Rule 4: the call emitted again carries nothing the call lacks; it is its last fragment so far."""
        call.last_chunk = n

    def _add_arguments(self, n: int, call: _Call, value: Any) -> None:
        if value is None:
            return
        call.last_chunk = n
        if isinstance(value, str):
            # Rule 2: appended as received, even when it begins with the arguments so far (a snapshot
            # stream, or a prefix shared by chance): rewriting would turn the bytes into other JSON.
            call.fragments.append(value)
        elif isinstance(value, (dict, list)) and not call.fragments.length:
            call.arguments = json_text(value)  # rule 6: arguments sent as a JSON value
        else:
            raise AssemblyError(n, f"function.arguments is {type(value).__name__} after text fragments")

    @staticmethod
    def _open_call(choice: _Choice, slot: int | None, key: int | None, n: int) -> _Call:
        call = _Call(slot=slot, first_seen=len(choice.calls), last_chunk=n)
        choice.calls.append(call)
        if key is not None:
            choice.current[key] = call
        return call

    def _complete_calls(self, choice: _Choice, after_chunk: int) -> None:
        # Chat has no per-call end marker: fragments of any call may come until the choice finishes.
        for call in _ordered_calls(choice):
            if not call.done_emitted:
                call.done_emitted = True
                self.events.append(
                    {
                        "type": "tool_call_done",
                        "choice": choice.index,
                        "id": call.id,
                        "name": call.name,
                        "arguments": call.arguments,
                        "after_chunk": after_chunk,
                    }
                )

    def finish(self) -> ReferenceOutcome:
        last = max(self.chunks_seen - 1, 0)
        choices = []
        last_fragment: dict[tuple[int, int], int] = {}
        for index in sorted(self.choices):
            choice = self.choices[index]
            self._complete_calls(choice, after_chunk=last)
            parts: list[dict[str, Any]] = []
            if "".join(choice.reasoning):
                parts.append(reasoning_part("".join(choice.reasoning)))
            if "".join(choice.text) or choice.extra_content is not None:
                part = text_part("".join(choice.text))
                if choice.extra_content is not None:
                    part["extra_content"] = choice.extra_content  # rule 5: kept on the text part, even an empty one
                parts.append(part)
            if "".join(choice.refusal):
                parts.append(refusal_part("".join(choice.refusal)))
            for call in _ordered_calls(choice):
                last_fragment[(index, len(parts))] = call.last_chunk
                part = tool_call_part("function", call.id, None, call.name, call.arguments)
                if call.extra_content is not None:
                    part["extra_content"] = call.extra_content
                parts.append(part)
            choices.append(
                {"index": index, "parts": parts, "finish_reason": choice.finish_reason, "finish_detail": None}
            )
        result = {"choices": choices, "usage": self.usage, "error": self.error, "events": self.events}
        return ReferenceOutcome(result, last_fragment)


def _complete(call: _Call) -> bool:
    """A call whose arguments already form a whole JSON value can take no more fragments."""
    return call.fragments.is_complete


def _ordered_calls(choice: _Choice) -> list[_Call]:
    return sorted(choice.calls, key=lambda c: (math.inf if c.slot is None else c.slot, c.first_seen))


def _append_text(n: int, delta: dict[str, Any], name: str, into: list[str]) -> None:
    value = delta.get(name)
    if value is None:
        return
    if not isinstance(value, str):
        raise AssemblyError(n, f"delta.{name} is {type(value).__name__}, not a string")
    into.append(value)


def _append_reasoning(n: int, delta: dict[str, Any], into: list[str]) -> None:
    """`reasoning_content` (DeepSeek, older vLLM) and `reasoning` (OpenRouter, newer vLLM) name one thing."""
    present = [name for name in REASONING_FIELDS if delta.get(name) is not None]
    if len(present) == 2 and delta["reasoning_content"] != delta["reasoning"]:
        raise AssemblyError(n, "delta carries different `reasoning_content` and `reasoning` fragments")
    if present:
        _append_text(n, delta, present[0], into)


def _merge_extra(call: _Call, extra: dict[str, Any]) -> None:
    """Rule 5: each key of a later extra_content object replaces the same key of an earlier one."""
    call.extra_content = {**(call.extra_content or {}), **extra}


def _merge_name(n: int, call: _Call, name: str) -> str:
    call.last_chunk = n
    if call.name is None or call.name == name:
        return name
    if not call.fragments.length:
        if name.startswith(call.name):
            return name  # rule 3: the whole name so far, re-sent (a snapshot), replaces the shorter one
        return call.name + name  # rule 3: a name split across chunks
    raise AssemblyError(n, f"tool call name changes from {call.name!r} to {name!r} after its arguments began")


def _nonempty(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _message_of(n: int, obj: dict[str, Any]) -> str:
    message = obj.get("message")
    if not isinstance(message, str):
        raise AssemblyError(n, "error object has no string `message`")
    return message


def _error_of(n: int, error: Any) -> dict[str, Any]:
    if isinstance(error, str):
        return {"type": None, "message": error}
    if not isinstance(error, dict):
        raise AssemblyError(n, "`error` is neither an object nor a string")
    return {"type": error_type(error), "message": _message_of(n, error)}


Assembler = ChatAssembler  # what the registry hands out (deltacheck.protocols.spec.Protocol.assembler)
