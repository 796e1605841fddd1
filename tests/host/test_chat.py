"""`runvil chat` (docs/reference/commands.md): one turn per input line, each a loop under the
summarizing compactor; a failed turn is reported and taken back."""

from __future__ import annotations

import io
import json

import yaml

from runvil.host.cli import main


def chat(tmp_path, monkeypatch, lines, world, *extra):
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump(world), encoding="utf-8")
    log = tmp_path / "log.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["chat", "--script", str(path), "--log", str(log), *extra])
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return code, events


def test_each_line_is_a_turn_and_each_reply_is_printed(tmp_path, monkeypatch, capsys):
    code, events = chat(tmp_path, monkeypatch, ["hello", "", "how are you"],
                        {"replies": [{"text": "hi there"}, {"text": "fine"}]}, "--system", "Be brief.")
    assert code == 0
    assert capsys.readouterr().out == "hi there\nfine\n"
    sent = [e for e in events if e["type"] == "chat"]
    assert sent[0]["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello"}]
    assert sent[1]["messages"] == [{"role": "assistant", "content": "hi there"},
                                   {"role": "user", "content": "how are you"}]


def test_a_failed_turn_is_reported_and_taken_back(tmp_path, monkeypatch, capsys):
    world = {"replies": [{"text": "hi"}, {"error": {"status": 500, "body": "down"}}, {"text": "back"}]}
    code, events = chat(tmp_path, monkeypatch, ["hello", "broken", "again"], world)
    out = capsys.readouterr()
    assert code == 1  # piped: a script learns that a turn got no reply; the later turns still ran
    assert out.out == "hi\nback\n"
    assert "error: the model backend rejected the request (status 500)" in out.err
    last = [e for e in events if e["type"] == "chat"][-1]
    # the failed turn is gone: the third request adds only the new turn
    assert (last["start"], last["messages"]) == (3, [{"role": "user", "content": "again"}])


def test_the_chat_says_its_model_and_answers_help_itself(tmp_path, monkeypatch, capsys):
    world = {"models": {"chat": {"model": "tiny", "context": 4096}}, "replies": [{"text": "hi"}]}
    code, events = chat(tmp_path, monkeypatch, ["/help", "/model", "hello", "/exit", "never sent"], world)
    out = capsys.readouterr()
    assert (code, out.out) == (0, "hi\n")
    err = out.err.splitlines()
    assert err[0] == "runvil chat: talking to tiny (the scripted world), context 4096"
    assert err[1:5] == ["/help    this list", "/model   which model the chat talks to",
                        "/exit    end the chat (as Ctrl-D)", "any other line is a message to the model"]
    assert err[5] == "talking to tiny (the scripted world), context 4096"
    sent = [e for e in events if e["type"] == "chat"]
    assert [m["content"] for e in sent for m in e["messages"]] == ["hello"]  # no command reached the model


def test_the_echo_model_is_named_as_such(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n"))
    assert main(["chat"]) == 0
    out = capsys.readouterr()
    assert out.out == "echo: hello\n"
    assert "runvil chat: talking to echo (offline: its reply is your message), context " in out.err


def test_a_long_chat_is_summarized_instead_of_failing(tmp_path, monkeypatch, capsys):
    world = {"models": {"chat": {"context": 100, "max_tokens": 10}},
             "replies": [{"text": "one"}, {"text": "two"}, {"text": "the summary"}, {"text": "three"}]}
    code, events = chat(tmp_path, monkeypatch, ["a" * 100, "b" * 100, "c" * 100], world)
    assert code == 0
    assert capsys.readouterr().out == "one\ntwo\nthree\n"
    infer = [e for e in events if e["type"] == "model_turn_completed" and e["origin"] == "infer"]
    assert len(infer) == 1
    last = [e for e in events if e["type"] == "chat"][-1]
    # the summary record merges with the user turn after it, as same-role records do
    assert last["messages"][0] == {"role": "user", "content": "Summary of the earlier conversation: the summary\n\n"
                                   + "b" * 100}


def test_a_provider_retry_in_a_chat_is_a_model_retry_event(tmp_path, monkeypatch, capsys):
    """A chat talks to real providers as `runvil run` does
    (docs/reference/configuration.md): a 503 is retried, and the retry is in
    the run log."""
    from ..harness.chat_server import ChatServer, error, text_stream

    server = ChatServer().start()
    try:
        server.reply(error(503, {"error": {"message": "overloaded"}}, headers={"retry-after-ms": "10"}),
                     text_stream("bonjour"))
        config = tmp_path / "runvil.toml"
        config.write_text(
            f'default_model = "local/m"\n[providers.local]\nbase_url = "{server.base_url}"\n'
            '[models."local/m"]\nprovider = "local"\nname = "m-1"\ncontext = 8192\n', encoding="utf-8")
        log = tmp_path / "log.jsonl"
        monkeypatch.setattr("sys.stdin", io.StringIO("hello\n"))
        code = main(["chat", "--config", str(config), "--log", str(log)])
    finally:
        server.stop()
    assert code == 0
    assert capsys.readouterr().out == "bonjour\n"
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    (retry,) = [e for e in events if e["type"] == "model_retry"]
    assert (retry["attempt"], retry["status"], retry["wait"]) == (1, 503, 0.01)


def test_an_unreachable_provider_is_named_under_the_failed_turn(tmp_path, monkeypatch, capsys):
    """The help line `runvil run` gives under the error, under the turn's
    error too, once."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    (tmp_path / "runvil.toml").write_text(f'[providers.p]\nbase_url = "{url}"\nmax_retries = 0\n\n'
                                          '[models."p/m"]\nprovider = "p"\ncontext = 8192\n', encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n/model\n"))  # the line /model answers has no help
    code = main(["chat", "--config", str(tmp_path / "runvil.toml"), "-m", "p/m", "--no-log"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines()[1:] == [
        "error: the model backend could not be reached: connection refused",
        f"help: provider 'p' is at {url}: is its server running there? (its base_url in the config)",
        "talking to p/m, context 8192"]
