"""Lua patterns: the matcher, its items, and the translation to Python's re."""
