"""runvil in notebooks: the `%%runvil` cell magic, in a real IPython kernel
(jupyter_client starts one), and its core `run_cell` without IPython."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from runvil.host.notebook import CellError, run_cell

ROOT = Path(__file__).resolve().parents[2]
HELLO = (ROOT / "examples" / "hello.md").read_text(encoding="utf-8")

ECHO_INPUT = textwrap.dedent("""\
    ---
    name: echo-input
    description: Says its input.
    runvil: 0
    models:
      writer: {}
    ---

    # Echo input

    ```lua
    models.default('writer')
    ```

    ## Say

    ```lua
    messages:user(input)
    models.loop()
    return messages[#messages].content
    ```
    """)

WORLD = textwrap.dedent("""\
    input: from the world
    models:
      writer: {model: scripted, context: 8192}
    replies:
      - text: scripted reply
    """)


def test_a_cell_runs_on_the_echo_model_and_draws_its_run():
    ran = run_cell("", HELLO)
    assert ran.ok and ran.result == "echo: hello" and "<html" in ran.page.lower()


def test_input_from_a_variable_or_as_text():
    assert run_cell("--input question", ECHO_INPUT, {"question": "why?"}).result == "echo: why?"
    assert run_cell("--input 'plain words'", ECHO_INPUT).result == "echo: plain words"


def test_world_from_a_variable_of_yaml_text_or_a_file(tmp_path):
    assert run_cell("--world w", ECHO_INPUT, {"w": WORLD}).result == "scripted reply"
    (tmp_path / "world.yaml").write_text(WORLD, encoding="utf-8")
    assert run_cell(f"--world {tmp_path / 'world.yaml'}", ECHO_INPUT).result == "scripted reply"


def test_a_failed_run_and_a_parse_error_are_said():
    ran = run_cell("--input x", ECHO_INPUT.replace("models.loop()", "error('boom')"))
    assert not ran.ok and ran.error.startswith("error[") and "boom" in ran.error
    ran = run_cell("", "no frontmatter here")
    assert not ran.ok and ran.error.startswith("error[Parse]:")


def test_a_bad_line_is_a_cell_error():
    with pytest.raises(CellError, match="unrecognized arguments: --wrld"):
        run_cell("--wrld x", HELLO)
    with pytest.raises(CellError, match="holds a int"):
        run_cell("--world w", HELLO, {"w": 3})


def test_the_magic_in_a_real_ipython_kernel(tmp_path):
    """`%load_ext runvil`, then a `%%runvil` cell: the result is the cell's
    value, the viewer's page is shown as HTML, an error goes to stderr."""
    jupyter_client = pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)

        def execute(code: str) -> list[dict]:
            msg_id = kc.execute(code)
            out = []
            while True:
                msg = kc.get_iopub_msg(timeout=60)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    return out
                out.append(msg)

        assert not [m for m in execute("%load_ext runvil") if m["msg_type"] == "error"]
        execute("q = 'from a variable'")
        msgs = execute("%%runvil --input q\n" + ECHO_INPUT)
        results = [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]
        assert results == ["'echo: from a variable'"]
        pages = [m["content"]["data"]["text/html"] for m in msgs if m["msg_type"] == "display_data"]
        assert len(pages) == 1 and pages[0].startswith("<iframe srcdoc=")
        msgs = execute("%%runvil --input x\n" + ECHO_INPUT.replace("models.loop()", "error('boom')"))
        stderr = "".join(m["content"]["text"] for m in msgs if m["msg_type"] == "stream"
                         and m["content"]["name"] == "stderr")
        assert "boom" in stderr and not [m for m in msgs if m["msg_type"] == "execute_result"]
        kc.stop_channels()
    finally:
        km.shutdown_kernel(now=True)
