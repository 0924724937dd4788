"""Is an Anthropic Messages stream valid on its own (CONTRACT.md 6.5)? Its rules, and how to recognise its events."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.anthropic_messages import EVENTS
from deltacheck.protocols.sse import event_name_problems


def owns_event_type(kind: str) -> bool:
    return kind in EVENTS


def owns_shape(chunk: dict[str, Any]) -> bool:
    return False  # every event names its type


def stream_problems(chunks: list[Any], event_names: list[str], terminated: bool) -> list[str]:
    """Events named after their type; message_start first, one message_stop last; blocks started in index order
    after those message_start carries, each once, with deltas and a stop only while open, all stopped before the
    message_delta that says why it ends (unless message_start already says it)."""
    problems = event_name_problems(event_names, chunks)
    chunks = [c for c in chunks if isinstance(c, dict)]
    if any(c.get("type") == "error" for c in chunks):
        return problems  # an error event ends the stream wherever it comes: the framing after it is moot
    if not chunks or chunks[0].get("type") != "message_start":
        problems.append("the stream does not begin with message_start")
    if not chunks or chunks[-1].get("type") != "message_stop":
        problems.append("the stream does not end with message_stop")
    if sum(c.get("type") == "message_stop" for c in chunks) > 1:
        problems.append("more than one message_stop")
    open_blocks: dict[int, str | None] = {}  # the type each open block started with, if it gave one
    # blocks message_start already carries are complete, and its stop reason is sent (CONTRACT 3.3 rule 7)
    first = chunks[0].get("message") if chunks and chunks[0].get("type") == "message_start" else None
    message: dict[str, Any] = first if isinstance(first, dict) else {}
    content = message.get("content")
    carried = len(content) if isinstance(content, list) else 0
    stopped: set[int] = set(range(carried))
    next_index = carried
    message_delta_seen = message.get("stop_reason") is not None
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
    return problems
