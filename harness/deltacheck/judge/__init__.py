"""Judging: comparison of results, verdicts, distinct findings, and expectations files."""
