"""Takes 1 s over every run that reads the BREAK_ON fixture, as a library that loads its code on its
first call does (only the first run of a fresh driver gets the allowance for that)."""

import time

from tests.drivers.fake import answer, breaks_on, serve


def on_run(message):
    if breaks_on(message):
        time.sleep(1.0)
    return answer(message)


serve(on_run)
