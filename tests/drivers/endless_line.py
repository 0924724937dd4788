"""Answers a run it breaks on with bytes and no newline, forever (a library printing without end)."""

import sys

from tests.drivers.fake import answer, breaks_on, serve


def endless(message):
    if not breaks_on(message):
        return answer(message)
    block = b"x" * (1 << 20)
    while True:
        sys.stdout.buffer.write(block)
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    serve(endless)
