"""Stage 3: what compiled code runs on (values, operators, tables, calls, contexts)."""
