"""Answers the BREAK_ON fixture with both an error and a result: not a valid reply."""

from tests.drivers.fake import answer, breaks_on, serve

serve(lambda message: {"seq": message["seq"], "errored": {"message": "also this"}, "result": answer(message)["result"]}
      if breaks_on(message) else answer(message))
