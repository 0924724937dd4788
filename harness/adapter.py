"""The in-process adapter protocol, and the registry every adapter joins by subclassing.

An adapter feeds one fixture's stream to one implementation through the implementation's real code
path, and maps what the implementation produced onto the canonical result -- nothing more: it never
repairs, reorders or fills in what the library returned. A field the library cannot express is a
missing capability, declared here, and judged n/a.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any, Awaitable, ClassVar, Union

from harness.errors import UnknownAdapter
from harness.model import AssemblyRequest

if TYPE_CHECKING:
    from harness.errors import ManifestProblem
    from harness.external import ExternalAdapter
    from harness.subprocess_adapter import SubprocessAdapter

CAPABILITIES = {
    "refusal": "refusal parts",
    "reasoning": "reasoning and redacted reasoning parts",
    "reasoning_signature": "the signature / encrypted content of reasoning parts",
    "annotations": "text annotations and citations",
    "item_id": "Responses item ids of tool calls",
    "custom_tools": "Responses custom tool calls",
    "server_tools": "Anthropic server tool calls and their result blocks",
    "finish_reason": "finish_reason",
    "finish_detail": "finish_detail (Responses incomplete reason, Anthropic stop_sequence)",
    "usage": "usage",
    "error": "the stream's error",
    "multiple_choices": "choices other than index 0",
    "events": "tool-call completion events emitted while streaming",
}

# Bundled adapter modules, imported on first lookup so their classes register themselves.
BUNDLED_MODULES = ("adapters.reference",)

_REGISTRY: dict[str, type["Adapter"]] = {}


class Adapter:
    """Subclass with the class data below and an `assemble` method (sync or async)."""

    name: ClassVar[str]
    library: ClassVar[str]
    version: ClassVar[str]
    protocols: ClassVar[frozenset[str]]
    capabilities: ClassVar[frozenset[str]]
    code_path: ClassVar[str]  # which of the library's code paths the adapter drives, in one sentence

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name is None:
            return  # an abstract intermediate class
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise TypeError(f"adapter name {name!r} is claimed by both {_REGISTRY[name].__qualname__} and {cls.__qualname__}")
        unknown = set(cls.capabilities) - set(CAPABILITIES)
        if unknown:
            raise TypeError(f"{cls.__qualname__} declares unknown capabilities {sorted(unknown)}")
        _REGISTRY[name] = cls

    def assemble(self, request: AssemblyRequest) -> dict[str, Any] | Awaitable[dict[str, Any]]:
        raise NotImplementedError

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {"name": cls.name, "library": cls.library, "version": cls.version,
                "protocols": sorted(cls.protocols), "capabilities": sorted(cls.capabilities),
                "code_path": cls.code_path}


def manifest_name(default: str) -> str:
    """The name a manifest runs this class under (`openai-python-chat@2`), else `default`.

    The driver passes it in DELTACHECK_ADAPTER_NAME, so one class can serve several pinned versions.
    """
    given = os.environ.get("DELTACHECK_ADAPTER_NAME", "")
    return given if given.split("@", 1)[0] == default else default


def _import_bundled() -> None:
    for module in BUNDLED_MODULES:
        importlib.import_module(module)


# What the registry hands out: an in-process Adapter class, or an ExternalAdapter (a manifest
# adapter); both are called to get an adapter and have describe().
AdapterFactory = Union[type[Adapter], "ExternalAdapter"]


def _external() -> tuple[dict[str, "ExternalAdapter"], list["ManifestProblem"]]:
    # Imported here, not at the top: the driver imports this module inside an adapter's own
    # environment, where the harness side (jsonschema, subprocess management) is not wanted.
    from harness.external import external_adapters
    return external_adapters(_REGISTRY)


def registered_adapters() -> dict[str, AdapterFactory]:
    """In-process adapters and manifest adapters, by name; no third-party library is imported."""
    _import_bundled()
    return dict(sorted({**_external()[0], **_REGISTRY}.items()))


def manifest_problems() -> list["ManifestProblem"]:
    """What is wrong with the adapter manifests; those entries are left out of the registry."""
    _import_bundled()
    return _external()[1]


def get_adapter(name: str) -> "Adapter | SubprocessAdapter":
    """A ready adapter; for a manifest adapter this builds its environment when needed."""
    _import_bundled()
    if name in _REGISTRY:  # in-process: no need to read the manifests
        return _REGISTRY[name]()
    adapters = registered_adapters()
    if name not in adapters:
        raise UnknownAdapter(name, list(adapters))
    return adapters[name]()
