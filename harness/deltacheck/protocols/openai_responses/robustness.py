"""What robustness fuzzing (`deltacheck.adequacy.robustness`) slips into a Responses stream."""

# An event of a type the spec does not define yet: a client must skip it (or raise a clear error), never crash.
UNKNOWN_EVENT = {"type": "response.future_feature.delta", "sequence_number": 0, "output_index": 0, "delta": "?"}
