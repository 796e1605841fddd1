"""Shared test setup: a bounded hypothesis profile for CI."""

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from .harness.chat_server import ChatServer

# CI: the same examples every run, and no example database (a failure found
# once must not follow a checkout around; .hypothesis/ is never committed)
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
# dev (the README's quick suite): as many examples as CI, drawn anew each run;
# deep (.ci/tiers, over every @given test): 200 examples, the same each run
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=200, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# runvil's disk caches (parser table, compiled chunks) go to a folder of this
# session's own, never the user's; the commands the tests start inherit it
# (RUNVIL_CACHE=0 in the environment still turns them off)
os.environ["RUNVIL_CACHE_DIR"] = tempfile.mkdtemp(prefix="runvil-test-cache-")
atexit.register(shutil.rmtree, os.environ["RUNVIL_CACHE_DIR"], True)
# the history of runs (runvil logs) likewise: every run and chat the tests
# start is kept in a database of this session's own, never the user's
_LOGS = tempfile.mkdtemp(prefix="runvil-test-logs-")
os.environ["RUNVIL_LOGS"] = os.path.join(_LOGS, "runs.db")
atexit.register(shutil.rmtree, _LOGS, True)
# Python's bytecode: where the environment asks for none
# (PYTHONDONTWRITEBYTECODE), each of the hundreds of commands the tests start
# would compile every module it imports again, a minute of the quick suite on
# two cores; the workers and commands keep it, as Python does by default
# (in __pycache__ folders, which git ignores)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# a user's OpenAI key or server never reaches a test (nor a paid request): the
# tests that need the environment's provider set these variables themselves
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
    os.environ.pop(_name, None)


def pytest_configure(config):
    config.addinivalue_line("markers", "tier: a slow test that CI's slow tiers run (.ci/tiers), not the quick "
                                       "suite; RUNVIL_TIERS=1 runs it")


def pytest_collection_modifyitems(config, items):
    """The quick suite leaves the `tier` tests to .ci/tiers (issue 27: the
    README's test command in a few minutes on two cores)."""
    if os.environ.get("RUNVIL_TIERS") == "1":
        return
    skip = pytest.mark.skip(reason="a slow tier: RUNVIL_TIERS=1 runs it (CI does, in .ci/tiers)")
    for item in items:
        if "tier" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def server():
    """A loopback Chat Completions server (tests/harness/chat_server.py) for
    one test."""
    s = ChatServer().start()
    yield s
    s.stop()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A disk-cache folder of the test's own (runvil's chunk and frontmatter
    caches), with the caches on."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("RUNVIL_CACHE_DIR", str(folder))
    monkeypatch.delenv("RUNVIL_CACHE", raising=False)
    return folder
