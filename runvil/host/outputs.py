"""Files a command writes must not be files it reads: `runvil run --log
p.md` would replace the prompt with its run log, `runvil view run.html`
the log with its page, `runvil batch p.md rows.txt --jsonl rows.txt` the
rows with their results. Every command that writes a file names its
outputs and its inputs here, before it opens anything for writing; each
output is compared with each input, and with the other outputs, by what
the paths lead to: the same resolved path (through links), or the same
file (device and inode) through a hard link or a second name. A clash is
a usage error, named before anything is written.
"""

from __future__ import annotations

import os

#: the usage error for an output that would write over an input or another output
WOULD_OVERWRITE = "{option} {path} would write over {what}; give another file"


def clash(outputs: list[tuple], inputs: list[tuple[str, str | None]]) -> str | None:
    """The message for the first output that names an input or an earlier
    output, else None. `outputs` are (option, path) or (option, path, what
    it is called as an earlier output), `inputs` (what, path), `what` as a
    message says it ("the prompt p.md"); None paths are unused."""
    seen = [(what, path) for what, path in inputs if path]
    for option, path, *called in outputs:
        if not path:
            continue
        for what, other in seen:
            if same_file(path, other):
                return WOULD_OVERWRITE.format(option=option, path=path, what=what)
        seen.append((called[0] if called else f"the file {option} writes", path))
    return None


def config_input(cli_path: str | None) -> tuple[str, str | None]:
    """The config file a command reads (`--config`, RUNVIL_CONFIG or
    ./runvil.toml), as an input of `clash`."""
    from .config import config_path

    path = config_path(cli_path)
    return (f"the config {path}", None if path is None else str(path))


def same_file(a: str, b: str) -> bool:
    """The two paths lead to one file (or one place, for a file not made yet)."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return os.path.samestat(os.stat(a), os.stat(b))
    except (OSError, ValueError):  # a path that does not exist (yet) or holds a NUL
        return False


def inside(path: str, folder: str) -> bool:
    """`path` is `folder` or lies inside it, through links."""
    try:
        p, f = os.path.realpath(path), os.path.realpath(folder)
    except (OSError, ValueError):
        return False
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)
