"""Reference assembler for Anthropic Messages stream events (CONTRACT.md 3.3, anthropic-messages rules)."""

from __future__ import annotations

from dataclasses import dataclass, field
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

# A client runs `tool_use` calls; the API runs `server_tool_use` and `mcp_tool_use` calls itself and
# streams their `*_tool_result` block after them, so a client must not run them (CONTRACT 3.1).
TOOL_KINDS = {"tool_use": "function", "server_tool_use": "server", "mcp_tool_use": "server"}
DELTA_TARGETS = {
    "text_delta": ("text",),
    "citations_delta": ("text",),
    "thinking_delta": ("thinking",),
    "signature_delta": ("thinking",),
    "input_json_delta": tuple(TOOL_KINDS),
}


@dataclass
class _Block:
    type: str
    start: dict[str, Any]
    text_fragments: Fragments = field(default_factory=Fragments)  # text, or thinking
    annotations: list[Any] = field(default_factory=list)
    signature: str | None = None
    json_fragments: Fragments = field(default_factory=Fragments)  # partial_json
    last_chunk: int = 0
    stopped: bool = False

    @property
    def text(self) -> str:
        return self.text_fragments.text()

    @text.setter
    def text(self, text: str) -> None:
        self.text_fragments = Fragments(text)

    @property
    def partial_json(self) -> str:
        return self.json_fragments.text()

    @partial_json.setter
    def partial_json(self, text: str) -> None:
        self.json_fragments = Fragments(text)


class AnthropicAssembler:
    def __init__(self) -> None:
        self.blocks: dict[int, _Block] = {}
        self.usage: dict[str, Any] | None = None
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.error: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.chunks_seen = 0

    def feed(self, n: int, event: Any) -> None:
        self.chunks_seen = n + 1
        if self.error is not None:
            return  # an error event ends the stream
        if not isinstance(event, dict):
            raise AssemblyError(n, f"event is {type(event).__name__}, not a JSON object")
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message")
            if not isinstance(message, dict):
                raise AssemblyError(n, "message_start carries no `message` object")
            usage = message.get("usage")
            self.usage = dict(usage) if isinstance(usage, dict) else None
            self._message_so_far(n, message)
        elif kind == "content_block_start":
            self._block_start(n, event)
        elif kind == "content_block_delta":
            self._block_delta(n, event)
        elif kind == "content_block_stop":
            self._block_stop(n, event)
        elif kind == "message_delta":
            self._message_delta(n, event)
        elif kind == "error":
            error = event.get("error")
            if not isinstance(error, dict) or not isinstance(error.get("message"), str):
                raise AssemblyError(n, "error event carries no `error` object with a string `message`")
            self.error = {"type": error_type(error), "message": error["message"]}
        elif not isinstance(kind, str):
            raise AssemblyError(n, "event has no string `type`")
        # message_stop, ping and unknown event types carry nothing to assemble

    def _message_so_far(self, n: int, message: dict[str, Any]) -> None:
        """What `message_start` says the message already is (rule 7): blocks that need no events, a stop reason.

        Programmatic tool calling answers a tool result with a whole message in `message_start` (its
        `tool_use` blocks and `stop_reason: tool_use`), followed by `message_stop` alone.
        """
        content = message.get("content")
        if content is not None and not isinstance(content, list):
            raise AssemblyError(n, f"message_start.message.content is {type(content).__name__}, not a list")
        for index, raw in enumerate(content or []):
            if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                raise AssemblyError(n, f"message_start.message.content[{index}] is not a block with a string `type`")
            self._complete(n, self._open_block(n, index, raw))
        if message.get("stop_reason") is not None:
            self.stop_reason = message["stop_reason"]
        if message.get("stop_sequence") is not None:
            self.stop_sequence = message["stop_sequence"]

    def _block_start(self, n: int, event: dict[str, Any]) -> None:
        index = _index(n, event)
        raw = event.get("content_block")
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            raise AssemblyError(n, "content_block_start carries no `content_block` with a string `type`")
        self._open_block(n, index, raw)

    def _open_block(self, n: int, index: int, raw: dict[str, Any]) -> _Block:
        if index in self.blocks:
            raise AssemblyError(n, f"content block {index} started twice")
        block = _Block(type=raw["type"], start=raw, last_chunk=n)
        if block.type == "text":
            block.text = raw.get("text") or ""
            block.annotations = list(raw.get("citations") or [])
        elif block.type == "thinking":
            block.text = raw.get("thinking") or ""
            block.signature = raw.get("signature") or None
        self.blocks[index] = block
        return block

    def _block_at(self, n: int, event: dict[str, Any]) -> _Block:
        index = _index(n, event)
        if index not in self.blocks:
            raise AssemblyError(n, f"{event['type']} for block {index} before its content_block_start")
        return self.blocks[index]

    def _block_delta(self, n: int, event: dict[str, Any]) -> None:
        block = self._block_at(n, event)
        delta = event.get("delta")
        if not isinstance(delta, dict) or not isinstance(delta.get("type"), str):
            raise AssemblyError(n, "content_block_delta carries no `delta` with a string `type`")
        kind = delta["type"]
        targets = DELTA_TARGETS.get(kind)
        if targets is None:
            return  # a delta type this contract version does not assemble
        if block.type not in targets:
            raise AssemblyError(n, f"{kind} for a {block.type} block")
        if kind == "citations_delta":
            block.annotations.append(delta.get("citation"))
            return
        field_name = {
            "text_delta": "text",
            "thinking_delta": "thinking",
            "signature_delta": "signature",
            "input_json_delta": "partial_json",
        }[kind]
        value = delta.get(field_name)
        if not isinstance(value, str):
            raise AssemblyError(n, f"{kind}.{field_name} is {value!r}, not a string")
        if kind == "signature_delta":
            block.signature = value
        elif kind == "input_json_delta":
            block.json_fragments.append(value)
            block.last_chunk = n
        else:
            block.text_fragments.append(value)

    def _block_stop(self, n: int, event: dict[str, Any]) -> None:
        self._complete(n, self._block_at(n, event))

    def _complete(self, n: int, block: _Block) -> None:
        if block.stopped:
            return
        block.stopped = True
        if block.type in TOOL_KINDS:
            self.events.append(
                {
                    "type": "tool_call_done",
                    "choice": 0,
                    "id": block.start.get("id"),
                    "name": block.start.get("name"),
                    "arguments": _arguments(block),
                    "after_chunk": n,
                }
            )

    def _message_delta(self, n: int, event: dict[str, Any]) -> None:
        delta = event.get("delta") or {}
        if not isinstance(delta, dict):
            raise AssemblyError(n, "message_delta.delta is not an object")
        if delta.get("stop_reason") is not None:
            self.stop_reason = delta["stop_reason"]
        if delta.get("stop_sequence") is not None:
            self.stop_sequence = delta["stop_sequence"]
        usage = event.get("usage")
        if isinstance(usage, dict):
            # message_delta usage is cumulative: it overwrites, field by field, never adds
            merged = dict(self.usage or {})
            merged.update({key: value for key, value in usage.items() if value is not None})
            self.usage = merged

    def finish(self) -> ReferenceOutcome:
        for index in sorted(self.blocks):  # a block the stream never stopped (cut off) ends with the stream
            self._complete(max(self.chunks_seen - 1, 0), self.blocks[index])
        parts: list[dict[str, Any]] = []
        last_fragment: dict[tuple[int, int], int] = {}
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.type == "text":
                parts.append(text_part(block.text, block.annotations))
            elif block.type == "thinking":
                parts.append(reasoning_part(block.text, [], block.signature))
            elif block.type == "redacted_thinking":
                parts.append({"type": "redacted_reasoning", "data": block.start.get("data", "")})
            elif block.type in TOOL_KINDS:
                last_fragment[(0, len(parts))] = block.last_chunk
                parts.append(
                    tool_call_part(
                        TOOL_KINDS[block.type], block.start.get("id"), None, block.start.get("name"), _arguments(block)
                    )
                )
            elif block.type.endswith("_tool_result"):
                parts.append(
                    {
                        "type": "server_tool_result",
                        "block_type": block.type,
                        "tool_use_id": block.start.get("tool_use_id", ""),
                        "content": block.start.get("content"),
                    }
                )
        choice = {"index": 0, "parts": parts, "finish_reason": self.stop_reason, "finish_detail": self.stop_sequence}
        result = {"choices": [choice], "usage": self.usage, "error": self.error, "events": self.events}
        return ReferenceOutcome(result, last_fragment)


def _arguments(block: _Block) -> str:
    if block.partial_json:
        return block.partial_json
    start_input = block.start.get("input")
    return json_text(start_input if start_input is not None else {})


def _index(n: int, event: dict[str, Any]) -> int:
    value = event.get("index")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise AssemblyError(n, f"{event.get('type')}: `index` is {value!r}, not a non-negative integer")
    return value


Assembler = AnthropicAssembler  # what the registry hands out (deltacheck.protocols.spec.Protocol.assembler)
