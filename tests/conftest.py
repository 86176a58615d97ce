"""Shared test set-up: headless MuJoCo and the location of the shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

# Must happen before anything imports mujoco (see REFERENCE.md, known traps).
os.environ.setdefault("MUJOCO_GL", "egl")

REPO_DIR = Path(__file__).resolve().parents[1]
# CI lays shared/ beside the clone, exactly as for a developer's checkout.
SHARED_DIR = REPO_DIR.parent / "shared"
PEDA_FIXTURES = SHARED_DIR / "fixtures" / "peda"
