"""What robustness fuzzing (`deltacheck.adequacy.robustness`) slips into a Chat Completions stream."""

# A chunk of an object type the spec does not define yet: a client must skip it (or raise a clear error), never crash.
UNKNOWN_EVENT = {"object": "chat.completion.chunk.preview", "choices": [], "x_future": {"note": "not in the spec"}}
