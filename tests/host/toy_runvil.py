"""A deliberately incomplete Runvil, to try the conformance runner as an
implementer would: `toy_runvil.py prompt.md --script world.yaml --json`.

It knows one shape of prompt, a section that adds one user record, runs
the loop and returns the reply's text. Of the rest: a prompt with a
fan-out hangs (and leaves a grandchild sleeping beside it, whose process
id it appends to the file $TOY_PIDS); one with tasks crashes with a
traceback; one with tools says it has none (a wrong answer); anything else
gets a wrong result. Only the standard library and PyYAML."""

import json
import os
import re
import subprocess
import sys
import time

import yaml


def answer(prompt: str, world: dict) -> dict:
    if re.search(r"\btasks\s*\.\s*fanout\b", prompt):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        if os.environ.get("TOY_PIDS"):
            with open(os.environ["TOY_PIDS"], "a") as f:
                f.write(f"{os.getpid()} {child.pid}\n")
        time.sleep(600)
    if re.search(r"\btasks\s*\.", prompt):
        raise NotImplementedError("tasks are not implemented")  # a traceback, exit status 1
    if re.search(r"\btools\s*\.", prompt):
        return {"ok": False, "result": None, "error": {"kind": "internal", "message": "no tools here"},
                "requests": []}
    user = re.search(r"messages:user\('([^']*)'\)", prompt)
    role = re.search(r"models\.use\('([^']*)'\)", prompt)
    replies = world.get("replies") or []
    simple = (user and role and "models.loop()" in prompt and "return messages[#messages].content" in prompt
              and isinstance(replies, list) and replies and "text" in replies[0])
    if not simple:
        return {"ok": True, "result": "I only know one kind of prompt", "error": None, "requests": []}
    models = world.get("models") or {}
    name = (models.get(role.group(1)) or {}).get("model", role.group(1))
    request = {"role": role.group(1), "model": name, "origin": "chat",
               "messages": [{"role": "user", "content": user.group(1)}], "tools": []}
    return {"ok": True, "result": str(replies[0]["text"]), "error": None, "requests": [request]}


def main(argv):
    prompt_file, world_file = argv[1], argv[argv.index("--script") + 1]
    with open(prompt_file, encoding="utf-8") as f:
        prompt = f.read()
    with open(world_file, encoding="utf-8") as f:
        world = yaml.safe_load(f) or {}
    print(json.dumps({**answer(prompt, world), "case": os.environ.get("RUNVIL_CASE_ID")}))


if __name__ == "__main__":
    main(sys.argv)
