"""Fake drivers for tests/test_protocol.py; each breaks at exactly one protocol step.

Run as `python -m tests.drivers.<name>` from the repository root. A fake misbehaves on the fixture
named by the BREAK_ON environment variable (`*`: on every fixture) and answers every other request
correctly, so a test can check that the next fixture still runs.
"""
