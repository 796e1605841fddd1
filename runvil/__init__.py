"""runvil: prompt programs (Markdown + Lua) run by a pure-Python engine."""

__version__ = "0.1.0"
