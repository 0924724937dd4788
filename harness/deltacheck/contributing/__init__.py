"""For contributors and bug reporters: reading captured streams, redacting them, drafting fixtures, explain and repro."""
