"""pydantic-ai's `BedrockConverseModel`, driven through `pydantic_ai.direct.model_request_stream`.

Code path: `BedrockConverseModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0",
provider=BedrockProvider(bedrock_client=boto3.client("bedrock-runtime", endpoint_url=<loopback>, region us-east-1,
access key and secret "test")))`, its own requirements file (pydantic-ai's bedrock extra). pydantic-ai calls
`client.converse_stream(...)`: botocore signs the request (SigV4), posts it to `/model/{modelId}/converse-stream` on
a loopback server on 127.0.0.1 (adapters/loopback.py) that answers with the fixture's event-stream body, one HTTP
chunk per message or per byte-level cut, and reads it back through urllib3 and its own `EventStream` (the
`EventStreamBuffer` message decoder with its checksums, and the service model's parser). pydantic-ai's
`BedrockStreamedResponse._map_chunk` maps each event onto its parts manager (parts keyed by contentBlockIndex); the
result is the `ModelResponse` of the stream's `get()` once the stream is exhausted, mapped as the other pydantic-ai
adapters map it (adapters/pydantic_ai/adapter.py). `events` are its `PartEndEvent`s for `ToolCallPart`s; how far
botocore had read when one was emitted is not observable through a socket, so their `after_chunk` is null.

Bedrock's own fields:
- `TextPart` -> text; annotations = `provider_details['citations']`, the block's `citation` deltas as botocore parsed
  them, which pydantic-ai keeps when it can map their sources (`_map_citations`).
- `ThinkingPart` -> reasoning (`content`, `signature`). pydantic-ai keeps a `redactedContent` block as
  `ThinkingPart(id='redacted_content')` whose signature is the blob's bytes decoded as UTF-8, and sends it back as
  `redactedContent: signature.encode('utf-8')` (`_map_thinking_part`): -> redacted_reasoning with `data` = those
  bytes in base64.
- finish_reason = `provider_details['finish_reason']`, the raw `messageStop.stopReason` pydantic-ai keeps beside its
  normalised one.
- An exception or error message: botocore raises `EventStreamError` (a `ClientError`) while pydantic-ai iterates,
  and pydantic-ai raises `ModelHTTPError` whose body is botocore's `{"Error": {"Code", "Message"}}`; it is left to
  propagate (CONTRACT 3.3 bedrock-converse rule 7 accepts a reader that raises the exception the stream sent), as
  botocore's `ChecksumMismatch` and a cut-off body do.

Cannot express: usage (normalised into `RequestUsage`; `metadata.usage` is not kept), server tools (pydantic-ai
keeps a `server_tool_use` call and its `toolResult` only for Nova's code interpreter, as `NativeToolCallPart` /
`NativeToolReturnPart` with pydantic-ai's tool kind; any other server_tool_use start makes no part, and its input
deltas are left as a nameless tool-call delta).
"""

from __future__ import annotations

import base64
from typing import Any

import boto3
from botocore.config import Config
from pydantic_ai.messages import ThinkingPart
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider

from deltacheck.adapter import manifest_name
from deltacheck.model import AssemblyRequest

from ..loopback import AWS_ACCESS_KEY_ID, AWS_REGION, AWS_SECRET_ACCESS_KEY, LoopbackReplay
from .adapter import _PydanticAIAdapter

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
REDACTED_CONTENT_ID = "redacted_content"  # the ThinkingPart id pydantic-ai gives a redactedContent block


class PydanticAIBedrock(_PydanticAIAdapter):
    name = manifest_name("pydantic-ai-bedrock")
    protocol = "bedrock-converse"
    protocols = frozenset({protocol})
    annotations_key = "citations"
    capabilities = frozenset({"reasoning", "reasoning_signature", "annotations", "finish_reason", "error", "events"})
    capability_notes = dict(
        flags=("a ToolCallPart keeps `args` as received; pydantic-ai validates them only when it runs the tool, and "
               "marks nothing on the part"),
        server_tools=("pydantic-ai keeps a server_tool_use call and its toolResult block only for Nova's code interpreter, "
                      "as NativeToolCallPart / NativeToolReturnPart with its own tool kind; any other makes no part"),
        usage="usage is normalised into pydantic-ai's RequestUsage; Bedrock's metadata.usage object is not kept")
    code_path = ("pydantic_ai.direct.model_request_stream on BedrockConverseModel(BedrockProvider(bedrock_client=boto3 "
                 "bedrock-runtime client at a loopback endpoint serving the fixture's event stream)), mapped from the "
                 "stream's final ModelResponse")

    def __init__(self) -> None:
        super().__init__()
        # One server and one model for every fixture, as an application keeps one client.
        self._server = LoopbackReplay()
        client = boto3.client("bedrock-runtime", endpoint_url=self._server.url, region_name=AWS_REGION,
                              aws_access_key_id=AWS_ACCESS_KEY_ID, aws_secret_access_key=AWS_SECRET_ACCESS_KEY,
                              config=Config(retries={"total_max_attempts": 1}))  # a retry is not a stream to replay
        self._model = BedrockConverseModel(MODEL, provider=BedrockProvider(bedrock_client=client))

    async def assemble(self, request: AssemblyRequest) -> dict[str, Any]:
        self._server.serve(request)
        return await super().assemble(request)

    def _open(self, handler: Any) -> tuple[Any, None]:
        return self._model, None  # the loopback server answers, not the mock transport's handler

    def _error(self, exc: Any) -> None:
        return None  # pydantic-ai raised: the harness judges the exception (module docstring)

    def _redacted_reasoning(self, part: ThinkingPart) -> dict[str, Any] | None:
        if part.id != REDACTED_CONTENT_ID or part.signature is None:
            return None
        return {"type": "redacted_reasoning", "data": base64.b64encode(part.signature.encode("utf-8")).decode("ascii")}
