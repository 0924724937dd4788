"""A user's own Chat Completions accumulator and its deltacheck adapter.

Deliberately naive (one text for all choices, tool calls by index, names and ids appended), so that
the corpus finds real failures in it.
"""

from deltacheck import Adapter, AssemblyRequest


def accumulate(chunks):
    text, calls = "", {}
    finish = None
    for chunk in chunks:
        for choice in chunk.get("choices", []):
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call.get("index", 0), {"id": None, "name": "", "arguments": ""})
                slot["id"] = slot["id"] or call.get("id")
                function = call.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
            finish = finish or choice.get("finish_reason")
    return text, calls, finish


class MyAccumulator(Adapter):
    name = "my-accumulator"
    library = "my_accumulator"
    version = "0.0.1"
    protocols = frozenset({"openai-chat"})
    capabilities = frozenset({"finish_reason"})
    code_path = "my_accumulator.accumulate over the fixture's chunks"

    def assemble(self, request: AssemblyRequest):
        text, calls, finish = accumulate(request.chunks)
        parts = ([{"type": "text", "text": text, "annotations": []}] if text else []) + [
            {"type": "tool_call", "kind": "function", "item_id": None, "id": c["id"], "name": c["name"], "arguments": c["arguments"]} for _, c in sorted(calls.items())]
        return {"choices": [{"index": 0, "parts": parts, "finish_reason": finish, "finish_detail": None}], "usage": None, "error": None}
