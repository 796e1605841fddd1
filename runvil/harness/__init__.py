"""runvil.harness: performs a run's effects — model rounds through
providers (scripted, echo, OpenAI-compatible), bound tools through Packs.
It knows nothing of Lua."""
