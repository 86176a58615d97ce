"""Imports warmed in the background while the server starts (see `dashboard.serve`).

The app's first run calls `wait()` before it imports anything: pandas and plotly are imported
first and alone, because plotly looks pandas up in ``sys.modules`` and must never see it half
imported; the rest (torch and the core modules) goes on in the background.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Sequence

# What the first run of a page needs before its first widget (pandas, plotly, the UI modules:
# the app's, the sidebar's and the Explore page's), then what it needs to act (torch, the env
# and agent checks, agents, evaluation, rendering).
FIRST_STAGE = (
    "pandas",
    "plotly.graph_objects",
    "dashboard.sidebar",
    "dashboard.plugins",
    "dashboard.figures",
    "dashboard.live",
    "dashboard.known_front",
)
SECOND_STAGE = (
    "torch",
    "core.rollout",
    "core.agents.checkpoint",
    "core.evaluate",
    "core.render.frames",
    "core.video",
    "core.data",
)
WARM_MODULES = FIRST_STAGE + SECOND_STAGE

_thread: threading.Thread | None = None
_first_stage_done = threading.Event()


def warm_imports(modules: Sequence[str] = WARM_MODULES) -> None:
    """Choose the GL backend (before mujoco is imported), then import `modules`; the first
    stage's end is signalled. Failures are ignored here: the page reports them."""
    with contextlib.suppress(Exception):
        from core.render.backend import ensure_gl_backend

        ensure_gl_backend()
    for name in modules:
        if name == SECOND_STAGE[0]:
            _first_stage_done.set()
        with contextlib.suppress(Exception):
            importlib.import_module(name)
            if name == "torch":
                from core.render.backend import one_policy_thread

                one_policy_thread()  # the server renders: the renderer needs the cores
    _first_stage_done.set()


def start(modules: Sequence[str] = WARM_MODULES) -> None:
    """Start warming in a daemon thread (once per process)."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(
            target=warm_imports, args=(modules,), name="paretoscope-warm-imports", daemon=True
        )
        _thread.start()


def wait(timeout: float | None = None) -> None:
    """Wait until the light first stage is imported (at once when no warm-up was started).

    The heavy second stage (torch first) goes on meanwhile; a module the script imports while
    it is being imported here waits for it through Python's import lock.
    """
    if _thread is not None:
        _first_stage_done.wait(timeout)
