"""The project's own reference assemblers, run as an adapter.

Code path: `deltacheck.reference.assemble`, chunk by chunk, exactly as `deltacheck lint` runs it. It
proves the harness end to end and is the baseline every third-party adapter is compared with.
"""

from __future__ import annotations

from typing import Any

import deltacheck
from deltacheck.adapter import CAPABILITIES, Adapter
from deltacheck.model import AssemblyRequest
from deltacheck.protocols import PROTOCOLS
from deltacheck.reference import assemble


class ReferenceAdapter(Adapter):
    name = "reference"
    library = "deltacheck"
    version = deltacheck.__version__
    protocols = frozenset(PROTOCOLS)
    capabilities = frozenset(CAPABILITIES)
    code_path = "deltacheck.reference.assemble over the fixture's parsed chunks"

    def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        return assemble(request.protocol, request.chunks).result
