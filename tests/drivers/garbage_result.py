"""A valid reply whose result is not a canonical result, for the BREAK_ON fixture."""

from tests.drivers.fake import answer, breaks_on, serve

serve(lambda message: {"seq": message["seq"], "result": {"choices": "lots"}} if breaks_on(message) else answer(message))
