"""Long generated streams, each with the result it must assemble to, for every protocol.

The cost axis (corpus/scenarios, `deltacheck cost`) and the reference's benchmarks and complexity
test build their streams here. A scenario is (protocol, shape, number of fragments, fragment size).
The shapes, each one a provider or gateway really sends:

- `text`: one text answer;
- `tool`: one tool call whose arguments are a JSON object with one long string value;
- `tools4`: four tool calls, one after another;
- `tools4-interleaved`: four tool calls whose argument fragments alternate one by one, as gateways
  and some providers send parallel calls (the corpus's interleaved-calls fixtures), only in the
  protocols documented to interleave them.

Everything is deterministic (a seeded generator). The expected result is built independently of
any assembler: the text and each call's arguments are the joined fragments the stream carries, the
finish reason and usage are the values the generator put on the wire (CONTRACT.md 3).

This module is protocol-neutral: the generated values, their order on the stream, the expected
result. Each protocol package's `long_streams` module lays a scenario out on its wire, as a real
server sends it, and declares:

    SHAPES                        the shapes the protocol really streams (a tuple of names)
    CALL_ITEM_IDS                 whether its tool calls carry an item id besides their id
    chunks(scenario)              the stream, a list of chunks (`Scenario.append_fragment` adds
                                  each chunk that carries a call's fragment)
    finish_reason(scenario)       the finish reason the stream ends with, as the protocol names it
    usage(scenario)               the usage object it carries, in the protocol's own keys
    joined_fragments(chunks)      each part's fragments joined, keyed by part, and nothing else
                                  checked: the minimal loop bench/reference_scaling.py times the
                                  reference against
    arguments(text) (optional)    a call's arguments as its assembled result spells them, where the
                                  wire carries them as values rather than as the JSON text (default:
                                  the text itself)
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

from deltacheck.protocols import REGISTRY, all_protocols
from deltacheck.protocols import protocol as registered

SHAPES = ("text", "tool", "tools4", "tools4-interleaved")
INTERLEAVED = "tools4-interleaved"
CALLS = {"text": 0, "tool": 1, "tools4": 4, INTERLEAVED: 4}
# Plain letters and spaces, plus JSON escapes inside the arguments' string (a cut may fall inside one).
_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
_ESCAPES = ("\\n", '\\"', "\\\\", "\\u00e9")


def layout(protocol: str) -> ModuleType:
    """The protocol package's `long_streams` module: how its streams lay out a scenario."""
    return registered(protocol).part("long_streams")


def streamed_shapes(protocol: str) -> tuple[str, ...]:
    """The shapes a protocol really streams (see the module docstring)."""
    shapes: tuple[str, ...] = layout(protocol).SHAPES
    return shapes


def _body(rng: random.Random, length: int, escapes: bool) -> str:
    """Exactly `length` characters of prose; with `escapes`, JSON string escapes are mixed in whole."""
    pieces: list[str] = []
    size = 0
    while True:
        piece = rng.choice(_ESCAPES) if escapes and rng.random() < 0.1 else rng.choice(_WORDS) + " "
        if size + len(piece) > length:
            return "".join(pieces) + "x" * (length - size)
        pieces.append(piece)
        size += len(piece)


def arguments_text(rng: random.Random, length: int) -> str:
    """A JSON object of exactly `length` characters (at least 16): {"content":"..."}."""
    prefix, suffix = '{"content":"', '"}'
    return prefix + _body(rng, length - len(prefix) - len(suffix), escapes=True) + suffix


def fragments(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class Scenario:
    """One generated stream: `chunks` to feed, `expected_result()` to judge it against."""

    input_tokens = 7  # the prompt every stream's usage reports

    def __init__(self, protocol: str, shape: str, count: int, size: int = 4, seed: int = 13) -> None:
        if protocol not in REGISTRY or shape not in SHAPES:
            raise ValueError(f"unknown scenario {protocol}/{shape}")
        if shape not in streamed_shapes(protocol):
            raise ValueError(f"{protocol} streams do not have the shape {shape}: {unreal_shape(protocol, shape)}")
        if count < 1 or size < 1:
            raise ValueError(f"a scenario needs at least one fragment of at least one character, not {count} x {size}")
        self.protocol, self.shape, self.count, self.size = protocol, shape, count, size
        rng = random.Random(f"{seed}:{protocol}:{shape}:{count}:{size}")
        calls = CALLS[shape]
        if calls == 0:
            self.text = _body(rng, count * size, escapes=False)
            self.calls: list[dict[str, Any]] = []
            per_call: list[list[str]] = [fragments(self.text, size)]
        else:
            # Each call's arguments are at least 16 characters (a JSON object around a string).
            share = max(count // calls, -(-16 // size))
            self.text = ""
            self.calls = [
                {
                    "id": f"call_{i}",
                    "item_id": f"fc_{i}",
                    "name": f"write_file_{i}",
                    "arguments": arguments_text(rng, share * size),
                }
                for i in range(calls)
            ]
            per_call = [fragments(call["arguments"], size) for call in self.calls]
        self.order: list[tuple[int, str]] = []  # (call, fragment) in stream order
        if self.interleaved:  # round-robin: every fragment switches to another call
            for position in range(max(len(p) for p in per_call)):
                for which, pieces in enumerate(per_call):
                    if position < len(pieces):
                        self.order.append((which, pieces[position]))
        else:
            self.order = [(which, piece) for which, pieces in enumerate(per_call) for piece in pieces]
        # (choice, position of the call among the parts) -> index of the chunk with its last fragment
        self.last_fragment: dict[tuple[int, int], int] = {}
        self.chunks: list[dict[str, Any]] = layout(protocol).chunks(self)

    @property
    def name(self) -> str:
        return f"{self.protocol}/{self.shape}"

    @property
    def fragment_count(self) -> int:
        return len(self.order)

    @property
    def interleaved(self) -> bool:
        """Whether the calls' fragments alternate (all calls open first) rather than follow one another."""
        return self.shape == INTERLEAVED

    def append_fragment(self, chunks: list[dict[str, Any]], which: int, chunk: dict[str, Any]) -> None:
        """Append the chunk that carries one fragment of call `which`, noting it as that call's last so far."""
        if self.calls:
            self.last_fragment[(0, which)] = len(chunks)
        chunks.append(chunk)

    def expected_parts(self) -> list[dict[str, Any]]:
        """The parts the stream must assemble to (CONTRACT.md 3.2), built from the generated values."""
        if not self.calls:
            return [{"type": "text", "text": self.text, "annotations": []}]
        item_ids = layout(self.protocol).CALL_ITEM_IDS
        return [
            {
                "type": "tool_call",
                "kind": "function",
                "id": call["id"],
                "item_id": call["item_id"] if item_ids else None,
                "name": call["name"],
                "arguments": self.assembled_arguments(call),
            }
            for call in self.calls
        ]

    def assembled_arguments(self, call: dict[str, Any]) -> str:
        """A call's arguments as the assembled result spells them (the protocol's `arguments`, if it has one)."""
        spelled = getattr(layout(self.protocol), "arguments", None)
        text: str = call["arguments"]
        return spelled(text) if spelled is not None else text

    def expected_result(self) -> dict[str, Any]:
        """The whole canonical result (CONTRACT.md 3.1): parts, finish reason and usage as put on the wire."""
        on_the_wire = layout(self.protocol)
        return {
            "choices": [
                {
                    "index": 0,
                    "parts": self.expected_parts(),
                    "finish_reason": on_the_wire.finish_reason(self),
                    "finish_detail": None,
                }
            ],
            "usage": on_the_wire.usage(self),
            "error": None,
        }

    def mismatch(self, result: dict[str, Any]) -> str | None:
        """What is wrong with an assembled result's parts and events, or None when they are the expected ones."""
        choices = result.get("choices")
        if not isinstance(choices, list) or len(choices) != 1:
            return f"{len(choices or [])} choices instead of 1"
        parts = choices[0].get("parts")
        expected = self.expected_parts()
        if parts != expected:
            return _first_difference(parts, expected)
        if result.get("error") is not None:
            return f"error {result['error']!r}"
        completed = sorted((e["id"], e["name"], e["arguments"]) for e in result.get("events", []))
        wanted = sorted((c["id"], c["name"], self.assembled_arguments(c)) for c in self.calls)
        if completed != wanted:
            return f"{len(completed)} tool_call_done events, {len(wanted)} expected, or with other values"
        return None


def _first_difference(parts: Any, expected: list[dict[str, Any]]) -> str:
    if not isinstance(parts, list) or len(parts) != len(expected):
        return f"{len(parts) if isinstance(parts, list) else parts!r} parts instead of {len(expected)}"
    for position, (got, want) in enumerate(zip(parts, expected)):
        for key in want:
            if got.get(key) != want[key]:
                shown = repr(got.get(key))
                return f"parts[{position}].{key} differs ({shown[:60]}{'...' if len(shown) > 60 else ''})"
    return "parts differ"


def unreal_shape(protocol: str, shape: str) -> str:
    """Why a protocol does not stream a shape (only the interleaved one is limited)."""
    return (
        f"only {', '.join(p.name for p in all_protocols() if shape in streamed_shapes(p.name))} interleave the "
        f"fragments of parallel calls; {protocol} streams one call after another (use tools4)"
    )
