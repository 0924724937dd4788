"""AWS Bedrock ConverseStream: events in binary `application/vnd.amazon.eventstream` messages, not SSE.

`POST /model/{modelId}/converse-stream` answers with one message per event (`messageStart`,
`contentBlockStart`, `contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`), or a modelled
exception (`throttlingException`, ...) as a message of its own; the stream ends when the body does. A
chunk of a fixture is one message's event as botocore presents it (`frames.py` says exactly), and this
package's framing writes the messages and reads them back (CONTRACT.md 2, 3.3 bedrock-converse).
"""

from deltacheck.protocols.bedrock_converse.frames import EventStreamFraming
from deltacheck.protocols.spec import Protocol

# The event types of a ConverseStream (botocore's bedrock-runtime service model, `ConverseStreamOutput`).
EVENTS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
)
# Its modelled exceptions, each a message of `:message-type` exception (the same model).
EXCEPTIONS = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)

PROTOCOL = Protocol(
    name="bedrock-converse",
    package=__name__,
    title="AWS Bedrock ConverseStream",
    short="bedrock",
    # The model is part of the path (`/model/{modelId}/converse-stream`): what every request path ends with.
    endpoint="/converse-stream",
    provider="bedrock",
    framing=EventStreamFraming(),
    # Text blocks often end in an empty one (`{"text": ""}`, then its stop: vercel/ai's capture
    # issue-11409-kimi-k2-thinking-read-file): a library that keeps it as a part has lost nothing.
    empty_parts_omitted=True,
    # Text and reasoning blocks open without a contentBlockStart, and every event carries the padding `p`.
    ordinary_tags=frozenset({"missing-block-start", "padding-field"}),
    capability_notes={
        "builtin_tools": "built-in tool calls the client carries out are Responses item types; a ConverseStream has none",
        "custom_tools": "custom tool calls are a Responses item type; a Bedrock toolUse input is always JSON",
        "extra_content": "extra_content is a Chat Completions tool-call extension; a Bedrock toolUse block carries none",
        "finish_detail": "a ConverseStream has no finish detail: messageStop carries only stopReason and the model's own additionalModelResponseFields",
        "item_id": "item ids belong to Responses output items; a Bedrock toolUse has only its toolUseId",
        "message_extra_content": "extra_content is a Chat Completions message extension; a Bedrock message carries none",
        "multiple_choices": "a ConverseStream streams one message",
        "refusal": "Bedrock has no refusal block (a refusal is a stopReason such as content_filtered or guardrail_intervened)",
    },
)
