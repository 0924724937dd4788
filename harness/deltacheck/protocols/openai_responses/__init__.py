"""OpenAI Responses: typed events (`response.*`) on SSE, each named in an `event:` line."""

from deltacheck.protocols.spec import Protocol
from deltacheck.protocols.sse import SseFraming

PROTOCOL = Protocol(
    name="openai-responses",
    package=__name__,
    title="OpenAI Responses",
    short="responses",
    endpoint="/responses",
    provider="openai",
    framing=SseFraming(named_events=True),
    capability_notes={
        "extra_content": "extra_content is a Chat Completions tool-call extension; Responses function calls carry none",
        "message_extra_content": "extra_content is a Chat Completions message extension; a Responses message carries none",
        "server_tools": "server tool blocks are Anthropic Messages content; a Responses stream has none",
        "multiple_choices": "a Responses stream has one output, no choices",
    },
)
