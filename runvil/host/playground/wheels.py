"""Wheels for Pyodide: runvil's own and one per dependency it needs there,
written from what is installed here, so that `runvil playground` works
offline and the Pyodide test tier loads exactly what CPython runs.

Which dependencies: runvil's `Requires-Dist`, then theirs, each kept when
its environment marker holds on the pinned Pyodide (`sys_platform ==
"emscripten"`, its Python version, no extra). A dependency's wheel holds
its installed files minus the native ones (`.so`, `.pyd`, `.dylib`,
`.dll`): the C extensions runvil needs off Pyodide carry markers, and the
optional accelerators of the others (PyYAML's libyaml binding) fall back
to their pure-Python code. Files installed outside site-packages (console
scripts) are left out.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from importlib import metadata
from pathlib import Path

from ...version import __version__

#: native code a browser cannot load
NATIVE_SUFFIXES = (".so", ".pyd", ".dylib", ".dll")
_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


class BundleError(Exception):
    """A dependency that cannot be gathered: a usage error, said plainly."""


# ------------------------------------------------------------------ markers


#: a marker's tokens, by group: 0 parenthesis, 1 string, 2 operator, 3 and/or, 4 variable
_TOKEN = re.compile(r"""\s*(?:(\(|\))|('[^']*'|"[^"]*")|(===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b)"""
                    r"""|(and\b|or\b)|([A-Za-z_][A-Za-z0-9_.]*))""")


def marker_holds(marker: str, env: dict) -> bool:
    """Evaluates a PEP 508 environment marker (`python_version < "3.13"
    and extra == 'cli'`) in `env`; a name `env` lacks is the empty string."""
    tokens = []
    pos = 0
    while pos < len(marker):
        if marker[pos:].strip() == "":
            break
        m = _TOKEN.match(marker, pos)
        if m is None:
            raise BundleError(f"cannot read the environment marker {marker!r}")
        tokens.append(next((i, t) for i, t in enumerate(m.groups()) if t is not None))
        pos = m.end()
    value, rest = _or(tokens, env)
    if rest:
        raise BundleError(f"cannot read the environment marker {marker!r}")
    return value


def _or(tokens, env):
    value, tokens = _and(tokens, env)
    while tokens and tokens[0] == (3, "or"):
        right, tokens = _and(tokens[1:], env)
        value = value or right
    return value, tokens


def _and(tokens, env):
    value, tokens = _atom(tokens, env)
    while tokens and tokens[0] == (3, "and"):
        right, tokens = _atom(tokens[1:], env)
        value = value and right
    return value, tokens


def _atom(tokens, env):
    if tokens and tokens[0] == (0, "("):
        value, tokens = _or(tokens[1:], env)
        if not tokens or tokens[0] != (0, ")"):
            raise BundleError("an environment marker has an unclosed parenthesis")
        return value, tokens[1:]
    if len(tokens) < 3 or tokens[1][0] != 2:
        raise BundleError("an environment marker is not a comparison")
    left, op, right = (_operand(tokens[0], env), " ".join(tokens[1][1].split()), _operand(tokens[2], env))
    return _compare(left, op, right), tokens[3:]


def _operand(token, env) -> str:
    kind, text = token
    if kind == 1:
        return text[1:-1]
    if kind == 4:
        return env.get(text, "")
    raise BundleError(f"an environment marker has {text!r} where a value belongs")


def _compare(left: str, op: str, right: str) -> bool:
    if op == "in":
        return left in right
    if op == "not in":
        return left not in right
    a, b = _version(left), _version(right)
    if a is None or b is None or op in ("===", "~="):
        a, b = left, right
    return {"==": a == b, "===": a == b, "~=": a == b, "!=": a != b,
            "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _version(text: str):
    return tuple(int(p) for p in text.split(".")) if re.fullmatch(r"\d+(\.\d+)*", text) else None


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement(spec: str, env: dict) -> str | None:
    """The distribution a `Requires-Dist` line names, or None when its
    marker does not hold in `env`."""
    head, _, marker = spec.partition(";")
    if marker.strip() and not marker_holds(marker, env):
        return None
    m = _NAME.match(head)
    return canonical(m.group(1)) if m else None


# ------------------------------------------------------------------ gathering


def needed(env: dict, root: str = "runvil") -> list[metadata.Distribution]:
    """The installed distributions `root` needs in `env`, transitively, in
    the order found (root's own not included)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [root]
    while todo:
        name = todo.pop(0)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise BundleError(f"the dependency {name} is not installed here (pip install {name})") from None
        for spec in dist.requires or ():
            dep = requirement(spec, env)
            if dep is not None and dep not in seen and dep != canonical(root):
                try:
                    seen[dep] = metadata.distribution(dep)
                except metadata.PackageNotFoundError:
                    raise BundleError(f"the dependency {dep} is not installed here (pip install {dep})") from None
                todo.append(dep)
    return list(seen.values())


def pure(path: str) -> bool:
    """A file that belongs in a wheel for the browser."""
    return not (path.startswith("..") or path.endswith(NATIVE_SUFFIXES) or path.endswith(".pyc")
                or "__pycache__" in path.split("/") or path.endswith((".dist-info/RECORD", ".dist-info/INSTALLER",
                                                                       ".dist-info/direct_url.json",
                                                                       ".dist-info/REQUESTED")))


def wheel_name(name: str, version: str) -> str:
    return f"{re.sub(r'[-_.]+', '_', name)}-{version}-py3-none-any.whl"


def write_wheel(out: Path, name: str, version: str, files: dict[str, bytes], dist_info: dict[str, bytes]) -> Path:
    """A py3-none-any wheel of `files` (archive path -> bytes), with its
    `.dist-info` (file name -> bytes; WHEEL and RECORD are written here).
    Entries are sorted and dated 1980, so the same files give the same
    bytes."""
    info = f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"
    entries = dict(sorted(files.items()))
    for fname, data in sorted(dist_info.items()):
        if fname not in ("WHEEL", "RECORD"):
            entries[f"{info}/{fname}"] = data
    entries[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: runvil playground\n"
                                b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = []
    for path, data in entries.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    entries[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    target = out / wheel_name(name, version)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in entries.items():
            z.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    return target


def dependency_wheel(dist: metadata.Distribution, out: Path) -> Path:
    """An installed dependency as a pure wheel: its files minus native ones."""
    files, info = {}, {}
    for f in dist.files or ():
        path = str(f).replace("\\", "/")
        if not pure(path):
            continue
        data = Path(dist.locate_file(f)).read_bytes()
        if ".dist-info/" in path:
            info[path.split("/", 1)[1]] = data
        else:
            files[path] = data
    if not files:
        raise BundleError(f"the dependency {dist.metadata['Name']} has no files to put in a wheel")
    return write_wheel(out, dist.metadata["Name"], dist.version, files, info)


def runvil_wheel(out: Path) -> Path:
    """runvil's own wheel, from its package folder (an editable install
    included): every file but compiled bytecode, and its metadata."""
    package = Path(__file__).resolve().parents[2]  # runvil/host/playground/wheels.py
    files = {}
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package.parent).as_posix()
        if path.is_file() and pure(rel):
            files[rel] = path.read_bytes()
    dist = metadata.distribution("runvil")
    info = {"METADATA": (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").encode()}
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        info["entry_points.txt"] = entry_points.encode()
    return write_wheel(out, "runvil", __version__, files, info)


def write_wheels(out: Path, env: dict) -> list[Path]:
    """runvil's wheel, then one per dependency it needs in `env`."""
    out.mkdir(parents=True, exist_ok=True)
    return [runvil_wheel(out), *(dependency_wheel(d, out) for d in needed(env))]
