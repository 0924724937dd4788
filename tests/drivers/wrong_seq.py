"""Answers the BREAK_ON fixture with a seq one too high."""

from tests.drivers.fake import answer, breaks_on, serve

serve(lambda message: {**answer(message), "seq": message["seq"] + 1} if breaks_on(message) else answer(message))
