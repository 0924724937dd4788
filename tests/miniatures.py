"""In-process fake adapters, each misbehaving in exactly one way the runner must survive."""

from __future__ import annotations

import asyncio
import copy
import time

from deltacheck.adapter import CAPABILITIES, Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble


class _Miniature(Adapter):
    library = "tests.miniatures"
    version = "0"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset(CAPABILITIES)
    code_path = "a fake for the harness's own tests"


class Raises(_Miniature):
    """Raises on every fixture."""
    name = "miniature-raises"

    def assemble(self, request):
        raise RuntimeError("boom in the library")


class Hangs(_Miniature):
    """Never returns (a busy loop, so only the timer can stop it)."""
    name = "miniature-hangs"

    def assemble(self, request):
        while True:
            time.sleep(0.01)


class Garbage(_Miniature):
    """Returns something that is not a canonical result."""
    name = "miniature-garbage"

    def assemble(self, request):
        return {"choices": "lots", "usage": None}


class DropsLastPart(_Miniature):
    """Assembles like the reference, then loses the last part of choice 0."""
    name = "miniature-drops-last-part"

    def assemble(self, request):
        result = copy.deepcopy(assemble(request.protocol, request.chunks).result)
        if result["choices"] and result["choices"][0]["parts"]:
            lost = result["choices"][0]["parts"].pop()
            result["events"] = [e for e in result["events"] if (e["id"], e["name"]) != (lost.get("id"), lost.get("name"))]
        return result


class AsyncReference(_Miniature):
    """The reference behind an async method."""
    name = "miniature-async"

    async def assemble(self, request):
        await asyncio.sleep(0)
        return assemble(request.protocol, request.chunks).result


class TextOnly(_Miniature):
    """Like the reference, but declares no optional capability at all."""
    name = "miniature-text-only"
    capabilities = frozenset()

    def assemble(self, request):
        result = copy.deepcopy(assemble(request.protocol, request.chunks).result)
        result.pop("events", None)
        for choice in result["choices"]:
            choice["finish_reason"] = "made-up"  # not compared: the adapter says it cannot express it
        result["usage"] = {"made": "up"}
        return result


class CompletesEarly(_Miniature):
    """Assembles like the reference but reports every tool call complete after the first chunk."""
    name = "miniature-completes-early"

    def assemble(self, request):
        result = copy.deepcopy(assemble(request.protocol, request.chunks).result)
        for event in result["events"]:
            event["after_chunk"] = 0
        return result


class RejectsPing(_Miniature):
    """Anthropic only: raises on a `ping` event (an event-name whitelist without it)."""
    name = "miniature-rejects-ping"
    protocols = frozenset({"anthropic-messages"})

    def assemble(self, request):
        if any(chunk.get("type") == "ping" for chunk in request.chunks):
            raise ValueError("unexpected event: ping")
        return assemble(request.protocol, request.chunks).result


class WaitsForStop(_Miniature):
    """Anthropic only: waits forever for message_stop, as a reader blocking on the terminal event would."""
    name = "miniature-waits-for-stop"
    protocols = frozenset({"anthropic-messages"})

    def assemble(self, request):
        while not any(chunk.get("type") == "message_stop" for chunk in request.chunks if isinstance(chunk, dict)):
            time.sleep(0.01)
        return assemble(request.protocol, request.chunks).result


class BreaksOnlyTheFirstTime(_Miniature):
    """Anthropic only: returns something that is not a canonical result for the first stream without
    message_stop, then reads every stream as the reference does: an outcome that depends on more than
    the stream (state left by an earlier one)."""
    name = "miniature-breaks-only-the-first-time"
    protocols = frozenset({"anthropic-messages"})

    def __init__(self):
        self.broke = False

    def assemble(self, request):
        chunks = [c for c in request.chunks if isinstance(c, dict)]
        if not self.broke and not any(c.get("type") == "message_stop" for c in chunks):
            self.broke = True
            return {"not": "a canonical result"}
        return assemble(request.protocol, request.chunks).result


class HangsOnlyTheFirstTime(_Miniature):
    """Anthropic only: hangs on the first stream without message_stop, then reads every stream as the
    reference does: an outcome that depends on more than the stream (timing, state from an earlier one)."""
    name = "miniature-hangs-only-the-first-time"
    protocols = frozenset({"anthropic-messages"})

    def __init__(self):
        self.hung = False

    def assemble(self, request):
        chunks = [c for c in request.chunks if isinstance(c, dict)]
        if not self.hung and not any(c.get("type") == "message_stop" for c in chunks):
            self.hung = True
            while True:
                time.sleep(0.01)
        return assemble(request.protocol, request.chunks).result
