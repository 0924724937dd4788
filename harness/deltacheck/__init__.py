"""deltacheck: a conformance suite for streaming assembly in LLM client libraries.

What a maintainer needs to plug in an accumulator (docs/API.md):

    from deltacheck import Adapter, AssemblyRequest

`Adapter` is the base class of every in-process adapter; `AssemblyRequest` is what its `assemble`
receives; `CAPABILITIES` names what an adapter may declare it exposes.
"""

from __future__ import annotations

__version__ = "0.1.0"

from deltacheck.adapter import CAPABILITIES, Adapter  # noqa: E402
from deltacheck.contract import CONTRACT_VERSION  # noqa: E402
from deltacheck.model import AssemblyRequest  # noqa: E402

__all__ = ["CAPABILITIES", "CONTRACT_VERSION", "Adapter", "AssemblyRequest", "__version__"]
