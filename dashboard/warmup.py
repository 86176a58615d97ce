"""Imports done while the server starts, and while it is idle (see `dashboard.serve`).

While the server's process imports (torch alone is 2 s of bytecode), its own threads serve the
browser's page and widget code several times slower: on the 2-core machine the page's 59
script files took 1.0-1.4 s instead of 0.2 s while torch was imported in the background, and
the first page was usable 0.5-1 s later. So nothing heavy runs while a browser loads: `start`
imports what the first run of a page needs before its first widget (`prepare`: pandas, plotly,
the UI modules, about a second) in a thread while Streamlit itself starts and begins to listen,
so the browser's first request is answered sooner and the page's main script loads meanwhile
(a page run waits for it in `page_started`). On the 2-core machine at load 3 the server
answered 0.3-0.4 s sooner and the page's slider came 0.2-0.5 s sooner (medians of two sets of
four cold starts each way: 7.1 -> 6.6 s, 6.4 -> 6.2 s; the browser then loads its page while
the imports run, a little slower). Then it imports the rest (torch, the env and agent checks,
agents, evaluation, rendering) only if no page has started within `IDLE_START` seconds, so that
a later visitor finds them imported. A page that starts first imports what it needs itself,
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
_prepared = threading.Event()


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


def _warm(modules: Sequence[str], idle_start: float) -> None:
    try:
        prepare()
    finally:
        _prepared.set()
    if not _page_started.wait(idle_start):
        import_all(modules)
        if not _page_started.is_set():  # else a session's objects may be alive: not frozen
            freeze_imports()


def start(modules: Sequence[str] = SECOND_STAGE, idle_start: float = IDLE_START) -> None:
    """In a daemon thread (once per process): `prepare` at once, then import `modules` if no
    page starts within `idle_start` seconds."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(
            target=_warm,
            args=(modules, idle_start),
            name="paretoscope-warm-imports",
            daemon=True,
        )
        _thread.start()


def page_started() -> None:
    """A page run has started: it imports what it needs, no second stage. Returns once
    `prepare` is done (at once where `start` was not called: a page served by plain Streamlit
    or an AppTest), so the page never sees a module half imported by the other thread."""
    _page_started.set()
    if _thread is not None:
        _prepared.wait()
