"""The in-process adapter protocol, and the registry every adapter joins by subclassing.

An adapter feeds one fixture's stream to one implementation through the implementation's real code
path, and maps what the implementation produced onto the canonical result -- nothing more: it never
repairs, reorders or fills in what the library returned. A field the library cannot express is a
missing capability, declared here, and judged n/a.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Union

from deltacheck.errors import BadAdapterSpec, UnknownAdapter
from deltacheck.model import AssemblyRequest
from deltacheck.protocols import transport
from deltacheck.protocols.capability_notes import with_protocol_reasons

if TYPE_CHECKING:
    from deltacheck.driver.external import ExternalAdapter
    from deltacheck.driver.subprocess_adapter import SubprocessAdapter
    from deltacheck.errors import ManifestProblem

CAPABILITIES = {
    "refusal": "refusal parts",
    "reasoning": "reasoning and redacted reasoning parts",
    "reasoning_signature": "the signature / encrypted content of reasoning parts, and the thought signature a text part or tool call carries (Gemini's thoughtSignature)",
    "annotations": "text annotations and citations",
    "item_id": "Responses item ids of tool calls",
    "custom_tools": "Responses custom tool calls",
    "builtin_tools": "Responses built-in tool calls the client carries out or answers (kind builtin)",
    "server_tools": "Anthropic server tool calls and their result blocks",
    "finish_reason": "finish_reason",
    "finish_detail": "finish_detail (Responses incomplete reason, Anthropic stop_sequence)",
    "usage": "usage",
    "error": "the stream's error",
    "multiple_choices": "choices other than index 0",
    "events": "tool-call completion events emitted while streaming",
    "flags": "a tool call kept but marked not executable (its arguments are not valid JSON, or the stream contradicts itself about them)",
    "extra_content": "a tool call's provider extension object (Chat `extra_content`: Gemini's thought signature)",
    "message_extra_content": (
        "a message's provider extension object outside its tool calls, on its text part (Chat `delta.extra_content`: "
        "Gemini's thought signature on an answer without function calls)"
    ),
}


# Bundled adapter modules, imported on first lookup so their classes register themselves.
BUNDLED_MODULES = ("deltacheck.adapters.reference",)

_REGISTRY: dict[str, type[Adapter]] = {}


class Adapter:
    """Subclass with the class data below and an `assemble` method (sync or async)."""

    name: ClassVar[str]
    library: ClassVar[str]
    version: ClassVar[str]
    protocols: ClassVar[frozenset[str]]
    capabilities: ClassVar[frozenset[str]]
    code_path: ClassVar[str]  # which of the library's code paths the adapter drives, in one sentence
    # Optional: for each capability left out, one sentence saying why the library cannot express it. Only the
    # library's own reasons: describe() adds the protocol's (a Chat Completions stream has no item ids).
    capability_notes: ClassVar[dict[str, str]] = {}
    # What the implementation promises to read (CONTRACT.md 4.4): "provider" (a provider's own SDK) or
    # "multi-provider". A manifest declares it for the adapters it lists; None: not declared, which the
    # report shows and judges as "multi-provider", the wider promise.
    scope: ClassVar[str | None] = None
    # Optional: another wire the adapter reads its protocol on (a Transport a protocol package declares, such as
    # "bedrock-invoke": Anthropic Messages events inside Bedrock's event-stream messages). Its requests then carry
    # that body; fixtures that cannot travel on it are n/a. A manifest declares it for the adapters it lists.
    transport: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name is None:
            return  # an abstract intermediate class
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise TypeError(
                f"adapter name {name!r} is claimed by both {_REGISTRY[name].__qualname__} and {cls.__qualname__}"
            )
        unknown = set(cls.capabilities) - set(CAPABILITIES)
        if unknown:
            raise TypeError(f"{cls.__qualname__} declares unknown capabilities {sorted(unknown)}")
        unknown = set(cls.capability_notes) - set(CAPABILITIES)
        if unknown:
            raise TypeError(f"{cls.__qualname__} has capability_notes for unknown capabilities {sorted(unknown)}")
        if cls.transport is not None:
            owner, _ = transport(cls.transport)  # UnknownTransport for a name no protocol declares
            if owner.name not in cls.protocols:
                raise TypeError(
                    f"{cls.__qualname__} reads transport {cls.transport!r} of {owner.name}, a protocol it does not speak"
                )
        _REGISTRY[name] = cls

    def assemble(self, request: AssemblyRequest) -> dict[str, Any] | Awaitable[dict[str, Any]]:
        raise NotImplementedError

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The adapter as results and reports show it, its protocols' reasons filled into capability_notes."""
        return {
            "name": cls.name,
            "library": cls.library,
            "version": cls.version,
            "protocols": sorted(cls.protocols),
            "capabilities": sorted(cls.capabilities),
            "code_path": cls.code_path,
            "capability_notes": with_protocol_reasons(cls.protocols, cls.capabilities, cls.capability_notes),
            **({"scope": cls.scope} if cls.scope else {}),
            **({"transport": cls.transport} if cls.transport else {}),
        }


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


def _external() -> tuple[dict[str, ExternalAdapter], list[ManifestProblem]]:
    # Imported here, not at the top: the driver imports this module inside an adapter's own
    # environment, where the harness side (jsonschema, subprocess management) is not wanted.
    from deltacheck.driver.external import external_adapters

    return external_adapters(_REGISTRY)


def registered_adapters() -> dict[str, AdapterFactory]:
    """In-process adapters and manifest adapters, by name; no third-party library is imported."""
    _import_bundled()
    adapters: dict[str, AdapterFactory] = {**_external()[0], **_REGISTRY}
    return dict(sorted(adapters.items()))


def manifest_problems() -> list[ManifestProblem]:
    """What is wrong with the adapter manifests; those entries are left out of the registry."""
    _import_bundled()
    return _external()[1]


def is_adapter_spec(name: str) -> bool:
    """`MODULE:CLASS` or `path/to/file.py:CLASS` (registered names never contain a colon)."""
    return ":" in name


def load_adapter_spec(spec: str) -> type[Adapter]:
    """The Adapter subclass a `MODULE:CLASS` or `path/to/file.py:CLASS` spec names.

    A module is imported from the current directory or PYTHONPATH, as `python -m` would; a file is
    loaded with its own folder on sys.path, so it can import its siblings.
    """
    target, _, class_name = spec.rpartition(":")
    if not target or not class_name.isidentifier():
        raise BadAdapterSpec(spec, "expected MODULE:CLASS or path/to/file.py:CLASS")
    try:
        if target.endswith(".py") or os.sep in target or "/" in target:
            module = _import_file(Path(target))
        else:
            module = importlib.import_module(target)
    except BadAdapterSpec as exc:
        raise BadAdapterSpec(spec, exc.reason) from None
    except Exception as exc:  # the user's module failing to import: one line here, the chain for a driver's stderr
        raise BadAdapterSpec(spec, f"cannot import {target}: {type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        raise BadAdapterSpec(spec, f"{target} has no attribute {class_name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise BadAdapterSpec(spec, f"{class_name} is not a subclass of deltacheck.Adapter")
    missing = [
        field
        for field in ("name", "library", "version", "protocols", "capabilities", "code_path")
        if not hasattr(cls, field)
    ]
    if missing:
        raise BadAdapterSpec(spec, f"{class_name} does not set {', '.join(missing)}")
    return cls


def _import_file(path: Path):
    if not path.is_file():
        raise BadAdapterSpec(str(path), f"no such file {path}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = path.stem if path.stem.isidentifier() else "deltacheck_user_adapter"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:  # a file whose name Python does not import as a module
        raise BadAdapterSpec(str(path), f"cannot import {path}: not a Python file (a module file ends in .py)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def get_adapter_factory(name: str) -> AdapterFactory:
    """The factory for a registered name or an adapter spec; UnknownAdapter / BadAdapterSpec otherwise."""
    if is_adapter_spec(name):
        # The harness runs as a console script, whose sys.path lacks the current directory that
        # `python -m` would give: a user's MODULE:CLASS is looked up where the user is.
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return load_adapter_spec(name)
    _import_bundled()
    if name in _REGISTRY:  # in-process: no need to read the manifests
        return _REGISTRY[name]
    adapters = registered_adapters()
    if name not in adapters:
        raise UnknownAdapter(name, list(adapters))
    return adapters[name]


def get_adapter(name: str) -> Adapter | SubprocessAdapter:
    """A ready adapter: a registered name or a `MODULE:CLASS` / `file.py:CLASS` spec.

    For a manifest adapter this builds its environment when needed.
    """
    return get_adapter_factory(name)()
