# The README's two commands: `make report` (the main job) and `make test`.
# Both create .venv on first use; nothing else needs to be installed by hand.

PYTHON ?= python3
VENV := .venv
PYTHON_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
# The stamp names the Python too: a .venv made by another Python (or an unsupported one) is rebuilt.
STAMP := $(VENV)/.installed-py$(PYTHON_VERSION)-$(shell cat pyproject.toml setup.py constraints.txt | sha1sum | cut -c1-12)

.PHONY: report test lint bench clean

$(STAMP): pyproject.toml setup.py constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "deltacheck needs Python 3.11 or newer; $(PYTHON) is $(PYTHON_VERSION). Run: make PYTHON=python3.11 test" >&2; exit 2; }
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# REPORT.md (the summary) from a full run, then the results site it links to (site/index.html).
report: $(STAMP)
	$(VENV)/bin/deltacheck score
	$(VENV)/bin/deltacheck site

test: $(STAMP)
	$(VENV)/bin/ruff check harness adapters
	$(VENV)/bin/ruff format --check harness
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

lint: $(STAMP)
	$(VENV)/bin/deltacheck lint

bench: $(STAMP)
	$(VENV)/bin/python bench/harness_overhead.py

clean:
	rm -rf $(VENV) .venvs results site
