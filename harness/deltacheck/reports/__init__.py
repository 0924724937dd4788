"""Reports rendered from results files only: REPORT.md, REPORT.html, JUnit, and their sections."""
