"""`runvil run --workspace DIR` and the run's temporary workspace (the
specification: "`files` works in the run's workspace folder:
`--workspace DIR`, default a fresh temporary folder"), with `[packs]`
settings read from the config.

A temporary workspace must not survive its run: not its end, not Ctrl-C,
not SIGTERM or SIGHUP. Those are tested on a real `runvil run` process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runvil.host.cli import main

from ..harness.web_server import WebServer

ROOT = Path(__file__).resolve().parents[2]

PROMPT = """---
name: ws
description: Works in the workspace.
runvil: 0
uses: [files, web]
---

# Work

```lua
{body}
```

## Fetch

A task's section (every H1 block here returns, so no walk reaches it).

```lua
return tools.call('web/fetch', {{url = input}})
```
"""

WRITE = "tools.call('files/write', {path = 'notes/n.txt', content = 'note'})"


def run_main(tmp_path, body: str, *args) -> tuple[int, str, str]:
    (tmp_path / "p.md").write_text(PROMPT.format(body=body))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["run", str(tmp_path / "p.md"), *args])
    return code, out.getvalue(), err.getvalue()


def log_events(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_temporary_workspace_is_named_in_the_log_and_removed_at_the_end(tmp_path):
    log = tmp_path / "run.jsonl"
    code, out, _ = run_main(tmp_path, WRITE + "\nreturn tools.call('files/list', {})", "--log", str(log))
    assert (code, out) == (0, "notes/n.txt\n")
    started = log_events(log)[0]
    assert started["type"] == "run_started"
    ws = Path(started["workspace"])
    assert ws.name.startswith("runvil-workspace-") and not ws.exists()


def test_a_given_workspace_is_used_and_kept(tmp_path):
    ws = tmp_path / "mine" / "deeper"
    log = tmp_path / "run.jsonl"
    code, out, _ = run_main(tmp_path, WRITE + "\nreturn 'done'", "--workspace", str(ws), "--log", str(log))
    assert (code, out) == (0, "done\n")
    assert (ws / "notes" / "n.txt").read_text() == "note"
    assert log_events(log)[0]["workspace"] == str(ws.resolve())
    code, out, _ = run_main(tmp_path, "return tools.call('files/read', {path = 'notes/n.txt'})", "--workspace", str(ws))
    assert (code, out) == (0, "note\n")  # a second run finds the first one's files


def test_a_workspace_that_is_a_file_is_a_usage_error(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    code, out, err = run_main(tmp_path, "return 1", "--workspace", str(f))
    assert code == 2
    assert err.strip().endswith(f"runvil: cannot use the workspace folder {f}: not a folder")


def test_refusals_reach_lua_as_tool_errors_without_host_paths(tmp_path):
    body = ("local out = {}\n"
            "for _, p in ipairs({'../x', '/etc/passwd', 'missing'}) do\n"
            "  local ok, e = pcall(tools.call, 'files/read', {path = p}); out[#out + 1] = tostring(e)\n"
            "end\n"
            "return table.concat(out, '\\n')")
    log = tmp_path / "run.jsonl"
    code, out, err = run_main(tmp_path, body, "--log", str(log))
    assert code == 0
    assert out.splitlines() == [
        "tool files/read failed: files/read: ../x leaves the workspace ('..' is not allowed)",
        "tool files/read failed: files/read: absolute paths are refused; give a path inside the workspace",
        "tool files/read failed: files/read: missing: no such file or directory",
    ]
    ws = log_events(log)[0]["workspace"]
    assert ws not in out and ws not in err


def test_pack_settings_come_from_the_config(tmp_path):
    web = WebServer().start()
    try:
        (tmp_path / "runvil.toml").write_text(
            f'[packs.web]\nsearch_url = "{web.url("/search")}"\n[packs.files]\nwrite_quota = 10\n')
        body = ("local ok, e = pcall(tools.call, 'files/write', {path = 'a', content = string.rep('x', 11)})\n"
                "return tools.call('web/search', {query = 'paris'}) .. tostring(e)")
        code, out, _ = run_main(tmp_path, body, "--config", str(tmp_path / "runvil.toml"))
    finally:
        web.stop()
    assert code == 0
    assert "1. Paris - Wikipedia\n   https://en.wikipedia.org/wiki/Paris" in out
    assert out.endswith("tool files/write failed: files/write: writing 11 bytes to a would pass the run's "
                        "write quota of 10 bytes (10 left)\n")


# ------------------------------------------------------------------ signals

# Python's own handler for SIGINT, which a shell's background job ignores
CHILD = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from runvil.host.cli import main; sys.exit(main(sys.argv[1:]))")

BIG = ("tools.call('files/write', {path = 'big.bin', content = string.rep('x', 5000000)})\n"
       "tools.call('files/write', {path = 'ready', content = ''})\n")
WAITS = {
    "a slow fetch": BIG + "return tools.call('web/fetch', {url = input})",
    "a busy Lua loop": BIG + "local n = 0 while true do n = n + 1 end",
    "two fetches at once": BIG + "return tasks.await({tasks.spawn('Fetch', input), tasks.spawn('Fetch', input)})",
}


@pytest.fixture(scope="module")
def web():
    s = WebServer().start()
    yield s
    s.stop()


@pytest.mark.parametrize("sig, code, waiting", [
    (signal.SIGTERM, 143, "a slow fetch"),
    (signal.SIGTERM, 143, "a busy Lua loop"),
    (signal.SIGHUP, 143, "a busy Lua loop"),
    (signal.SIGINT, 130, "a slow fetch"),
    (signal.SIGTERM, 143, "two fetches at once"),
])
def test_a_signalled_run_removes_its_workspace(tmp_path, web, sig, code, waiting):
    if signal.getsignal(sig) is signal.SIG_IGN:  # under nohup: the child inherits it, and runvil keeps it
        pytest.skip(f"{signal.Signals(sig).name} is ignored in this process (nohup), as runvil leaves it")
    (tmp_path / "p.md").write_text(PROMPT.format(body=WAITS[waiting]))
    # a step budget the busy loop cannot spend before the signal, however
    # long a loaded machine takes to send it (the default is spent in ~1 s)
    (tmp_path / "runvil.toml").write_text("[limits]\nblock_steps = 100000000000\nrun_steps = 100000000000\n")
    log = tmp_path / "run.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, "run", str(tmp_path / "p.md"), "--log", str(log), "--input", web.url("/hang"),
         "--config", str(tmp_path / "runvil.toml")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        ws = None
        deadline = time.monotonic() + 60  # a loaded machine may take long to start the run
        while time.monotonic() < deadline and proc.poll() is None:
            if ws is None and log.exists() and log.read_text().strip():
                ws = Path(log_events(log)[0]["workspace"])
            if ws is not None and (ws / "ready").exists():
                break
            time.sleep(0.02)
        assert ws is not None and (ws / "big.bin").stat().st_size == 5_000_000, proc.poll()
        time.sleep(0.2)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code, err
    assert err.strip().splitlines()[-1] == ("runvil: interrupted" if sig == signal.SIGINT else "runvil: terminated")
    assert "internal error" not in err
    assert not ws.exists()
