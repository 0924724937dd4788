"""Never answers the BREAK_ON fixture."""

import time

from tests.drivers.fake import answer, breaks_on, serve


def on_run(message):
    if breaks_on(message):
        time.sleep(3600)
    return answer(message)


serve(on_run)
