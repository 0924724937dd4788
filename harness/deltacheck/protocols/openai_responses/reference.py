"""Reference assembler for OpenAI Responses stream events (CONTRACT.md 3.3, openai-responses rules)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deltacheck.errors import AssemblyError
from deltacheck.json_spec import parse as parse_json
from deltacheck.reference.fragments import Fragments
from deltacheck.reference.parts import (
    ReferenceOutcome,
    error_type,
    json_text,
    reasoning_part,
    refusal_part,
    text_part,
    tool_call_part,
)

TERMINAL = ("response.completed", "response.incomplete", "response.failed")
CALL_KINDS = {"function_call": "function", "custom_tool_call": "custom"}
# Built-in tool calls the client carries out or answers (CONTRACT 3.1): item type -> the field that holds what
# the client acts on. A shell_call run in a hosted container and a tool_search_call the server executes are
# the API's own work, whose output follows in the same response: they are no call for the client.
BUILTIN_PAYLOADS = {
    "apply_patch_call": "operation",
    "local_shell_call": "action",
    "shell_call": "action",
    "tool_search_call": "arguments",
    "mcp_approval_request": None,  # its server_label, name and arguments together
}
MCP_APPROVAL_FIELDS = ("server_label", "name", "arguments")


@dataclass
class _Content:
    type: str  # output_text | refusal | reasoning_text | anything else (ignored)
    fragments: Fragments = field(default_factory=Fragments)  # the text
    annotations: list[Any] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.fragments.text()

    @text.setter
    def text(self, text: str) -> None:
        self.fragments = Fragments(text)


@dataclass
class _Item:
    type: str
    id: str | None
    call_id: str | None = None
    name: str | None = None
    fragments: Fragments = field(default_factory=Fragments)  # the arguments (or a custom tool's input)
    content: dict[int, _Content] = field(default_factory=dict)
    summary: dict[int, Fragments] = field(default_factory=dict)
    encrypted_content: str | None = None
    last_chunk: int = 0
    done_emitted: bool = False
    finished: bool = False  # its output_item.done arrived: the stream itself said it is whole
    output_index: int = 0  # where the stream put it; items that share one keep the order they were added in
    arguments_done: str | None = None  # what function_call_arguments.done said the final arguments are
    conflicting: bool = False  # output_item.done then said otherwise (rule 2: the conflict is reported)
    payload: Any = None  # a built-in call: what the client acts on, as the latest full item carried it
    runs_on_server: bool = False  # a hosted shell_call, a server-executed tool_search_call

    @property
    def is_client_builtin(self) -> bool:
        return self.type in BUILTIN_PAYLOADS and not self.runs_on_server

    @property
    def call_kind(self) -> str | None:
        """The canonical kind of tool call this item is, or None when it is none."""
        if self.type in CALL_KINDS:
            return CALL_KINDS[self.type]
        return "builtin" if self.is_client_builtin else None

    @property
    def answer_id(self) -> str | None:
        """The id the client's answer names: `call_id`, or an approval request's own id."""
        return self.id if self.type == "mcp_approval_request" else self.call_id

    @property
    def call_arguments(self) -> str:
        if self.type in CALL_KINDS:
            return self.arguments
        return "" if self.payload is None else json_text(self.payload)

    @property
    def arguments(self) -> str:
        return self.fragments.text()

    @arguments.setter
    def arguments(self, text: str) -> None:
        self.fragments = Fragments(text)


class ResponsesAssembler:
    def __init__(self) -> None:
        self.items: list[_Item] = []  # in the order they were added; output_index orders them (finish)
        self.terminal: dict[str, Any] | None = None
        self.terminal_chunk = 0
        self.error: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.chunks_seen = 0

    def feed(self, n: int, event: Any) -> None:
        self.chunks_seen = n + 1
        if not isinstance(event, dict):
            raise AssemblyError(n, f"event is {type(event).__name__}, not a JSON object")
        kind = event.get("type")
        if not isinstance(kind, str):
            raise AssemblyError(n, "event has no string `type`")
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, n, event)
        elif kind in TERMINAL:
            self._terminal(n, event)
        # rule 5: unknown event types (keepalive, new hosted-tool events) are ignored

    # -- items -----------------------------------------------------------------------------------

    def _new_item(self, n: int, raw: dict[str, Any], index: int) -> _Item:
        item = _Item(type=raw["type"], id=raw.get("id"), last_chunk=n, output_index=index)
        self.items.append(item)
        return item

    def _items_at(self, index: int) -> list[_Item]:
        return [item for item in self.items if item.output_index == index]

    def _item_added(self, n: int, event: dict[str, Any]) -> None:
        index = _int_field(n, event, "output_index")
        raw = _item_of(n, event)
        for earlier in self._items_at(index):
            if raw.get("id") and earlier.id == raw["id"]:
                raise AssemblyError(n, f"output_index {index}: item {raw['id']!r} was already added")
        # Rule 1: an index a producer reuses for another item (Chat->Responses shims do) holds both, in the
        # order they were added; from here on the item id tells its events apart.
        self._apply_item(n, self._new_item(n, raw, index), raw)

    def _item_done(self, n: int, event: dict[str, Any]) -> None:
        index = _int_field(n, event, "output_index")
        raw = _item_of(n, event)
        here = self._items_at(index)
        item = _by_id(here, raw.get("id")) or (here[-1] if here else None) or self._new_item(n, raw, index)
        final = raw.get("arguments")
        if item.type == "function_call" and item.arguments_done is not None and isinstance(final, str) and final:
            item.conflicting = not _same_arguments(final, item.arguments_done)  # rule 2: two final values
        self._apply_item(n, item, raw)
        item.finished = True
        self._call_done(n, item)  # output_item.done is the item's final state: its call completes here

    def _apply_item(self, n: int, item: _Item, raw: dict[str, Any], identity: bool = True) -> None:
        """Take the fields a full item carries (output_item.added / .done, a terminal output item); with
        `identity` false, only the ones the item does not have yet."""
        for name in ("id", "call_id", "name"):
            if isinstance(raw.get(name), str) and raw[name] and (identity or not getattr(item, name)):
                setattr(item, name, raw[name])
        if item.type == "function_call" and isinstance(raw.get("arguments"), str) and raw["arguments"]:
            if raw["arguments"] != item.arguments:
                item.arguments, item.last_chunk = raw["arguments"], n
        if item.type == "custom_tool_call" and isinstance(raw.get("input"), str) and raw["input"]:
            if raw["input"] != item.arguments:
                item.arguments, item.last_chunk = raw["input"], n
        if isinstance(raw.get("content"), list) and raw["content"]:
            for position, part in enumerate(raw["content"]):
                item.content[position] = _content_of(n, part)
        if isinstance(raw.get("summary"), list) and raw["summary"]:
            item.summary = {i: Fragments(_text_of(n, s)) for i, s in enumerate(raw["summary"])}
        if isinstance(raw.get("encrypted_content"), str):
            item.encrypted_content = raw["encrypted_content"]
        if item.type in BUILTIN_PAYLOADS:
            self._apply_builtin(n, item, raw)

    def _apply_builtin(self, n: int, item: _Item, raw: dict[str, Any]) -> None:
        """A built-in call's payload, as the latest full item carries it, and whether the API runs it itself."""
        key = BUILTIN_PAYLOADS[item.type]
        if key is None:
            payload: Any = {name: raw[name] for name in MCP_APPROVAL_FIELDS if name in raw} or None
        else:
            payload = raw.get(key)
        if payload is not None and payload != item.payload:
            item.payload, item.last_chunk = payload, n
        if item.type == "shell_call" and "environment" in raw:
            environment = raw["environment"]
            item.runs_on_server = isinstance(environment, dict) and environment.get("type") not in (None, "local")
        if item.type == "tool_search_call" and "execution" in raw:
            item.runs_on_server = raw["execution"] != "client"

    def _item_at(self, n: int, event: dict[str, Any]) -> _Item:
        index = _int_field(n, event, "output_index")
        here = self._items_at(index)
        if not here:
            raise AssemblyError(n, f"{event['type']} for output_index {index} before its output_item.added")
        # Rule 1: the index is the key and item_id a cross-check, except where the index holds several items.
        if len(here) > 1:
            return _by_id(here, event.get("item_id")) or here[-1]
        return here[0]

    # -- content parts ---------------------------------------------------------------------------

    def _part_added(self, n: int, event: dict[str, Any]) -> None:
        item = self._item_at(n, event)
        item.content[_int_field(n, event, "content_index")] = _content_of(n, event.get("part"))

    def _part_at(self, n: int, event: dict[str, Any], kind: str) -> _Content:
        item = self._item_at(n, event)
        index = _int_field(n, event, "content_index")
        if index not in item.content:
            if kind == "reasoning_text":  # reasoning text arrives without a content_part.added
                item.content[index] = _Content("reasoning_text")
            else:
                raise AssemblyError(n, f"{event['type']} for content_index {index} before its content_part.added")
        return item.content[index]

    def _text_delta(self, n: int, event: dict[str, Any], kind: str) -> None:
        self._part_at(n, event, kind).fragments.append(_str_field(n, event, "delta"))

    def _text_done(self, n: int, event: dict[str, Any], kind: str, name: str) -> None:
        self._part_at(n, event, kind).text = _str_field(n, event, name)

    def _annotation_added(self, n: int, event: dict[str, Any]) -> None:
        part = self._part_at(n, event, "output_text")
        index = _int_field(n, event, "annotation_index")
        annotation = event.get("annotation")
        if not isinstance(annotation, dict):
            raise AssemblyError(n, "annotation is not an object")
        if index < len(part.annotations):
            part.annotations[index] = annotation
        elif index == len(part.annotations):
            part.annotations.append(annotation)
        else:
            raise AssemblyError(n, f"annotation_index {index} skips past {len(part.annotations)}")

    # -- reasoning summaries ---------------------------------------------------------------------

    def _summary_delta(self, n: int, event: dict[str, Any]) -> None:
        item = self._item_at(n, event)
        index = _int_field(n, event, "summary_index")
        delta = _str_field(n, event, "delta")
        item.summary.setdefault(index, Fragments()).append(delta)

    def _summary_done(self, n: int, event: dict[str, Any], source: str) -> None:
        item = self._item_at(n, event)
        index = _int_field(n, event, "summary_index")
        if source == "part":
            item.summary[index] = Fragments(_text_of(n, event.get("part")))
        else:
            item.summary[index] = Fragments(_str_field(n, event, "text"))

    def _summary_part_added(self, n: int, event: dict[str, Any]) -> None:
        item = self._item_at(n, event)
        item.summary.setdefault(_int_field(n, event, "summary_index"), Fragments())

    # -- tool calls ------------------------------------------------------------------------------

    def _arguments_delta(self, n: int, event: dict[str, Any]) -> None:
        item = self._item_at(n, event)
        item.fragments.append(_str_field(n, event, "delta"))
        item.last_chunk = n

    def _arguments_done(self, n: int, event: dict[str, Any], name: str) -> None:
        # The arguments are replaced, but the call completes at its output_item.done (or at the end
        # of the stream), which may still replace them: the event must carry what the result holds.
        item = self._item_at(n, event)
        value = _str_field(n, event, name)
        if item.type == "function_call":
            item.arguments_done = value
        if value != item.arguments:
            item.arguments, item.last_chunk = value, n

    def _call_done(self, n: int, item: _Item) -> None:
        if item.call_kind is not None and not item.done_emitted:
            item.done_emitted = True
            self.events.append(
                {
                    "type": "tool_call_done",
                    "choice": 0,
                    "id": item.answer_id,
                    "name": item.type if item.call_kind == "builtin" else item.name,
                    "arguments": item.call_arguments,
                    "after_chunk": n,
                }
            )

    # -- lifecycle -------------------------------------------------------------------------------

    def _terminal(self, n: int, event: dict[str, Any]) -> None:
        response = event.get("response")
        if not isinstance(response, dict):
            raise AssemblyError(n, f"{event['type']} carries no `response` object")
        self.terminal = response
        self.terminal_chunk = n
        failure = response.get("error")
        if isinstance(failure, dict) and self.error is None:
            self.error = {"type": error_type(failure), "message": str(failure.get("message", ""))}

    def _error_event(self, n: int, event: dict[str, Any]) -> None:
        nested = event.get("error")
        source = nested if isinstance(nested, dict) else event  # live streams nest; the spec is flat
        message = source.get("message")
        if not isinstance(message, str):
            raise AssemblyError(n, "error event has no string `message`")
        if self.error is None:  # a flat event's own `type` is the event type ("error"), not the error's
            self.error = {"type": error_type(source, "type" if source is nested else None), "message": message}

    def _fill_from_terminal(self) -> None:
        """Rule 3: the terminal response's output completes what the events left unfinished.

        A terminal item stands for the streamed item with its `id`; failing that, for the streamed item
        of its type with its `call_id`; failing that, for the streamed item of its type at its position
        (proxies drop or re-mint ids). Each streamed item stands for one terminal item at most. An item
        without its output_item.done takes the fields the terminal item carries, but keeps the identity
        the events gave it; an item the terminal output alone carries is taken from it, after any the
        events put at its position. Items the events finished keep what the events said, and an empty
        or missing terminal output (proxies send one) changes nothing.
        """
        output = (self.terminal or {}).get("output")
        if not isinstance(output, list):
            return
        n = self.terminal_chunk
        claimed: set[int] = set()
        for position, raw in enumerate(output):
            if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                raise AssemblyError(n, f"terminal response output[{position}] is not an object with a string `type`")
            item = self._stood_for(raw, position, claimed)
            if item is None:
                item = self._new_item(n, raw, position)
                self._apply_item(n, item, raw)
            elif not item.finished:
                self._apply_item(n, item, raw, identity=False)
            claimed.add(id(item))

    def _stood_for(self, raw: dict[str, Any], position: int, claimed: set[int]) -> _Item | None:
        """The streamed item a terminal output item stands for (rule 3), or None."""
        free = [item for item in self.items if id(item) not in claimed]
        same_type = [item for item in free if item.type == raw["type"]]
        return (
            _by_id(free, raw.get("id"))
            or _by_call_id(same_type, raw.get("call_id"))
            or next((item for item in same_type if item.output_index == position), None)
        )

    def finish(self) -> ReferenceOutcome:
        self._fill_from_terminal()
        ordered = sorted(self.items, key=lambda item: item.output_index)  # stable: arrival order within an index
        for item in ordered:  # a call the stream never marked done ends with the stream
            self._call_done(max(self.chunks_seen - 1, 0), item)
        parts: list[dict[str, Any]] = []
        last_fragment: dict[tuple[int, int], int] = {}
        for item in ordered:
            if item.type == "message":
                for position in sorted(item.content):
                    content = item.content[position]
                    if content.type == "output_text":
                        parts.append(text_part(content.text, content.annotations))
                    elif content.type == "refusal":
                        parts.append(refusal_part(content.text))
            elif item.type == "reasoning":
                text = "".join(
                    item.content[i].text for i in sorted(item.content) if item.content[i].type == "reasoning_text"
                )
                summary = [item.summary[i].text() for i in sorted(item.summary)]
                parts.append(reasoning_part(text, summary, item.encrypted_content))
            elif item.call_kind is not None:
                last_fragment[(0, len(parts))] = item.last_chunk
                name = item.type if item.call_kind == "builtin" else item.name
                part = tool_call_part(item.call_kind, item.answer_id, item.id, name, item.call_arguments)
                if item.conflicting:
                    part["flagged"] = True  # rule 2: the stream gave two final values; the conflict is reported
                parts.append(part)
        terminal = self.terminal or {}
        details = terminal.get("incomplete_details")
        choice = {
            "index": 0,
            "parts": parts,
            "finish_reason": terminal.get("status"),
            "finish_detail": details.get("reason") if isinstance(details, dict) else None,
        }
        result = {"choices": [choice], "usage": terminal.get("usage"), "error": self.error, "events": self.events}
        return ReferenceOutcome(result, last_fragment)


def _by_id(items: list[_Item], item_id: Any) -> _Item | None:
    return next((item for item in items if item_id and item.id == item_id), None)


def _by_call_id(items: list[_Item], call_id: Any) -> _Item | None:
    return next((item for item in items if call_id and item.call_id == call_id), None)


def _same_arguments(a: str, b: str) -> bool:
    """Two arguments texts say the same when they parse to equal JSON (a relay re-serialising one changes
    nothing), or, when one does not parse, when they are the same text."""
    if a == b:
        return True
    try:
        return bool(parse_json(a) == parse_json(b))
    except ValueError:  # not JSON (RFC 8259), or too deep to read
        return False


def _item_of(n: int, event: dict[str, Any]) -> dict[str, Any]:
    raw = event.get("item")
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise AssemblyError(n, f"{event.get('type')}: `item` is not an object with a string `type`")
    return raw


def _content_of(n: int, raw: Any) -> _Content:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise AssemblyError(n, "content part is not an object with a string `type`")
    kind = raw["type"]
    text = raw.get("refusal") if kind == "refusal" else raw.get("text")
    annotations = raw["annotations"] if isinstance(raw.get("annotations"), list) else []
    return _Content(kind, Fragments(text if isinstance(text, str) else ""), list(annotations))


def _text_of(n: int, raw: Any) -> str:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise AssemblyError(n, "summary part has no string `text`")
    return raw["text"]


def _int_field(n: int, event: dict[str, Any], name: str) -> int:
    value = event.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise AssemblyError(n, f"{event.get('type')}: `{name}` is {value!r}, not a non-negative integer")
    return value


def _str_field(n: int, event: dict[str, Any], name: str) -> str:
    value = event.get(name)
    if not isinstance(value, str):
        raise AssemblyError(n, f"{event.get('type')}: `{name}` is {value!r}, not a string")
    return value


# Handlers look the method up on the instance, so a subclass (a mutant) can override one.
_HANDLERS = {
    "response.output_item.added": lambda a, n, e: a._item_added(n, e),
    "response.output_item.done": lambda a, n, e: a._item_done(n, e),
    "response.content_part.added": lambda a, n, e: a._part_added(n, e),
    "response.content_part.done": lambda a, n, e: a._part_added(n, e),
    "response.output_text.delta": lambda a, n, e: a._text_delta(n, e, "output_text"),
    "response.output_text.done": lambda a, n, e: a._text_done(n, e, "output_text", "text"),
    "response.output_text.annotation.added": lambda a, n, e: a._annotation_added(n, e),
    "response.refusal.delta": lambda a, n, e: a._text_delta(n, e, "refusal"),
    "response.refusal.done": lambda a, n, e: a._text_done(n, e, "refusal", "refusal"),
    "response.reasoning_text.delta": lambda a, n, e: a._text_delta(n, e, "reasoning_text"),
    "response.reasoning_text.done": lambda a, n, e: a._text_done(n, e, "reasoning_text", "text"),
    "response.reasoning_summary_part.added": lambda a, n, e: a._summary_part_added(n, e),
    "response.reasoning_summary_part.done": lambda a, n, e: a._summary_done(n, e, "part"),
    "response.reasoning_summary_text.delta": lambda a, n, e: a._summary_delta(n, e),
    "response.reasoning_summary_text.done": lambda a, n, e: a._summary_done(n, e, "text"),
    "response.function_call_arguments.delta": lambda a, n, e: a._arguments_delta(n, e),
    "response.function_call_arguments.done": lambda a, n, e: a._arguments_done(n, e, "arguments"),
    "response.custom_tool_call_input.delta": lambda a, n, e: a._arguments_delta(n, e),
    "response.custom_tool_call_input.done": lambda a, n, e: a._arguments_done(n, e, "input"),
    "error": lambda a, n, e: a._error_event(n, e),
}


Assembler = ResponsesAssembler  # what the registry hands out (deltacheck.protocols.spec.Protocol.assembler)
