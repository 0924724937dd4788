"""A tiny gateway for proxy-mode tests: OpenAI Chat upstream, Chat / Responses / Anthropic downstream.

Standard library only, so it runs anywhere the tests run. By default it translates faithfully.
`--writer weave` models the weave-os/router ResponsesWriter of seed 001: the streamed events carry
every call, but `response.completed`'s output is built by `for i := 0; i < len(toolItems); i++` over
a map keyed by the upstream tool-call index, so a call past a gap in the indices is dropped there.
`--misbehave` makes it fail the ways a broken gateway does, for the bad-input tests.

    python mini_gateway.py --port PORT --upstream BASE_URL [--writer faithful|weave] [--misbehave WHAT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def upstream_chunks(base_url: str, body: dict):
    """The upstream's chat chunks, as they arrive."""
    request = urllib.request.Request(base_url + "/chat/completions", data=json.dumps({**body, "stream": True}).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        for raw in response:
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            yield json.loads(data)


class ResponsesWriter:
    def __init__(self, emit, weave: bool) -> None:
        self.emit, self.weave = emit, weave
        self.items: list[dict] = []  # in output order
        self.tool_items: dict[int, dict] = {}  # upstream tool-call index -> item
        self.message: dict | None = None
        self.reasoning: dict | None = None
        self.seq = 0
        self.usage = None
        self.status = "completed"

    def send(self, event: dict) -> None:
        event["sequence_number"] = self.seq
        self.seq += 1
        self.emit(event["type"], event)

    def response(self, status: str, output: list) -> dict:
        return {"id": "resp_mini", "object": "response", "status": status, "output": output, "usage": self.usage,
                "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None}

    def start(self) -> None:
        self.send({"type": "response.created", "response": self.response("in_progress", [])})

    def _add(self, item: dict) -> int:
        item["output_index"] = len(self.items)
        self.items.append(item)
        wire = {k: v for k, v in item.items() if k not in ("output_index", "text", "kind")}
        self.send({"type": "response.output_item.added", "output_index": item["output_index"], "item": wire})
        return item["output_index"]

    def feed(self, chunk: dict) -> None:
        if chunk.get("usage"):
            u = chunk["usage"]
            self.usage = {"input_tokens": u.get("prompt_tokens"), "output_tokens": u.get("completion_tokens"),
                          "total_tokens": u.get("total_tokens")}
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                if self.reasoning is None:
                    self.reasoning = {"type": "reasoning", "id": "rs_mini", "summary": [], "text": ""}
                    self._add(self.reasoning)
                self.reasoning["text"] += reasoning
                self.send({"type": "response.reasoning_text.delta", "item_id": "rs_mini",
                           "output_index": self.reasoning["output_index"], "content_index": 0, "delta": reasoning})
            for kind, key in (("output_text", "content"), ("refusal", "refusal")):
                if delta.get(key):
                    self._text(kind, delta[key])
            for entry in delta.get("tool_calls") or []:
                self._tool(entry)
            if choice.get("finish_reason") == "length":
                self.status = "incomplete"

    def _text(self, kind: str, text: str) -> None:
        if self.message is None or self.message["kind"] != kind:
            self.message = {"type": "message", "id": f"msg_mini_{len(self.items)}", "role": "assistant",
                            "status": "in_progress", "content": [], "text": "", "kind": kind}
            index = self._add(self.message)
            self.send({"type": "response.content_part.added", "item_id": self.message["id"], "output_index": index,
                       "content_index": 0, "part": {"type": kind, ("refusal" if kind == "refusal" else "text"): ""}})
        self.message["text"] += text
        self.send({"type": f"response.{'refusal' if kind == 'refusal' else 'output_text'}.delta",
                   "item_id": self.message["id"], "output_index": self.message["output_index"], "content_index": 0,
                   "delta": text})

    def _tool(self, entry: dict) -> None:
        index = entry.get("index", 0)
        function = entry.get("function") or {}
        item = self.tool_items.get(index)
        if item is None:
            call_id = entry.get("id") or f"call_mini_{index}"
            item = {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id,
                    "name": function.get("name") or "", "arguments": "", "status": "in_progress"}
            self.tool_items[index] = item
            self._add(item)
        if function.get("arguments"):
            item["arguments"] += function["arguments"]
            self.send({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                       "output_index": item["output_index"], "delta": function["arguments"]})

    def finish(self) -> None:
        for item in self.items:  # closeOpenItems: every item, whatever its key
            if item["type"] == "message":
                kind = item["kind"]
                field = "refusal" if kind == "refusal" else "text"
                item["content"] = [{"type": kind, field: item["text"], **({"annotations": []} if kind == "output_text" else {})}]
                self.send({"type": f"response.{'refusal' if kind == 'refusal' else 'output_text'}.done",
                           "item_id": item["id"], "output_index": item["output_index"], "content_index": 0,
                           field: item["text"]})
                self.send({"type": "response.content_part.done", "item_id": item["id"],
                           "output_index": item["output_index"], "content_index": 0, "part": item["content"][0]})
            elif item["type"] == "function_call":
                self.send({"type": "response.function_call_arguments.done", "item_id": item["id"],
                           "output_index": item["output_index"], "arguments": item["arguments"]})
            elif item["type"] == "reasoning":
                item["content"] = [{"type": "reasoning_text", "text": item["text"]}]
            item["status"] = "completed"
            self.send({"type": "response.output_item.done", "output_index": item["output_index"], "item": self._wire(item)})
        self.send({"type": f"response.{self.status}", "response": self.response(self.status, self._output())})

    def _output(self) -> list:
        """assembleOutput: messages and reasoning in order, then the tool items."""
        out = [self._wire(i) for i in self.items if i["type"] != "function_call"]
        if self.weave:
            for i in range(len(self.tool_items)):  # the reported loop: bounded by the count, keyed by raw index
                if i in self.tool_items:
                    out.append(self._wire(self.tool_items[i]))
        else:
            out += [self._wire(self.tool_items[i]) for i in sorted(self.tool_items)]
        return out

    @staticmethod
    def _wire(item: dict) -> dict:
        return {k: v for k, v in item.items() if k not in ("output_index", "text", "kind")}


class AnthropicWriter:
    def __init__(self, emit) -> None:
        self.emit = emit
        self.open: tuple[str, object] | None = None  # (kind, key) of the open block
        self.index = -1
        self.stop_reason = None
        self.usage = {"input_tokens": 0, "output_tokens": 0}

    def start(self) -> None:
        self.emit("message_start", {"type": "message_start", "message": {
            "id": "msg_mini", "type": "message", "role": "assistant", "content": [], "model": "mini",
            "stop_reason": None, "stop_sequence": None, "usage": dict(self.usage)}})

    def _block(self, kind: str, key: object, start: dict) -> None:
        if self.open == (kind, key):
            return
        self._close()
        self.index += 1
        self.open = (kind, key)
        self.emit("content_block_start", {"type": "content_block_start", "index": self.index, "content_block": start})

    def _close(self) -> None:
        if self.open is not None:
            self.emit("content_block_stop", {"type": "content_block_stop", "index": self.index})
            self.open = None

    def _delta(self, delta: dict) -> None:
        self.emit("content_block_delta", {"type": "content_block_delta", "index": self.index, "delta": delta})

    def feed(self, chunk: dict) -> None:
        if chunk.get("usage"):
            self.usage = {"input_tokens": chunk["usage"].get("prompt_tokens"),
                          "output_tokens": chunk["usage"].get("completion_tokens")}
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                self._block("thinking", None, {"type": "thinking", "thinking": "", "signature": ""})
                self._delta({"type": "thinking_delta", "thinking": reasoning})
            if delta.get("content"):
                self._block("text", None, {"type": "text", "text": ""})
                self._delta({"type": "text_delta", "text": delta["content"]})
            for entry in delta.get("tool_calls") or []:
                function = entry.get("function") or {}
                if entry.get("id"):
                    self._block("tool", entry.get("index"), {"type": "tool_use", "id": entry["id"],
                                                             "name": function.get("name"), "input": {}})
                if function.get("arguments"):
                    self._delta({"type": "input_json_delta", "partial_json": function["arguments"]})
            if choice.get("finish_reason"):
                self.stop_reason = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
                                    "content_filter": "refusal"}.get(choice["finish_reason"], choice["finish_reason"])

    def finish(self, leave_open: bool = False) -> None:
        if not leave_open:
            self._close()
        self.emit("message_delta", {"type": "message_delta", "delta": {"stop_reason": self.stop_reason,
                                                                       "stop_sequence": None}, "usage": self.usage})
        self.emit("message_stop", {"type": "message_stop"})


def make_handler(upstream: str, writer: str, misbehave: str | None):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            if misbehave == "http-500":
                return self._plain(500, b'{"error": {"message": "mini gateway: upstream unreachable"}}')
            if misbehave == "json-body":
                return self._plain(200, b'{"choices": []}')
            if misbehave == "hang":
                time.sleep(3600)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            if misbehave == "close-delimited":  # the body ends when the connection closes, as HTTP/1.0 servers do
                self.send_header("connection", "close")
                self.close_connection = True
            else:
                self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            path = self.path.split("?", 1)[0]
            if misbehave == "flood":
                chunk = b"data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": "x" * 4000}}]}).encode()
                try:
                    while True:
                        self._write(chunk + b"\n\n")
                except OSError:
                    return
            if misbehave == "wrong-protocol" or path.endswith("/chat/completions"):
                self._relay(body)
            elif path.endswith("/responses"):
                self._translate(ResponsesWriter(self._emit, weave=writer == "weave"), body)
            else:
                self._translate(AnthropicWriter(self._emit), body)
            if misbehave != "close-delimited":
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _plain(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _write(self, data: bytes) -> None:
            if misbehave == "close-delimited":
                self.wfile.write(data)
            else:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _emit(self, name: str, event: dict) -> None:
            self._write(f"event: {name}\ndata: {json.dumps(event)}\n\n".encode())

        def _relay(self, body: dict) -> None:
            for chunk in upstream_chunks(upstream, body):
                self._write(f"data: {json.dumps(chunk)}\n\n".encode())
            if misbehave != "no-done":
                self._write(b"data: [DONE]\n\n")

        def _translate(self, out, body: dict) -> None:
            out.start()
            for chunk in upstream_chunks(upstream, body):
                out.feed(chunk)
            if isinstance(out, AnthropicWriter):
                out.finish(leave_open=misbehave == "unstopped-block")
            else:
                out.finish()

        do_GET = do_POST  # noqa: N815

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--writer", choices=["faithful", "weave"], default="faithful")
    parser.add_argument("--pidfile", help="write the process id here once listening (for the interruption tests)")
    parser.add_argument("--misbehave", choices=["exit", "never-listen", "http-500", "json-body", "wrong-protocol",
                                                "hang", "no-done", "unstopped-block",
                                                "close-delimited", "flood"])
    args = parser.parse_args()
    if args.misbehave == "exit":
        print("mini gateway: no configuration, giving up", file=sys.stderr)
        sys.exit(3)
    if args.misbehave == "never-listen":
        time.sleep(3600)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.upstream, args.writer, args.misbehave))
    server.daemon_threads = True
    if args.pidfile:
        with open(args.pidfile, "w") as handle:
            handle.write(str(os.getpid()))
    server.serve_forever()


if __name__ == "__main__":
    main()
