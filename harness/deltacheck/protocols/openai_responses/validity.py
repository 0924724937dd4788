"""Is a Responses stream valid on its own (CONTRACT.md 6.5)? Its rules, and how to recognise its events."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.openai_responses.reference import TERMINAL
from deltacheck.protocols.sse import event_name_problems


def owns_event_type(kind: str) -> bool:
    return kind.startswith("response.")


def owns_shape(chunk: dict[str, Any]) -> bool:
    return False  # every event names its type


def stream_problems(chunks: list[Any], event_names: list[str], terminated: bool) -> list[str]:
    """Events named after their type; one response from response.created to one terminal event; every item and
    content part done, with the ids it was added with; response.completed listing every item the stream finished."""
    problems = event_name_problems(event_names, chunks)
    chunks = [c for c in chunks if isinstance(c, dict)]
    if not chunks or chunks[0].get("type") != "response.created":
        problems.append("the stream does not begin with response.created")
    terminal = [i for i, c in enumerate(chunks) if c.get("type") in TERMINAL]
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
                problems.append(
                    f"event {position}: the id of output_index {index} changes between its output_item.added and .done"
                )
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
    return problems


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
                problems.append(
                    f"response.completed output gives {label} {key} {final.get(key)!r}, the stream {done.get(key)!r}"
                )
    if len(by_id) > len([i for i in items.values() if i["done"] is not None]):
        problems.append("response.completed output lists items the stream never finished")
