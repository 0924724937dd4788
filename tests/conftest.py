"""Register the miniature adapters for every test, so CLI tests can name them."""

from tests import miniatures  # noqa: F401
