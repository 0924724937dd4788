"""Reports rendered from results files only: REPORT.md (the summary), JUnit, and their sections; the results
site (deltacheck.site) renders the same files in full."""
