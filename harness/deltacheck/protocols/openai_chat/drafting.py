"""What `deltacheck new` drafts for a Chat Completions fixture."""

# Where the provider documents this stream: a draft's basis placeholder points a contributor there.
STREAM_DOCUMENTATION = "https://platform.openai.com/docs/api-reference/chat-streaming/streaming"

# A minimal stream to replace: one text answer, finished, as the provider documents it.
SCAFFOLD_CHUNKS = [
    {
        "id": "chatcmpl-TODO",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "TODO",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "TODO"}, "finish_reason": None}],
    },
    {
        "id": "chatcmpl-TODO",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "TODO",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    },
]
