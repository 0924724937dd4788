"""What `deltacheck new` drafts for a Bedrock ConverseStream fixture."""

# Where the provider documents this stream: a draft's basis placeholder points a contributor there.
STREAM_DOCUMENTATION = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html"

# A minimal stream to replace: one text answer, finished, in the order Bedrock sends it (no contentBlockStart for
# a text block; metadata after messageStop).
SCAFFOLD_CHUNKS = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "TODO"}}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"messageStop": {"stopReason": "end_turn"}},
    {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 1}}},
]
