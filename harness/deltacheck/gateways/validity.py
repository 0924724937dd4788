"""Is a downstream stream a valid stream of its protocol, on its own? (CONTRACT.md 6.5)

A gateway's output is read by clients that trust its framing: a Responses item whose
`output_item.done` never comes, an Anthropic block that is never stopped, a chat stream without
`[DONE]` or ids that change between events break them even when every fragment of the message
arrived. These rules are the `validity` axis, judged apart from the content.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from deltacheck.protocols.sse import parse_event_stream

CHAT, RESPONSES, ANTHROPIC = "openai-chat", "openai-responses", "anthropic-messages"
ANTHROPIC_EVENTS = {"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                    "message_delta", "message_stop", "ping"}
RESPONSES_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


class NotAStream(Exception):
    """The body cannot be read as a stream of the declared protocol at all."""


@dataclass
class StreamCheck:
    chunks: list[Any]
    problems: list[str] = field(default_factory=list)


def read_stream(protocol: str, body: bytes) -> StreamCheck:
    """The chunks of `body` and every validity problem; NotAStream when it is no stream of `protocol`."""
    events = parse_event_stream(body)
    if not events:
        raise NotAStream("the body holds no server-sent event")
    chunks: list[Any] = []
    names: list[str] = []
    done_seen = False
    problems: list[str] = []
    not_json: str | None = None
    for position, event in enumerate(events):
        if protocol == CHAT and event.data == "[DONE]":
            if position != len(events) - 1:
                problems.append(f"{len(events) - position - 1} event(s) after data: [DONE]")
            done_seen = True
            break
        try:
            chunks.append(json.loads(event.data))
        except ValueError:
            if not_json is None:
                not_json = f"event {position}: data is not JSON: {event.data[:80]!r}"
            if event.data == "[DONE]":
                chunks.append({"object": "chat.completion.chunk"})  # Chat's terminator: it says which protocol this is
            continue
        names.append(event.type)
    spoken = detect_protocol(chunks)
    if spoken is not None and spoken != protocol:
        raise NotAStream(f"it streams {spoken}, not the declared {protocol}")
    if not_json is not None:
        raise NotAStream(not_json)
    check = StreamCheck(chunks, problems)
    if protocol == CHAT:
        _check_chat(check, done_seen)
    elif protocol == RESPONSES:
        _check_named(check, names)
        _check_responses(check)
    else:
        _check_named(check, names)
        _check_anthropic(check)
    return check


def detect_protocol(chunks: list[Any]) -> str | None:
    """The protocol the chunks are plainly written in (by the first chunk that says), or None."""
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        kind = chunk.get("type")
        if isinstance(kind, str) and kind.startswith("response."):
            return RESPONSES
        if kind in ANTHROPIC_EVENTS:
            return ANTHROPIC
        if chunk.get("object") == "chat.completion.chunk" or isinstance(chunk.get("choices"), list):
            return CHAT
    return None


def _check_named(check: StreamCheck, names: list[str]) -> None:
    for position, (name, chunk) in enumerate(zip(names, check.chunks)):
        kind = chunk.get("type") if isinstance(chunk, dict) else None
        if name != "message" and name != kind:
            check.problems.append(f"event {position}: the SSE event name {name!r} is not the data's type {kind!r}")


def _check_chat(check: StreamCheck, done_seen: bool) -> None:
    if not done_seen:
        check.problems.append("the stream ends without data: [DONE]")
    ids = []
    for position, chunk in enumerate(check.chunks):
        if not isinstance(chunk, dict):
            check.problems.append(f"chunk {position} is not a JSON object")
            continue
        if "error" in chunk:
            continue
        if not isinstance(chunk.get("choices"), list):
            check.problems.append(f"chunk {position} has no `choices` array")
        if chunk.get("id") is not None:
            ids.append(chunk["id"])
    if len(set(ids)) > 1:
        check.problems.append(f"the chunk id changes within the stream ({len(set(ids))} different ids)")


def _check_responses(check: StreamCheck) -> None:
    chunks = [c for c in check.chunks if isinstance(c, dict)]
    problems = check.problems
    if not chunks or chunks[0].get("type") != "response.created":
        problems.append("the stream does not begin with response.created")
    terminal = [i for i, c in enumerate(chunks) if c.get("type") in RESPONSES_TERMINAL]
    if not terminal:
        problems.append("the stream never sends response.completed, .incomplete or .failed")
    elif len(terminal) > 1:
        problems.append(f"{len(terminal)} terminal events")
    elif terminal[0] != len(chunks) - 1:
        problems.append(f"{len(chunks) - 1 - terminal[0]} event(s) after {chunks[terminal[0]]['type']}")
    numbers = [c.get("sequence_number") for c in chunks]
    if any(n is not None for n in numbers) and (None in numbers or any(b <= a for a, b in zip(numbers, numbers[1:]))):
        problems.append("sequence_number is missing on some events or does not increase")
    response_ids = {c["response"].get("id") for c in chunks if isinstance(c.get("response"), dict)}
    if len(response_ids) > 1:
        problems.append(f"the response id changes between events ({len(response_ids)} different ids)")
    items: dict[int, dict[str, Any]] = {}  # output_index -> {"id", "added", "done", "item"}
    for position, chunk in enumerate(chunks):
        kind = chunk.get("type", "")
        index = chunk.get("output_index")
        if kind == "response.output_item.added" and isinstance(chunk.get("item"), dict):
            if index in items:
                problems.append(f"event {position}: output_index {index} added twice")
            items[index] = {"id": chunk["item"].get("id"), "type": chunk["item"].get("type"), "done": None}
        elif kind == "response.output_item.done" and isinstance(chunk.get("item"), dict):
            state = items.get(index)
            if state is None:
                problems.append(f"event {position}: output_item.done for output_index {index}, never added")
                items[index] = state = {"id": chunk["item"].get("id"), "type": chunk["item"].get("type"), "done": None}
            elif state["done"] is not None:
                problems.append(f"event {position}: output_index {index} done twice")
            if chunk["item"].get("id") != state["id"]:
                problems.append(f"event {position}: the id of output_index {index} changes between its "
                                "output_item.added and .done")
            state["done"] = chunk["item"]
        elif "item_id" in chunk and index in items:
            state = items[index]
            if chunk["item_id"] != state["id"]:
                problems.append(f"event {position}: {kind} names another item_id than the item at output_index {index}")
            if state["done"] is not None:
                problems.append(f"event {position}: {kind} for output_index {index} after its output_item.done")
    parts: dict[tuple[Any, Any], bool] = {}  # (output_index, content_index) -> its content_part.done came
    for chunk in chunks:
        key = (chunk.get("output_index"), chunk.get("content_index"))
        if chunk.get("type") == "response.content_part.added":
            parts[key] = False
        elif chunk.get("type") == "response.content_part.done" and key in parts:
            parts[key] = True
    for output_index, content_index in sorted((k for k, done in parts.items() if not done), key=str):
        problems.append(f"content part {content_index} of output_index {output_index} never gets its content_part.done")
    for index in sorted(i for i in items if items[i]["done"] is None):
        problems.append(f"output_index {index} ({items[index]['type']}) never gets its output_item.done")
    if terminal and len(terminal) == 1 and chunks[terminal[0]].get("type") == "response.completed":
        _check_terminal_output(chunks[terminal[0]], items, problems)


def _check_terminal_output(terminal: dict[str, Any], items: dict[int, dict[str, Any]], problems: list[str]) -> None:
    """response.completed carries the whole response: its output lists every item the stream finished."""
    response = terminal.get("response")
    output = response.get("output") if isinstance(response, dict) else None
    if not isinstance(output, list):
        problems.append("response.completed carries no `output` array")
        return
    by_id = {o.get("id"): o for o in output if isinstance(o, dict)}
    for index in sorted(items):
        done = items[index]["done"]
        if done is None:
            continue
        final = by_id.get(done.get("id"))
        # Named by type and function name: ids a gateway makes up would make the report differ run to run.
        label = f"output_index {index} ({done.get('type')}" + (f" {done['name']}" if done.get("name") else "") + ")"
        if final is None:
            problems.append(f"response.completed output omits {label}, which the stream finished")
            continue
        for key in ("type", "call_id", "name", "arguments"):
            if key in done and final.get(key) != done.get(key):
                problems.append(f"response.completed output gives {label} {key} {final.get(key)!r}, "
                                f"the stream {done.get(key)!r}")
    if len(by_id) > len([i for i in items.values() if i["done"] is not None]):
        problems.append("response.completed output lists items the stream never finished")


def _check_anthropic(check: StreamCheck) -> None:
    chunks = [c for c in check.chunks if isinstance(c, dict)]
    problems = check.problems
    if any(c.get("type") == "error" for c in chunks):
        return  # an error event ends the stream wherever it comes: the framing after it is moot
    if not chunks or chunks[0].get("type") != "message_start":
        problems.append("the stream does not begin with message_start")
    if not chunks or chunks[-1].get("type") != "message_stop":
        problems.append("the stream does not end with message_stop")
    if sum(c.get("type") == "message_stop" for c in chunks) > 1:
        problems.append("more than one message_stop")
    open_blocks: dict[int, str] = {}
    stopped: set[int] = set()
    next_index = 0
    message_delta_seen = False
    for position, chunk in enumerate(chunks):
        kind = chunk.get("type")
        index = chunk.get("index")
        if kind == "content_block_start":
            if index != next_index:
                problems.append(f"event {position}: block {index} starts where block {next_index} was due")
            if index in open_blocks or index in stopped:
                problems.append(f"event {position}: block {index} started twice")
            open_blocks[index] = (chunk.get("content_block") or {}).get("type")
            next_index = (index if isinstance(index, int) else next_index) + 1
        elif kind == "content_block_delta":
            if index not in open_blocks:
                problems.append(f"event {position}: delta for block {index}, which is not open")
        elif kind == "content_block_stop":
            if index not in open_blocks:
                problems.append(f"event {position}: stop for block {index}, which is not open")
            else:
                del open_blocks[index]
                stopped.add(index)
        elif kind == "message_delta":
            message_delta_seen = True
            if open_blocks:
                problems.append(f"event {position}: message_delta while block(s) {sorted(open_blocks)} are open")
    for index in sorted(open_blocks):
        problems.append(f"block {index} ({open_blocks[index]}) is never stopped")
    if not message_delta_seen:
        problems.append("no message_delta: the stop reason is never sent")
