"""What robustness fuzzing (`deltacheck.adequacy.robustness`) slips into a Anthropic Messages stream."""

# An event of a type the spec does not define yet: a client must skip it (or raise a clear error), never crash.
UNKNOWN_EVENT = {"type": "content_block_future", "index": 0, "payload": {"note": "not in the spec"}}
