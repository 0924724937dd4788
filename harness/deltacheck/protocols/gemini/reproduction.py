"""The bundled adapters `deltacheck explain --repro` reproduces a fixture of this protocol with, one per language."""

# The provider's own SDK in each language (Node's is added where its adapter lands).
DEFAULT_ADAPTERS: dict[str, str] = {"python": "google-genai-chat"}
