"""`python -m deltacheck.driver MODULE:CLASS`: serve an in-process adapter over the driver protocol."""

import sys

from deltacheck.driver.python import end_process, main

if __name__ == "__main__":
    end_process(main(sys.argv[1:]))
