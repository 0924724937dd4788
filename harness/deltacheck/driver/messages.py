"""The driver protocol's messages (docs/PROTOCOL.md), built and encoded in one place.

Standard library only: the generic driver imports this inside an adapter's own virtualenv, where
the harness's dependencies may be absent. Validation against the schemas lives in
`deltacheck.driver.message_schemas`, on the harness side.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from deltacheck.model import AssemblyRequest

PROTOCOL_VERSION = 1
IMPLEMENTATION_FIELDS = (
    "name",
    "library",
    "version",
    "language",
    "protocols",
    "capabilities",
    "code_path",
    "capability_notes",
)  # capability_notes is optional


def encode_line(message: dict[str, Any]) -> bytes:
    # ASCII escapes keep every line valid UTF-8, even for a string holding a lone surrogate.
    return (json.dumps(message, separators=(",", ":"), default=_not_json) + "\n").encode("ascii")


def _not_json(value: Any) -> str:
    # An adapter that returns a non-JSON value (a set, an SDK object) gets judged on a visible marker,
    # the same "not a canonical result" it would get in-process, instead of killing the driver.
    return f"<not JSON: {type(value).__name__} {value!r:.100}>"


def start_request() -> dict[str, Any]:
    return {"cmd": "start", "version": PROTOCOL_VERSION}


def start_reply(implementation: dict[str, Any]) -> dict[str, Any]:
    return {"cmd": "start", "version": PROTOCOL_VERSION, "implementation": implementation}


def run_request(seq: int, request: AssemblyRequest) -> dict[str, Any]:
    """The body travels as `sse` text, or as `body_base64` for a framing that is binary (its bytes are no text:
    Bedrock's event-stream messages, of its protocol or of the transport the request names)."""
    if request.binary:
        return {"cmd": "run", "seq": seq, "request": {**request.to_json(), "body_base64": _base64(request.sse)}}
    return {"cmd": "run", "seq": seq, "request": {**request.to_json(), "sse": request.sse.decode("utf-8")}}


def _base64(body: bytes) -> str:
    return base64.b64encode(body).decode("ascii")


def stop_request() -> dict[str, Any]:
    return {"cmd": "stop"}


def request_from_wire(wire: dict[str, Any]) -> AssemblyRequest:
    """The AssemblyRequest a driver hands its adapter, carrying exactly the SSE bytes the harness sent."""
    cuts = wire.get("sse_cuts")
    request = AssemblyRequest(
        wire["fixture"],
        wire["protocol"],
        tuple(wire["chunks"]),
        wire["stream_end"],
        sse_cuts=tuple(cuts) if cuts else None,
        transport=wire.get("transport"),
    )
    # pre-fills the cached_properties: serve these bytes, not a re-render, binary as the wire says
    body = base64.b64decode(wire["body_base64"]) if "body_base64" in wire else wire["sse"].encode("utf-8")
    vars(request)["sse"] = body
    vars(request)["binary"] = "body_base64" in wire
    return request
