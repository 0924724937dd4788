"""Anthropic Messages: typed events (`message_start`, `content_block_delta`, ...) on SSE, each named in an `event:` line.

The same events also travel inside AWS event-stream messages, on Bedrock's InvokeModelWithResponseStream (the
`bedrock-invoke` transport, `bedrock_invoke.py`), for the adapters that read Claude on Bedrock.
"""

from deltacheck.protocols.anthropic_messages.bedrock_invoke import InvokeStreamFraming
from deltacheck.protocols.spec import Protocol, Transport
from deltacheck.protocols.sse import SseFraming

# The event types of a Messages stream (an `error` event aside): each names itself in `type` and in its
# SSE `event:` line.
EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)

PROTOCOL = Protocol(
    name="anthropic-messages",
    package=__name__,
    title="Anthropic Messages",
    short="anthropic",
    endpoint="/messages",
    provider="anthropic",
    framing=SseFraming(named_events=True),
    capability_notes={
        "builtin_tools": "built-in tool calls of kind builtin are Responses output items; Anthropic's client-run tools (bash, text editor) stream as tool_use blocks",
        "custom_tools": "custom tool calls are a Responses item type; Anthropic Messages has none",
        "extra_content": "extra_content is a Chat Completions tool-call extension; Anthropic tool_use blocks carry none",
        "message_extra_content": "extra_content is a Chat Completions message extension; an Anthropic message carries none",
        "item_id": "item ids belong to Responses output items; Anthropic content blocks have none",
        "multiple_choices": "an Anthropic message is a single choice",
        "refusal": "Anthropic Messages has no refusal content block (a refusal is only a stop_reason)",
    },
    transports=(
        Transport(
            name="bedrock-invoke",
            title="AWS Bedrock InvokeModelWithResponseStream",
            # The model is part of the path (`/model/{modelId}/invoke-with-response-stream`).
            endpoint="/invoke-with-response-stream",
            framing=InvokeStreamFraming(),
        ),
    ),
)
