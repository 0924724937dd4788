"""Is a Bedrock ConverseStream valid on its own (CONTRACT.md 6.5)? Its rules, and how to recognise its messages."""

from __future__ import annotations

from typing import Any

from deltacheck.protocols.bedrock_converse import EVENTS
from deltacheck.protocols.bedrock_converse.frames import ERROR, EXCEPTION_SUFFIX, FRAME_ERROR


def owns_event_type(kind: str) -> bool:
    return False  # its chunks carry no `type`: the message type is their one key


def owns_shape(chunk: dict[str, Any]) -> bool:
    """One key, a ConverseStream event type."""
    return len(chunk) == 1 and next(iter(chunk)) in EVENTS


def stream_problems(chunks: list[Any], event_names: list[str], terminated: bool) -> list[str]:
    """messageStart first; each block's events at one contentBlockIndex, started at most once, stopped once and
    nothing after its stop; exactly one messageStop, and one metadata; an exception or error ends the stream
    wherever it comes."""
    problems: list[str] = []
    names = [next(iter(c)) if isinstance(c, dict) and len(c) == 1 else None for c in chunks]
    if any(n in (ERROR, FRAME_ERROR) or (isinstance(n, str) and n.endswith(EXCEPTION_SUFFIX)) for n in names):
        return problems  # the stream ended early on purpose: its framing after that is moot
    if not names or names[0] != "messageStart":
        problems.append("the stream does not begin with messageStart")
    begun: set[Any] = set()
    stopped: set[Any] = set()
    for position, (name, chunk) in enumerate(zip(names, chunks)):
        if name is None:
            problems.append(f"message {position} is not an object with one key")
            continue
        event = chunk[name]
        index = event.get("contentBlockIndex") if isinstance(event, dict) else None
        if name == "contentBlockStart":
            if index in begun:
                problems.append(f"message {position}: block {index} starts after it began")
            begun.add(index)
        elif name == "contentBlockDelta":
            if index in stopped:
                problems.append(f"message {position}: a delta for block {index} after its stop")
            begun.add(index)
        elif name == "contentBlockStop":
            if index not in begun or index in stopped:
                problems.append(f"message {position}: a stop for block {index}, which is not open")
            stopped.add(index)
    for index in sorted(begun - stopped, key=str):
        problems.append(f"block {index} is never stopped")
    for name in ("messageStop", "metadata"):
        if names.count(name) != 1:
            problems.append(f"{names.count(name)} {name} messages, not one")
    return problems
