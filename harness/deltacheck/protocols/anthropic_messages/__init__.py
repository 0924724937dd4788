"""Anthropic Messages: typed events (`message_start`, `content_block_delta`, ...) on SSE, each named in an `event:` line."""

from deltacheck.protocols.spec import Protocol
from deltacheck.protocols.sse import SseFraming

PROTOCOL = Protocol(
    name="anthropic-messages",
    package=__name__,
    title="Anthropic Messages",
    short="anthropic",
    endpoint="/messages",
    framing=SseFraming(named_events=True),
    capability_notes={
        "custom_tools": "custom tool calls are a Responses item type; Anthropic Messages has none",
        "item_id": "item ids belong to Responses output items; Anthropic content blocks have none",
        "multiple_choices": "an Anthropic message is a single choice",
        "refusal": "Anthropic Messages has no refusal content block (a refusal is only a stop_reason)",
    },
)
