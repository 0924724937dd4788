"""Adapters that plug implementations into deltacheck; one module per implementation."""
