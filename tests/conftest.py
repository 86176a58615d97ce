"""Common test set-up: headless MuJoCo and the location of the in-repo test fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Must happen before anything imports mujoco (docs/reference.md#known-traps).
os.environ.setdefault("MUJOCO_GL", "egl")

REPO_DIR = Path(__file__).resolve().parents[1]
# Checked in, so that a bare clone runs every test (tests/fixtures/peda/README.md says what).
FIXTURES_DIR = REPO_DIR / "tests" / "fixtures"
PEDA_FIXTURES = FIXTURES_DIR / "peda"


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread() -> Iterator[None]:
    """Tests run small batches on a busy 2-core machine, where a second torch thread only waits."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
