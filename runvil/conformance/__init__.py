"""The conformance suite as package data: the cases (one folder per part of
the language reference), FORMAT.md, README.md, suite.json and adapters/.
No code: `runvil conformance` (runvil.host.conformance) reads these files."""
