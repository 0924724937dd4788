"""Answers `start` with protocol version 2."""

from tests.drivers.fake import HELLO, serve

serve(hello={**HELLO, "version": 2})
