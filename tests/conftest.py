"""Common test set-up: headless MuJoCo and the location of the in-repo test fixtures."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Must happen before anything imports mujoco (docs/reference.md#known-traps).
os.environ.setdefault("MUJOCO_GL", "egl")
# Pygame-drawn envs (MO-Gymnasium's grid worlds) headless and quiet, as core does for itself.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

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


@pytest.fixture(autouse=True)
def _main_module_kept() -> Iterator[None]:
    """Streamlit's AppTest leaves its script as `__main__`; a process pool started later
    (`paretoscope.evaluate`'s sweeps spawn their workers) would run that script again in every
    worker
    (a function's script then fails there: its arguments are gone)."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests start a server and Chromium: always `slow` (kept out of `-m "not slow"`)."""
    e2e = REPO_DIR / "tests" / "e2e"
    for item in items:
        if item.path.is_relative_to(e2e):
            item.add_marker(pytest.mark.slow)
