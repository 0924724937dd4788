"""Dies before reading anything, like a driver whose library fails to import."""

import sys

sys.stderr.write("ImportError: No module named 'fancy_sdk'\n")
sys.exit(3)
