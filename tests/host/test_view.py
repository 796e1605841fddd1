"""`runvil view` and `runvil run --view` (docs/reference/commands.md "runvil view"): one
self-contained page showing every message, tool call, result, usage figure,
precheck figure, compaction, notice and the outcome; hostile text escaped;
drawn by a real browser when one is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from runvil.host.cli import main
from runvil.host.view import default_output

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


def logged_run(tmp_path, prompt: Path, world: Path | None = None) -> Path:
    log = tmp_path / (prompt.stem + ".jsonl")
    args = ["run", str(prompt), "--log", str(log)] + (["--script", str(world)] if world else [])
    main(args)
    return log


def page(tmp_path, log: Path) -> str:
    out = tmp_path / "page.html"
    assert main(["view", str(log), "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def assert_self_contained(html: str) -> None:
    """Nothing is loaded from outside the page, and nothing needs a script."""
    for needle in ("http://", "https://", "<script", "<link", "<img", "<iframe", " src=", "href=", "@import", "url("):
        assert needle not in html.lower(), needle


def test_a_tool_run_shows_every_message_the_arguments_the_results_and_the_usage(tmp_path):
    html = page(tmp_path, logged_run(tmp_path, TUTORIAL / "tools.md", TUTORIAL / "tools.yaml"))
    assert_self_contained(html)
    assert "What are the capitals of Japan and Peru?" in html  # the user message, in both rounds
    assert html.count("What are the capitals of Japan and Peru?") == 2
    assert "&quot;country&quot;: &quot;Japan&quot;" in html and "&quot;country&quot;: &quot;Peru&quot;" in html
    assert re.search(r"result: <pre>Tokyo</pre>", html) and re.search(r"result: <pre>Lima</pre>", html)
    assert "The capital of Japan is Tokyo, and the capital of Peru is Lima." in html
    for figure in ("prompt_tokens <b>61</b>", "completion_tokens <b>30</b>", "prompt_tokens <b>112</b>",
                   "completion_tokens <b>16</b>", "<b>173</b> prompt tokens", "<b>46</b> completion tokens"):
        assert figure in html, figure
    assert "finish reason <b>&quot;tool_calls&quot;</b>" in html and "finish reason <b>&quot;stop&quot;</b>" in html
    assert "precheck: estimate" in html and "of window <b>8192</b>" in html  # the world's default window
    assert "<h2>result</h2>" in html


def test_hostile_text_is_escaped(tmp_path):
    prompt = tmp_path / "hostile.md"
    prompt.write_text("""---
name: hostile
description: d
runvil: 0
models:
  writer: {}
---

# H

## Chat

```lua
models.use('writer')
messages:system('</style><script>alert(1)</script>')
messages:user('"><img src=x onerror=alert(2)> & <b>')
models.loop()
print('<iframe src="https://example.org">')
return messages[#messages].content
```
""", encoding="utf-8")
    world = tmp_path / "w.yaml"
    world.write_text("replies:\n  - text: '</pre><script>alert(3)</script>'\n", encoding="utf-8")
    html = page(tmp_path, logged_run(tmp_path, prompt, world))
    assert "<script" not in html and "<img" not in html and "<iframe" not in html
    assert "&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt; &amp; &lt;b&gt;" in html
    assert "&lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;" in html
    assert "&lt;iframe src=&quot;https://example.org&quot;&gt;" in html  # text, never a frame


def test_a_compaction_is_drawn_with_the_list_before_and_after(tmp_path):
    html = page(tmp_path, logged_run(tmp_path, TUTORIAL / "compactor.md", TUTORIAL / "compactor.yaml"))
    assert "the precheck refused a chat round: estimate <b>203</b> against window <b>200</b>" in html
    assert "compaction: the list before and after" in html
    assert "<h3>before (6)</h3>" in html and "<h3>after (4)</h3>" in html
    assert "precheck: estimate <b>135</b> + reserve <b>40</b> of window <b>200</b>" in html


def test_task_notices_prints_and_the_error_with_its_position(tmp_path):
    prompt = tmp_path / "notice.md"
    prompt.write_text("""---
name: notice
description: d
runvil: 0
models:
  writer: {}
---

# N

## Parent

```lua
models.use('writer')
tasks.await({ tasks.spawn('Child', 'x') })
messages:user('go')
models.loop()
print('after the loop')
error('boom')
```

## Child

```lua
return 'child done'
```
""", encoding="utf-8")
    html = page(tmp_path, logged_run(tmp_path, prompt))
    assert "Task id=0.0 (## Child) completed: child done" in html
    assert "task notice" in html and "after the loop" in html
    assert "<h2>## Child <span class=\"exec\">execution 0.0</span></h2>" in html
    assert "error[Lua]" in html and "section `Parent` prologue:19: boom" in html
    assert "the section failed" in html


def test_run_view_writes_the_page_at_the_end_of_the_run(tmp_path, capsys):
    out = tmp_path / "run.html"
    code = main(["run", str(TUTORIAL / "tools.md"), "--script", str(TUTORIAL / "tools.yaml"), "--view", str(out)])
    assert code == 0
    assert capsys.readouterr().out == "The capital of Japan is Tokyo, and the capital of Peru is Lima.\n"
    html = out.read_text(encoding="utf-8")
    assert "&quot;country&quot;: &quot;Peru&quot;" in html and "<h2>result</h2>" in html


def test_the_default_page_is_the_logs_name_with_html(tmp_path, capsys):
    log = logged_run(tmp_path, TUTORIAL / "first-prompt.md", TUTORIAL / "first-prompt.yaml")
    capsys.readouterr()
    assert main(["view", str(log)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'first-prompt.html'}\n"
    assert default_output("runs/a.jsonl") == "runs/a.html" and default_output("log") == "log.html"


def test_an_unreadable_or_broken_log_is_a_usage_error(tmp_path, capsys):
    assert main(["view", str(tmp_path / "absent.jsonl")]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "run_started"}\nnot json\n', encoding="utf-8")
    assert main(["view", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and f"{bad}:2: not a JSON line of a run log" in err


def test_a_log_cut_short_still_renders(tmp_path):
    log = logged_run(tmp_path, TUTORIAL / "tools.md", TUTORIAL / "tools.yaml")
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:6]) + "\n", encoding="utf-8")
    assert "the log ends before the run did" in page(tmp_path, log)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_a_real_browser_draws_the_page(tmp_path):
    html_path = tmp_path / "tools.html"
    html_path.write_text(page(tmp_path, logged_run(tmp_path, TUTORIAL / "tools.md", TUTORIAL / "tools.yaml")),
                         encoding="utf-8")
    shot = tmp_path / "tools.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                    f"--screenshot={shot}", "--window-size=1200,2000", html_path.as_uri()],
                   capture_output=True, timeout=120, check=False)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 2000)
    assert len(data) > 20_000  # a drawn page, not a blank one


def test_the_log_carries_what_the_viewer_draws(tmp_path):
    """The Engine's additions for the viewer: the precheck's figures on each
    `chat` event, what a refused request added on its `model_turn_failed`,
    and the result on `run_ended`."""
    import json

    log = logged_run(tmp_path, TUTORIAL / "compactor.md", TUTORIAL / "compactor.yaml")
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    chats = [e for e in events if e["type"] == "chat"]
    assert [c["precheck"] for c in chats] == [{"tokens": 64, "window": 200, "reserve": 40},
                                             {"tokens": 130, "window": 200, "reserve": 40},
                                             {"tokens": 135, "window": 200, "reserve": 40}]
    (refusal,) = [e for e in events if e["type"] == "model_turn_failed"]
    assert refusal["reason"] == "precheck" and (refusal["tokens"], refusal["window"]) == (203, 200)
    assert refusal["start"] == 5 and [m["role"] for m in refusal["messages"]] == ["assistant", "user"]
    assert refusal["messages"][1]["content"].startswith("What is a function?")
    assert events[-1]["type"] == "run_ended" and events[-1]["result"].startswith("dropped 1 exchange(s)")


def test_any_log_draws_without_a_crash():
    """A hand-edited or foreign log draws: every event type with fields of
    any JSON type, in any order."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from runvil.engine.events import EVENT_TYPES
    from runvil.host.view import render

    json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                               lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                               max_leaves=8)
    fields = st.sampled_from(["start", "messages", "tool_calls", "usage", "precheck", "error", "text", "round", "id",
                              "section", "execution_id", "ok", "result", "tokens", "window", "finish_reason", "reason"])
    event = st.builds(lambda t, extra: {"type": t, **extra}, st.sampled_from(EVENT_TYPES),
                      st.dictionaries(fields, json_values, max_size=5))

    @settings(max_examples=150, deadline=None)
    @given(st.lists(event, max_size=12))
    def draws(events):
        html = render(events)
        assert html.startswith("<!DOCTYPE html>") and "<script" not in html

    draws()


def test_a_bound_tool_thinking_and_an_infer_round_with_debug(tmp_path):
    prompt = tmp_path / "pk.md"
    prompt.write_text("""---
name: pk
description: d
runvil: 0
models:
  writer: {}
uses: [web]
---

# P

## Ask

```lua
tools.offer('web/search')
models.use('writer')
messages:user('How tall is Tour Montparnasse?')
models.loop()
return models.infer('Summarize: ' .. messages[#messages].content)
```
""", encoding="utf-8")
    world = tmp_path / "pk.yaml"
    world.write_text("""replies:
  - tool_calls:
      - {id: call_1, name: web_search, arguments: {query: "Tour Montparnasse height"}}
    usage: {prompt_tokens: 40, completion_tokens: 9, reasoning_tokens: 3}
    reasoning: "I should search."
  - text: "It is 210 m tall."
  - text: "210 m."
tools:
  web/search:
    - result: "Tour Montparnasse, 210 m"
""", encoding="utf-8")
    out = tmp_path / "pk.html"
    assert main(["run", str(prompt), "--script", str(world), "--debug", "--view", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert_self_contained(html)
    assert "result: <pre>Tour Montparnasse, 210 m</pre>" in html
    assert "&quot;query&quot;: &quot;Tour Montparnasse height&quot;" in html
    assert "I should search." in html and "reasoning_tokens <b>3</b>" in html
    assert "round 3 · infer" in html and "Summarize: It is 210 m tall." in html  # the infer prompt, with --debug
    assert "tools offered: web_search" in html


def test_a_summarizing_compactor_of_runvil_chat(tmp_path, monkeypatch):
    """The chat's compactor asks an infer round for a summary: the page
    still draws the refused list before and the summarized list after."""
    import io
    import sys

    world = tmp_path / "w.yaml"
    world.write_text("models:\n  chat: {context: 100, max_tokens: 10}\nreplies:\n  - text: one\n  - text: two\n"
                     "  - text: the summary\n  - text: three\n", encoding="utf-8")
    log = tmp_path / "chat.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO("a" * 100 + "\n" + "b" * 100 + "\n" + "c" * 100 + "\n"))
    assert main(["chat", "--script", str(world), "--log", str(log)]) == 0
    html = page(tmp_path, log)
    assert "round 3 · infer" in html
    assert "compaction: the list before and after" in html and "<h3>before (5)</h3>" in html
    assert "<h3>after (3)</h3>" in html and "Summary of the earlier conversation: the summary" in html


def test_a_failed_round_names_its_status_once(tmp_path):
    """Issue 25: a provider's rejection already says `(status 400)`; the
    round's header does not say it again. A failure whose message does not
    name it keeps the status beside it."""
    from runvil.host.view import render

    def failed(message):
        events = [{"type": "run_started", "execution_id": "0", "section": None, "prompt": "p"},
                  {"type": "section_started", "execution_id": "0", "section": "A"},
                  {"type": "model_turn_failed", "execution_id": "0", "section": "A", "round": 1, "origin": "chat",
                   "model": "m", "status": 400, "message": message}]
        return render(events, "p")

    page_text = failed("the model backend rejected the request (status 400): too long")
    assert "the round failed: <pre>the model backend rejected the request (status 400): too long</pre>" in page_text
    assert page_text.count("(status 400)") == 1
    assert "the round failed (status 400): <pre>upstream says no</pre>" in failed("upstream says no")
