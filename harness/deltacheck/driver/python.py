"""The generic Python driver: serves one in-process Adapter over the driver protocol (docs/PROTOCOL.md).

    python -m deltacheck.driver deltacheck.adapters.reference:ReferenceAdapter   (or MODULE:CLASS, path/file.py:CLASS)

It runs inside an adapter's own virtualenv, where click, rich and jsonschema may be absent, so it
imports only the standard library and the light harness modules (deltacheck.adapter, deltacheck.model,
deltacheck.protocols.sse, deltacheck.driver.messages). Exit status: 0 after `stop` or end of input, 1 when the adapter
cannot be loaded, 2 when the harness sends something this driver does not understand.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import random
import sys
import traceback
import uuid
from typing import Any, BinaryIO, NoReturn

from deltacheck.adapter import Adapter, load_adapter_spec
from deltacheck.driver.messages import (
    IMPLEMENTATION_FIELDS,
    PROTOCOL_VERSION,
    encode_line,
    request_from_wire,
    start_reply,
)
from deltacheck.errors import without_embedded_traceback

LANGUAGE = "python"


class ProtocolMisuse(Exception):
    """The harness sent a line this driver cannot act on."""


def claim_stdout() -> BinaryIO:
    """Keep the real stdout for protocol lines; anything else written to fd 1, even from C, lands on stderr."""
    sys.stdout.flush()
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_out


def implementation(adapter_class: type[Adapter]) -> dict[str, Any]:
    """The hello's implementation. Like every driver it sends the library's own capability_notes only: the
    harness fills in the protocols' reasons when it reads the hello."""
    described = adapter_class.describe() | {"capability_notes": dict(sorted(adapter_class.capability_notes.items()))}
    return {key: described[key] for key in IMPLEMENTATION_FIELDS if key in described} | {"language": LANGUAGE}


def run_one(adapter: Adapter, message: dict[str, Any]) -> dict[str, Any]:
    """One run request -> its reply; the implementation's exception becomes `errored`, as in-process."""
    seq = message["seq"]
    request = request_from_wire(message["request"])
    seed_randomness(request.fixture_id)
    try:
        value = adapter.assemble(request)
        if inspect.isawaitable(value):
            value = asyncio.run(_awaited(value))  # a fresh loop per request, like deltacheck.running.runner
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit from a library is its failure, not the driver's exit
        described = f"{type(exc).__name__}: {without_embedded_traceback(str(exc))}"
        return {"seq": seq, "errored": {"message": described, "traceback": library_traceback(exc)}}
    return {"seq": seq, "result": value}


def library_traceback(exc: BaseException) -> str:
    """The last frames of the exception, without the driver's own frame: the report shows the library's
    code, and does not change when this file does."""
    assert exc.__traceback__ is not None  # it was raised, and caught in this process
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__.tb_next, limit=-8))


def seed_randomness(fixture_id: str) -> None:
    """Make what a library invents (ids from uuid4 or random) the same on every run of a fixture.

    The library still invents it; the report just stays reproducible byte for byte.
    """
    generator = random.Random(f"deltacheck:{fixture_id}")
    random.seed(f"deltacheck:{fixture_id}")
    uuid.uuid4 = lambda: uuid.UUID(int=generator.getrandbits(128), version=4)
    fastuuid = sys.modules.get("fastuuid")  # litellm draws its uuid4 from fastuuid (litellm._uuid), not from uuid
    if fastuuid is not None:
        setattr(fastuuid, "uuid4", uuid.uuid4)  # noqa: B010 (a module the type checker knows nothing of)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def serve(adapter_class: type[Adapter], stdin: BinaryIO, stdout: BinaryIO) -> int:
    adapter: Adapter | None = None
    for raw in iter(stdin.readline, b""):
        try:
            message = json.loads(raw)
        except ValueError:
            raise ProtocolMisuse(f"not a JSON line: {raw[:300]!r}") from None
        command = message.get("cmd") if isinstance(message, dict) else None
        if command == "start":
            if message.get("version") != PROTOCOL_VERSION:
                raise ProtocolMisuse(
                    f"the harness speaks protocol version {message.get('version')!r}; "
                    f"this driver speaks {PROTOCOL_VERSION}"
                )
            adapter = adapter_class()
            reply = start_reply(implementation(adapter_class))
        elif command == "run":
            if adapter is None:
                raise ProtocolMisuse("`run` before `start`")
            reply = run_one(adapter, message)
        elif command == "stop":
            return 0
        else:
            raise ProtocolMisuse(f"unknown command {command!r} in {raw[:300]!r}")
        stdout.write(encode_line(reply))
        stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m deltacheck.driver package.module:AdapterClass", file=sys.stderr)
        return 2
    protocol_out = claim_stdout()
    try:
        adapter_class = load_adapter_spec(argv[0])
    except Exception:
        traceback.print_exc()
        print(f"deltacheck driver: cannot load adapter {argv[0]!r}", file=sys.stderr)
        return 1
    try:
        return serve(adapter_class, sys.stdin.buffer, protocol_out)
    except ProtocolMisuse as exc:
        print(f"deltacheck driver: {exc}", file=sys.stderr)
        return 2


def end_process(status: int) -> NoReturn:
    """Exit at once, skipping the interpreter's teardown.

    Once the harness has said stop, nothing the library does is under test any more; its exit
    handlers and the clean-up of its modules cost up to a second per driver (litellm) in every run.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
