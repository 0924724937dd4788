"""Google Gemini: whole `GenerateContentResponse` objects on SSE (`streamGenerateContent?alt=sse`), no terminator.

Each `data:` line carries one complete response whose candidates hold only the new parts; the stream
ends at EOF. The Gemini API and Vertex AI share the wire format (Vertex adds streamed function-call
arguments, CONTRACT.md 3.3 gemini rule 5).
"""

from deltacheck.protocols.spec import Protocol
from deltacheck.protocols.sse import SseFraming

PROTOCOL = Protocol(
    name="gemini",
    package=__name__,
    title="Google Gemini",
    short="gemini",
    # The model is part of the path (`/v1beta/models/{model}:streamGenerateContent?alt=sse`): what every
    # request path of this protocol ends with, before its query.
    endpoint=":streamGenerateContent",
    provider="gemini",
    framing=SseFraming(named_events=False),
    # An empty text part without a signature adds nothing (CONTRACT 3.3 gemini rule 2): a library that keeps
    # the stream's closing `{"text": ""}` as a part of its own has lost nothing.
    empty_parts_omitted=True,
    # Joining unsigned text (and thought) parts is the contract's form, not Google's (rule 2): parts left
    # apart hold the same answer. A signed part is never joined (rule 3), so that stays judged.
    plain_text_parts_join=True,
    # Gemini calls carry no id unless the API gives one, Gemini 3 signs them, and streams end with an empty part.
    ordinary_tags=frozenset({"missing-id", "reasoning-signature", "empty-part"}),
    capability_notes={
        "annotations": "the contract defines no Gemini annotations (citationMetadata is candidate metadata, not part of a text part)",
        "builtin_tools": "built-in tool calls the client carries out are Responses item types; a Gemini stream has none",
        "custom_tools": "custom tool calls are a Responses item type; Gemini function calls always carry a JSON object",
        "extra_content": "extra_content is a Chat Completions tool-call extension; a Gemini part carries its thoughtSignature itself",
        "item_id": "item ids belong to Responses output items; Gemini function calls have none",
        "message_extra_content": (
            "extra_content is a Chat Completions message extension; a Gemini text part carries its thoughtSignature "
            "itself (its signature)"
        ),
        "refusal": "Gemini has no refusal part (a refusal is a finishReason such as SAFETY)",
        "server_tools": "server tool blocks are Anthropic Messages content; a Gemini stream has none",
    },
)
