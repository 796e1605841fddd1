"""`python -m tests.harness.llama_server ARGS...` runs llama-cpp-python's
OpenAI-compatible server (`python -m llama_cpp.server ARGS...`) with ggml's
weight repacking off. A CPU that reports AMX inside a container or sandbox
whose kernel does not grant the AMX tile state kills the server with SIGILL
on the first reply when weights are repacked for AMX; plain weights run on
AVX and give the same replies."""

from __future__ import annotations

import runpy

import llama_cpp.llama_cpp as llama_c

_default_params = llama_c.llama_model_default_params


def _plain_weights():
    params = _default_params()
    params.use_extra_bufts = False
    return params


if __name__ == "__main__":
    llama_c.llama_model_default_params = _plain_weights
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
