"""What `deltacheck new` drafts for a Responses fixture."""

# Where the provider documents this stream: a draft's basis placeholder points a contributor there.
STREAM_DOCUMENTATION = "https://platform.openai.com/docs/api-reference/responses-streaming"

# A minimal stream to replace: one text answer, finished, as the provider documents it.
SCAFFOLD_CHUNKS = [
    {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": "resp_TODO", "object": "response", "status": "in_progress", "output": []},
    },
    {
        "type": "response.output_item.added",
        "sequence_number": 1,
        "output_index": 0,
        "item": {"id": "msg_TODO", "type": "message", "status": "in_progress", "role": "assistant", "content": []},
    },
    {
        "type": "response.content_part.added",
        "sequence_number": 2,
        "item_id": "msg_TODO",
        "output_index": 0,
        "content_index": 0,
        "part": {"type": "output_text", "text": "", "annotations": []},
    },
    {
        "type": "response.output_text.delta",
        "sequence_number": 3,
        "item_id": "msg_TODO",
        "output_index": 0,
        "content_index": 0,
        "delta": "TODO",
    },
    {
        "type": "response.completed",
        "sequence_number": 4,
        "response": {
            "id": "resp_TODO",
            "object": "response",
            "status": "completed",
            "output": [
                {
                    "id": "msg_TODO",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "TODO", "annotations": []}],
                }
            ],
        },
    },
]
