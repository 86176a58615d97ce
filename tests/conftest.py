"""Shared test set-up: headless MuJoCo and the location of the shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Must happen before anything imports mujoco (see REFERENCE.md, known traps).
os.environ.setdefault("MUJOCO_GL", "egl")

REPO_DIR = Path(__file__).resolve().parents[1]
# CI lays shared/ beside the clone, exactly as for a developer's checkout.
SHARED_DIR = REPO_DIR.parent / "shared"
PEDA_FIXTURES = SHARED_DIR / "fixtures" / "peda"


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread() -> Iterator[None]:
    """Tests run small batches on a busy 2-core machine, where a second torch thread only waits."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
