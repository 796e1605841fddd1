"""Files a command writes must not be files it reads:
`runvil run --log p.md` would replace the prompt with its run log, and
`runvil view run.html` the log with its page. Each output is compared with
each input, and with the other outputs, by what the paths lead to: the
same resolved path, or the same file (device and inode) through a link or
a second name. A clash is a usage error, named before anything is written.
"""

from __future__ import annotations

import os

#: the usage error for an output that would write over an input or another output
WOULD_OVERWRITE = "{option} {path} would write over {what}; give another file"


def clash(outputs: list[tuple[str, str | None]], inputs: list[tuple[str, str | None]]) -> str | None:
    """The message for the first output that names an input or an earlier
    output, else None. `outputs` are (option, path), `inputs` (what, path),
    `what` as a message says it ("the prompt p.md"); None paths are unused."""
    seen = [(what, path) for what, path in inputs if path]
    for option, path in outputs:
        if not path:
            continue
        for what, other in seen:
            if same_file(path, other):
                return WOULD_OVERWRITE.format(option=option, path=path, what=what)
        seen.append((f"the file {option} writes", path))
    return None


def same_file(a: str, b: str) -> bool:
    """The two paths lead to one file (or one place, for a file not made yet)."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return os.path.samestat(os.stat(a), os.stat(b))
    except (OSError, ValueError):  # a path that does not exist (yet) or holds a NUL
        return False
