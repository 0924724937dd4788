"""Answers a run it breaks on, then floods stdout with short unrequested lines, forever."""

import sys

from tests.drivers.fake import answer, breaks_on, serve, write


def flood(message):
    reply = answer(message)
    if not breaks_on(message):
        return reply
    write(reply)
    while True:
        sys.stdout.write("chatter\n" * 10000)
        sys.stdout.flush()


if __name__ == "__main__":
    serve(flood)
