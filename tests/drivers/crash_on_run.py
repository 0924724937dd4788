"""Dies in the middle of the BREAK_ON fixture, after a last word on stderr."""

import os
import sys

from tests.drivers.fake import answer, breaks_on, serve


def on_run(message):
    if breaks_on(message):
        sys.stderr.write("Fatal Python error: the assembler exploded\n")
        sys.stderr.flush()
        os._exit(1)
    return answer(message)


serve(on_run)
