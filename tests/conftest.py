"""Shared test setup: a bounded hypothesis profile for CI."""

import os
import sys

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# runvil's Lua threads need a deep Python stack; set it once, up front
sys.setrecursionlimit(max(sys.getrecursionlimit(), 200_000))
