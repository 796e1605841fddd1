"""The Pyodide that runvil pins: the playground loads it by default, the
Pyodide test tier installs it from the npm registry, and the environment
markers of the dependencies are evaluated as it would (its Python is
3.13)."""

PYODIDE_VERSION = "0.29.5"
#: the official distribution of that version
PYODIDE_URL = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
#: PEP 508 marker variables on that Pyodide
PYODIDE_ENV = {
    "sys_platform": "emscripten",
    "platform_system": "Emscripten",
    "platform_machine": "wasm32",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "python_version": "3.13",
    "python_full_version": "3.13.2",
    "extra": "",
}
