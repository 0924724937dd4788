"""Adequacy: does the corpus have teeth? Re-chunking and robustness fuzzing, and the mutants of known bug classes."""
