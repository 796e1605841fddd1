"""runvil.host: the command line, config, live output and run log."""
