"""The exit statuses of `runvil run` and `runvil check` (host.md): 0 a
result; 1 the run failed (`error[Kind]: message` on stderr); 2 a usage
error; 3 a parse error. A module of their own, so that `runvil check`
imports none of `run`'s code."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_PARSE = 0, 1, 2, 3
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports it
