"""The GitHub Action (`action.yml` at the repository root): `python -m deltacheck.github_action`.

The action's step maps its inputs to `INPUT_*` environment variables (`inputs.py`), runs the same
command line a maintainer runs, `deltacheck run` (`run.py`), and then writes what the run found
where GitHub shows it: a job summary in Markdown (`summary.py`) and step outputs (`step_files.py`).
Its exit status is the one `deltacheck run` gives with the same adapter and expectations.
"""
