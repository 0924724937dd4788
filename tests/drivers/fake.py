"""A well-behaved driver written from docs/PROTOCOL.md (not deltacheck.driver.python), for the fakes to break."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable

from deltacheck.adapter import CAPABILITIES
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble

BREAK_ON = os.environ.get("BREAK_ON", "")

HELLO = {"cmd": "start", "version": 1, "implementation": {
    "name": "fake", "library": "tests.drivers", "version": "0", "language": "python",
    "protocols": list(PROTOCOLS), "capabilities": sorted(CAPABILITIES), "code_path": "the reference, behind a fake driver"}}


def breaks_on(message: dict[str, Any]) -> bool:
    return BREAK_ON == "*" or message["request"]["fixture"] == BREAK_ON


def answer(message: dict[str, Any]) -> dict[str, Any]:
    request = message["request"]
    return {"seq": message["seq"], "result": assemble(request["protocol"], request["chunks"]).result}


def write(line: dict[str, Any] | str) -> None:
    sys.stdout.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    sys.stdout.flush()


def serve(on_run: Callable[[dict[str, Any]], dict[str, Any] | str | None] = answer,
          hello: dict[str, Any] = HELLO) -> None:
    """Answer start with `hello`, each run with `on_run(message)` (None: write nothing), exit on stop."""
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "start":
            write(hello)
        elif message["cmd"] == "run":
            reply = on_run(message)
            if reply is not None:
                write(reply)
        else:
            return
