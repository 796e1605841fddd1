"""runvil benchmarks: `python -m benchmarks --help` (see benchmarks/README.md)."""
