"""An in-process adapter that prints to stdout from Python and from a raw fd write, for deltacheck.driver.python."""

from __future__ import annotations

import os

from deltacheck.adapter import CAPABILITIES, Adapter
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble


class PrintsToStdout(Adapter):
    name = "test-prints-to-stdout"
    library = "tests.drivers"
    version = "0"
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset(CAPABILITIES)
    code_path = "the reference, chattering on stdout like a library with debug prints"

    def __init__(self) -> None:
        print("chatty: initialising")

    def assemble(self, request):
        print(f"chatty: assembling {request.fixture_id}")
        os.write(1, b"chatty: a C extension writes to fd 1\n")
        return assemble(request.protocol, request.chunks).result


class NamedFromEnvironment(PrintsToStdout):
    """Reports the manifest's name, as third-party adapters with several pinned versions do."""
    name = os.environ.get("DELTACHECK_ADAPTER_NAME", "test-named-from-environment")
