"""Implementations out of process: the JSON-lines driver protocol, driver processes, manifests and their environments."""
