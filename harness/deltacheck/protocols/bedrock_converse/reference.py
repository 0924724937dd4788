"""Reference assembler for Bedrock ConverseStream events (CONTRACT.md 3.3, bedrock-converse rules).

Blocks are keyed by `contentBlockIndex`, their position in the message's content. A block's kind comes
from its `contentBlockStart` when one names it (toolUse, toolResult, image), else from its first delta's
member (text and reasoning blocks open without a start). Text, reasoning text and toolUse input are
concatenated; a reasoning signature and redacted content arrive in deltas of their own. The stop reason
comes from `messageStop`, the usage from `metadata`, in either order; a modelled exception ends the stream.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from deltacheck.errors import AssemblyError
from deltacheck.protocols.bedrock_converse import EVENTS
from deltacheck.protocols.bedrock_converse.frames import ERROR, EXCEPTION_SUFFIX, FRAME_ERROR
from deltacheck.reference.fragments import Fragments
from deltacheck.reference.parts import ReferenceOutcome, reasoning_part, text_part, tool_call_part

# A block's kind, by the member of its start (`ContentBlockStart`) or of its first delta (`ContentBlockDelta`).
START_KINDS = {"toolUse": "tool", "toolResult": "tool_result", "image": "image"}
DELTA_KINDS = {
    "text": "text",
    "citation": "text",
    "toolUse": "tool",
    "toolResult": "tool_result",
    "image": "image",
    "reasoningContent": "reasoning",  # or "redacted", by its member (_reasoning_kind)
}
TOOL_KINDS = {None: "function", "server_tool_use": "server"}  # ToolUseBlockStart.type -> the call's kind


@dataclass
class _Block:
    index: int
    kind: str | None  # None: a start that names no kind (`start: {}`) and no delta yet
    tool: dict[str, Any] = field(default_factory=dict)  # the start's toolUse or toolResult member
    text: Fragments = field(default_factory=Fragments)  # text, or reasoning text
    annotations: list[Any] = field(default_factory=list)  # citation deltas
    signature: str | None = None
    redacted: bytearray = field(default_factory=bytearray)
    input: Fragments = field(default_factory=Fragments)  # toolUse input fragments
    results: list[Any] = field(default_factory=list)  # toolResult delta items
    last_chunk: int = 0
    stopped: bool = False


class BedrockConverseAssembler:
    def __init__(self) -> None:
        self.blocks: dict[int, _Block] = {}
        self.stop_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.completed: set[int] = set()  # the blocks whose call has its completion event
        self.chunks_seen = 0

    def feed(self, n: int, chunk: Any) -> None:
        self.chunks_seen = n + 1
        if self.error is not None:
            return  # an exception ends the stream (rule 7)
        if not isinstance(chunk, dict) or len(chunk) != 1:
            raise AssemblyError(n, "a chunk is an object with exactly one key, its event or exception type")
        ((name, value),) = chunk.items()
        if name == FRAME_ERROR:
            raise AssemblyError(n, f"the stream must end here: {value} (the message cannot be trusted)")
        if name == ERROR:
            self.error = _unmodelled_error(n, value)
            return
        if name.endswith(EXCEPTION_SUFFIX):
            self.error = _exception(n, name, value)
            return
        if name not in EVENTS:
            return  # an event type of a later version of the API carries nothing this contract assembles (rule 8)
        if not isinstance(value, dict):
            raise AssemblyError(n, f"{name} is {type(value).__name__}, not an object")
        if name == "contentBlockStart":
            self._start(n, value)
        elif name == "contentBlockDelta":
            self._delta(n, value)
        elif name == "contentBlockStop":
            self._stop(n, self._existing(n, name, value))
        elif name == "messageStop":
            self._message_stop(n, value)
        elif name == "metadata":
            usage = value.get("usage")
            if usage is not None:
                if not isinstance(usage, dict):
                    raise AssemblyError(n, "metadata.usage is not an object")
                self.usage = dict(usage)  # whole, as sent; a later one replaces it (rule 6)
        # messageStart carries only the role

    # -- blocks ---------------------------------------------------------------------------------------

    def _start(self, n: int, event: dict[str, Any]) -> None:
        index = _index(n, "contentBlockStart", event)
        if index in self.blocks:
            raise AssemblyError(n, f"contentBlockStart for block {index}, which already began")
        start = event.get("start")
        if start is None:
            start = {}
        if not isinstance(start, dict):
            raise AssemblyError(n, "contentBlockStart.start is not an object")
        members = [key for key in start if key in START_KINDS]
        if len(members) > 1:
            raise AssemblyError(n, f"contentBlockStart.start carries {' and '.join(members)}: a union holds one")
        block = _Block(index, START_KINDS[members[0]] if members else ("unknown" if start else None), last_chunk=n)
        if members:
            block.tool = start[members[0]] if isinstance(start[members[0]], dict) else {}
            if block.kind == "tool":
                _check_tool_start(n, block.tool)
        self.blocks[index] = block

    def _delta(self, n: int, event: dict[str, Any]) -> None:
        index = _index(n, "contentBlockDelta", event)
        delta = event.get("delta")
        if not isinstance(delta, dict):
            raise AssemblyError(n, "contentBlockDelta carries no `delta` object")
        members = [key for key in delta if key in DELTA_KINDS]
        if len(members) > 1:
            raise AssemblyError(n, f"contentBlockDelta.delta carries {' and '.join(members)}: a union holds one")
        if not members:
            return  # a delta member of a later version of the API (rule 8)
        member = members[0]
        value = delta[member]
        kind = _reasoning_kind(n, value) if member == "reasoningContent" else DELTA_KINDS[member]
        block = self.blocks.get(index)
        if block is None:  # text and reasoning blocks begin with their first delta (rule 2)
            block = self.blocks[index] = _Block(index, kind, last_chunk=n)
        if block.stopped:
            raise AssemblyError(n, f"contentBlockDelta for block {index} after its contentBlockStop")
        if block.kind is None:
            block.kind = kind  # a start that named no kind (`start: {}`): the first delta does
        if block.kind == "unknown":
            return
        if block.kind != kind:
            raise AssemblyError(n, f"a {member} delta for block {index}, a {block.kind} block")
        self._apply(n, block, member, value)

    def _apply(self, n: int, block: _Block, member: str, value: Any) -> None:
        if member == "text":
            block.text.append(_string(n, "delta.text", value))
        elif member == "citation":
            block.annotations.append(value)
        elif member == "toolUse":
            if not isinstance(value, dict):
                raise AssemblyError(n, "delta.toolUse is not an object")
            block.input.append(_string(n, "delta.toolUse.input", value.get("input")))
            block.last_chunk = n
        elif member == "toolResult":
            if not isinstance(value, list):
                raise AssemblyError(n, "delta.toolResult is not a list")
            block.results.extend(value)
        elif member == "reasoningContent":
            if "text" in value:
                block.text.append(_string(n, "delta.reasoningContent.text", value["text"]))
            if "signature" in value:
                block.signature = _string(n, "delta.reasoningContent.signature", value["signature"])
            if "redactedContent" in value:
                block.redacted += _blob(n, value["redactedContent"])
        # an image delta carries nothing the canonical result holds (rule 8)

    def _existing(self, n: int, name: str, event: dict[str, Any]) -> _Block:
        index = _index(n, name, event)
        if index not in self.blocks:
            raise AssemblyError(n, f"{name} for block {index}, which never began")
        return self.blocks[index]

    def _stop(self, n: int, block: _Block) -> None:
        if block.stopped:
            raise AssemblyError(n, f"contentBlockStop for block {block.index}, which already stopped")
        block.stopped = True
        self._complete(n, block)

    def _message_stop(self, n: int, event: dict[str, Any]) -> None:
        reason = event.get("stopReason")
        if not isinstance(reason, str) or not reason:
            raise AssemblyError(n, "messageStop carries no `stopReason` string")
        self.stop_reason = reason
        for index in sorted(self.blocks):  # the message is over: a call never stopped is complete (rule 4)
            self._complete(n, self.blocks[index])

    def _complete(self, n: int, block: _Block) -> None:
        if block.kind != "tool" or block.index in self.completed:
            return
        self.completed.add(block.index)
        self.events.append(
            {
                "type": "tool_call_done",
                "choice": 0,
                "id": block.tool.get("toolUseId"),
                "name": block.tool.get("name"),
                "arguments": _arguments(block),
                "after_chunk": n,
            }
        )

    # -- the result -----------------------------------------------------------------------------------

    def finish(self) -> ReferenceOutcome:
        for index in sorted(self.blocks):  # a call the stream cut off completes when the stream ends
            self._complete(max(self.chunks_seen - 1, 0), self.blocks[index])
        parts: list[dict[str, Any]] = []
        last_fragment: dict[tuple[int, int], int] = {}
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.kind == "tool":
                last_fragment[(0, len(parts))] = block.last_chunk
            part = _canonical(block)
            if part is not None:
                parts.append(part)
        choice = {"index": 0, "parts": parts, "finish_reason": self.stop_reason, "finish_detail": None}
        result = {"choices": [choice], "usage": self.usage, "error": self.error, "events": self.events}
        return ReferenceOutcome(result, last_fragment)


def _canonical(block: _Block) -> dict[str, Any] | None:
    """The part a block is, or None for a block that carries nothing the result holds (rules 3 and 8)."""
    if block.kind == "text":
        text = block.text.text()
        return text_part(text, block.annotations) if text or block.annotations else None
    if block.kind == "reasoning":
        text = block.text.text()
        return reasoning_part(text, [], block.signature) if text or block.signature is not None else None
    if block.kind == "redacted":
        return {"type": "redacted_reasoning", "data": base64.b64encode(bytes(block.redacted)).decode("ascii")}
    if block.kind == "tool":
        kind = TOOL_KINDS[block.tool.get("type")]
        return tool_call_part(kind, block.tool["toolUseId"], None, block.tool["name"], _arguments(block))
    if block.kind == "tool_result":
        return {
            "type": "server_tool_result",
            "block_type": "toolResult",
            "tool_use_id": block.tool.get("toolUseId", ""),
            "content": list(block.results),
        }
    return None  # an image, a block of a later version of the API, or a start no delta followed


def _arguments(block: _Block) -> str:
    """The input fragments joined; none at all, or only "", is the empty object (rule 4)."""
    return block.input.text() or "{}"


def _reasoning_kind(n: int, value: Any) -> str:
    """ReasoningContentBlockDelta is a union: text and signature build a reasoning block, redactedContent a
    redacted one."""
    if not isinstance(value, dict):
        raise AssemblyError(n, "delta.reasoningContent is not an object")
    if "redactedContent" in value:
        if "text" in value or "signature" in value:
            raise AssemblyError(n, "delta.reasoningContent carries redactedContent beside text or a signature")
        return "redacted"
    return "reasoning"


def _check_tool_start(n: int, tool: dict[str, Any]) -> None:
    for key in ("toolUseId", "name"):
        if not isinstance(tool.get(key), str) or not tool[key]:
            raise AssemblyError(n, f"contentBlockStart.start.toolUse carries no `{key}` string")
    if tool.get("type") not in TOOL_KINDS:
        raise AssemblyError(n, f"contentBlockStart.start.toolUse.type is {tool['type']!r}, not server_tool_use")


def _index(n: int, name: str, event: dict[str, Any]) -> int:
    value = event.get("contentBlockIndex")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise AssemblyError(n, f"{name}: `contentBlockIndex` is {value!r}, not a non-negative integer")
    return value


def _string(n: int, where: str, value: Any) -> str:
    if not isinstance(value, str):
        raise AssemblyError(n, f"{where} is {value!r}, not a string")
    return value


def _blob(n: int, value: Any) -> bytes:
    """A blob member: base64 text on the wire (Smithy's JSON protocols)."""
    try:
        return base64.b64decode(_string(n, "delta.reasoningContent.redactedContent", value), validate=True)
    except binascii.Error as exc:
        raise AssemblyError(n, f"delta.reasoningContent.redactedContent is not base64: {exc}") from None


def _exception(n: int, name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise AssemblyError(n, f"{name} is not an object")
    message = value.get("message", value.get("Message", ""))
    return {"type": name, "message": _string(n, f"{name}.message", message)}


def _unmodelled_error(n: int, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise AssemblyError(n, f"{ERROR} is not an object")
    code, message = value.get("Code"), value.get("Message")
    return {"type": _string(n, "Error.Code", code) or None, "message": _string(n, "Error.Message", message)}


Assembler = BedrockConverseAssembler  # what the registry hands out (deltacheck.protocols.spec.Protocol.assembler)
