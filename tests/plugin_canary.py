"""A plug-in module that nothing may import from a link, a typed path or an upload:
tests/test_dashboard_security.py names it in such places and checks `sys.modules` afterwards.
Importing it also leaves a mark in the environment, for a check from another process."""

from __future__ import annotations

import os

os.environ["PARETOSCOPE_CANARY_IMPORTED"] = "1"


def make(env_id: str) -> object:
    raise AssertionError(f"the canary plug-in was built for {env_id}")
