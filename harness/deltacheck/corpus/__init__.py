"""The corpus as the harness reads it: loading, schema checks and lint of every fixture."""
