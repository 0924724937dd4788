"""What robustness fuzzing (`deltacheck.adequacy.robustness`) slips into a Gemini stream."""

# A response whose part is of a type the API does not define yet: a client must skip it (or raise a clear
# error), never crash.
UNKNOWN_EVENT = {
    "candidates": [{"content": {"role": "model", "parts": [{"futurePart": {"note": "not in the spec"}}]}, "index": 0}]
}
