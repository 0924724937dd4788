"""Prints a library's chatter to stdout instead of the reply to the BREAK_ON fixture."""

from tests.drivers.fake import answer, breaks_on, serve

serve(lambda message: "Streaming started... 3 chunks received" if breaks_on(message) else answer(message))
