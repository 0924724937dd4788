"""OpenAI Chat Completions: `chat.completion.chunk` objects on SSE, ended by `data: [DONE]`."""

from deltacheck.protocols.spec import Protocol
from deltacheck.protocols.sse import SseFraming

PROTOCOL = Protocol(
    name="openai-chat",
    package=__name__,
    title="OpenAI Chat Completions",
    short="chat",
    endpoint="/chat/completions",
    provider="openai",
    framing=SseFraming(named_events=False, terminator="[DONE]"),
    empty_parts_omitted=True,
    capability_notes={
        "builtin_tools": "built-in tool calls the client carries out are Responses item types; a Chat Completions stream has none",
        "annotations": "the contract defines no Chat Completions annotations (they are tested on Responses and Anthropic)",
        "custom_tools": "custom tool calls are a Responses item type; a Chat Completions stream has none",
        "item_id": "item ids belong to Responses output items; Chat Completions tool calls have none",
        "server_tools": "server tool blocks are Anthropic Messages content; a Chat Completions stream has none",
        "finish_detail": "Chat Completions has only finish_reason, no incomplete reason or stop_sequence",
        "reasoning_signature": "Chat Completions reasoning deltas carry no signature or encrypted content",
    },
)
