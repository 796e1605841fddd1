"""Stage 2: a syntax tree to Python code (resolve, kinds, folding, step weights, code generation)."""
