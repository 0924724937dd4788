"""The bundled adapters `deltacheck explain --repro` reproduces a fixture of this protocol with, one per language."""

# None yet: the provider's SDKs (boto3, the AWS SDK for JavaScript) are added here when their adapters land.
DEFAULT_ADAPTERS: dict[str, str] = {}
