"""`python -m deltacheck.github_action`: the step action.yml runs."""

import sys

from deltacheck.github_action.main import main

sys.exit(main())
