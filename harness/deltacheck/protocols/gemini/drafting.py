"""What `deltacheck new` drafts for a Gemini fixture."""

# Where the provider documents this stream: a draft's basis placeholder points a contributor there.
STREAM_DOCUMENTATION = "https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent"

# A minimal stream to replace: one text answer in two chunks, finished, as the provider documents it.
SCAFFOLD_CHUNKS = [
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "TODO"}]}, "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "totalTokenCount": 1},
        "modelVersion": "TODO",
        "responseId": "TODO",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "."}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2, "totalTokenCount": 3},
        "modelVersion": "TODO",
        "responseId": "TODO",
    },
]
