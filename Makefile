# The README's two commands: `make report` (the main job) and `make test`.
# Both create .venv on first use; nothing else needs to be installed by hand.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: report test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

report: $(STAMP)
	$(VENV)/bin/deltacheck score

test: $(STAMP)
	$(VENV)/bin/pytest

lint: $(STAMP)
	$(VENV)/bin/deltacheck lint

bench: $(STAMP)
	$(VENV)/bin/python bench/harness_overhead.py

clean:
	rm -rf $(VENV) .venvs results
