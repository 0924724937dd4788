"""A folder of the user's own named like a generic package: it must not shadow anything of deltacheck."""
