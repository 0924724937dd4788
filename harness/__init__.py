"""deltacheck: a conformance suite for streaming assembly in LLM client libraries.

The public surface is small: load a corpus, look up an adapter, run, judge, report.
"""

from __future__ import annotations

__version__ = "0.1.0"

from harness.contract import CONTRACT_VERSION  # noqa: E402

__all__ = ["CONTRACT_VERSION", "__version__"]
