"""The bundled adapters `deltacheck explain --repro` reproduces a fixture of this protocol with, one per language."""

# The provider's own SDK in each language: the adapter a reproduction script is based on when none is named.
DEFAULT_ADAPTERS = {"python": "openai-python-responses", "node": "openai-node-responses"}
