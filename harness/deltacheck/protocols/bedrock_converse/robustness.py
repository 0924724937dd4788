"""What robustness fuzzing (`deltacheck.adequacy.robustness`) slips into a Bedrock ConverseStream."""

# An event of a type the API does not define yet, in a message of its own: a client must skip it (botocore
# drops an event type its service model lacks) or raise a clear error, never crash.
UNKNOWN_EVENT = {"contentBlockFuture": {"contentBlockIndex": 0, "payload": {"note": "not in the spec"}}}
