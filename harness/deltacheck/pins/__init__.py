"""Keeping the bundled pins current: what each environment pins, and what the registries serve now."""
