"""Imports done before the server listens, and while it is idle (see `dashboard.serve`).

While the server's process imports (torch alone is 2 s of bytecode), its own threads serve the
browser's page and widget code several times slower: on the 2-core machine the page's 59
script files took 1.0-1.4 s instead of 0.2 s while torch was imported in the background, and
the first page was usable 0.5-1 s later. So nothing heavy runs while a browser loads:
`prepare` imports what the first run of a page needs before its first widget, before the
server starts; `start` imports the rest (torch, the env and agent checks, agents, evaluation,
rendering) only if no page has started (`page_started`) within `IDLE_START` seconds, so that a
later visitor finds them imported. A page that starts first imports what it needs itself,
after its first widgets: a second thread importing at the same time would only share the
interpreter lock with it.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import logging
import threading
from collections.abc import Iterator, Sequence

# What the first run of a page needs before its first widget (pandas, plotly, the UI modules:
# the app's, the sidebar's and the Explore page's). pandas goes first and alone: plotly looks
# it up in ``sys.modules`` and must never see it half imported.
FIRST_STAGE = (
    "pandas",
    "plotly.graph_objects",
    "dashboard.sidebar",
    "dashboard.plugins",
    "dashboard.figures",
    "dashboard.live",
    "dashboard.known_front",
)
# What it needs next, in the order it needs it.
SECOND_STAGE = (
    "torch",
    "core.rollout",
    "core.agents.checkpoint",
    "core.evaluate",
    "core.render.frames",
    "core.video",
    "core.data",
)
# Seconds after `start` without a page when the second stage begins.
IDLE_START = 10.0

_thread: threading.Thread | None = None
_page_started = threading.Event()


def import_all(modules: Sequence[str]) -> None:
    """Import `modules`; failures are ignored here: the page reports them."""
    for name in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
            if name == "torch":
                from core.render.backend import one_policy_thread

                one_policy_thread()  # the server renders: the renderer needs the cores


@contextlib.contextmanager
def _no_runtime_notes() -> Iterator[None]:
    """The pages' ``st.cache_data`` check their parameters when imported, and log "No runtime
    found" before the server has one: true and harmless (a cache's storage is chosen at its
    first call, in a page run), so not logged."""
    logger = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def freeze_imports() -> None:
    """Leave what is alive now (the imported modules, before any session exists) out of every
    later garbage collection: a full collection walks every tracked object, and the imports
    are most of them (0.16 s a collection with torch, MuJoCo and plotly, 0.02 ms frozen)."""
    gc.collect()
    gc.freeze()


def prepare() -> None:
    """Choose the GL backend (before mujoco is imported), import the first stage and register
    the server's plug-ins (once per process; a failure is reported by the page), and freeze
    them (`freeze_imports`)."""
    with contextlib.suppress(Exception):
        from core.render.backend import ensure_gl_backend

        ensure_gl_backend()
    with _no_runtime_notes():
        import_all(FIRST_STAGE)
    with contextlib.suppress(Exception):
        from dashboard.plugins import register_plugins

        register_plugins()
    freeze_imports()


def _second_stage(modules: Sequence[str], idle_start: float) -> None:
    if not _page_started.wait(idle_start):
        import_all(modules)
        if not _page_started.is_set():  # else a session's objects may be alive: not frozen
            freeze_imports()


def start(modules: Sequence[str] = SECOND_STAGE, idle_start: float = IDLE_START) -> None:
    """Import `modules` in a daemon thread if no page starts within `idle_start` seconds (once
    per process)."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(
            target=_second_stage,
            args=(modules, idle_start),
            name="paretoscope-warm-imports",
            daemon=True,
        )
        _thread.start()


def page_started() -> None:
    """A page run has started: it imports what it needs, no second stage."""
    _page_started.set()
