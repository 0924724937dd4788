"""Keeps running after `stop`."""

import time

from tests.drivers.fake import serve

serve()
time.sleep(3600)
