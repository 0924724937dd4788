"""Skips the BREAK_ON fixture with a reason."""

from tests.drivers.fake import answer, breaks_on, serve

serve(lambda message: {"seq": message["seq"], "skipped": {"reason": "this SDK build has no streaming client"}}
      if breaks_on(message) else answer(message))
