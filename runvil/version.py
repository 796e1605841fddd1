"""runvil's version, beneath every layer: the root package shows it, and
the caches key their entries by it (runvil/lua/cache/disk.py)."""

__version__ = "0.1.0"
