"""What `deltacheck new` drafts for an Anthropic Messages fixture."""

# Where the provider documents this stream: a draft's basis placeholder points a contributor there.
STREAM_DOCUMENTATION = "https://platform.claude.com/docs/en/build-with-claude/streaming"

# A minimal stream to replace: one text answer, finished, as the provider documents it.
SCAFFOLD_CHUNKS = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_TODO",
            "type": "message",
            "role": "assistant",
            "model": "TODO",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "TODO"}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 1},
    },
    {"type": "message_stop"},
]
