"""Gateways in proxy mode: replaying upstream, capturing downstream, and judging what survives translation."""
