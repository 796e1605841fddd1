"""What a host may grant a state beyond the sandbox (`runvil lua --allow`):
each grant opens part of what Lua 5.4 itself has; `all` is every one, the
libraries `lua5.4` opens. Prompts never get grants."""

from __future__ import annotations

#: grant -> what it opens, for the host's help lines
GRANTS = {
    "io": "Lua's io library",
    "os": "the rest of Lua's os library (getenv, exit, remove, rename, tmpname, difftime, setlocale)",
    "debug": "Lua's debug library",
    "base": "collectgarbage, dofile, loadfile, warn, string.dump and binary chunks for load",
    "process": "io.popen and os.execute",
}


def parse_grants(text: str) -> set[str] | str:
    """`--allow`'s comma-separated list: the grants, or the word not known."""
    grants = set()
    for word in text.split(","):
        word = word.strip()
        if word == "all":
            grants.update(GRANTS)
        elif word in GRANTS:
            grants.add(word)
        else:
            return word
    return grants


def open_grants(state, grants) -> None:
    """Opens the granted libraries in a state (before `package`, so that
    package.loaded holds them)."""
    from . import debug, hostbase, io, os, string

    if "base" in grants:
        hostbase.open_lib(state)
        string.open_dump(state)
    if "io" in grants:
        io.open_lib(state, process="process" in grants)
    if "os" in grants:
        os.open_host(state)
    if "process" in grants:
        os.open_process(state)
    if "debug" in grants:
        debug.open_lib(state)
