"""Responses built-in calls the client carries out or answers, read from openai-python's typed items (shared by the
adapters whose library hands those items over: openai-python itself, llama-index)."""

from __future__ import annotations

import json
from typing import Any


def builtin_call(item: Any) -> list[dict[str, Any]]:
    """A built-in call (CONTRACT 3.3 openai-responses rule 7) from the SDK's typed item:
    ResponseApplyPatchToolCall.operation, LocalShellCall.action, ResponseFunctionShellToolCall.action (its
    `environment` says whether the API ran it in a container), ResponseToolSearchCall.arguments (with its
    `execution`), McpApprovalRequest's server_label, name and arguments. Any other item is not one: []."""
    kind = getattr(item, "type", None)
    if kind == "apply_patch_call":
        payload = sdk_json(item.operation)
    elif kind in ("local_shell_call", "shell_call"):
        environment = getattr(item, "environment", None)
        if environment is not None and environment.type != "local":
            return []  # run by the API in a hosted container
        payload = sdk_json(item.action)
    elif kind == "tool_search_call":
        if item.execution != "client":
            return []  # executed by the server
        payload = item.arguments
    elif kind == "mcp_approval_request":
        payload = {"server_label": item.server_label, "name": item.name, "arguments": item.arguments}
    else:
        return []
    answer = item.id if kind == "mcp_approval_request" else item.call_id
    return [{"type": "tool_call", "kind": "builtin", "id": answer, "item_id": item.id, "name": kind,
             "arguments": arguments_text(payload)}]


def sdk_json(model: Any) -> Any:
    """The SDK's own `to_dict()` form of a typed value (`exclude_unset`): what the API sent, not the defaults."""
    return model.model_dump(mode="json", exclude_unset=True) if hasattr(model, "model_dump") else model


def arguments_text(value: Any) -> Any:
    """JSON text as the SDK holds it; a parsed value is serialised; None stays None (no arguments, CONTRACT 4)."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
