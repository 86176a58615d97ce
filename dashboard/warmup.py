"""Imports done while the server starts, and while it is idle (see `paretoscope.dashboard.serve`).

While the server's process imports (torch alone is 2 s of bytecode), its own threads serve the
browser's page and widget code several times slower: on the 2-core machine the page's 59
script files took 1.0-1.4 s instead of 0.2 s while torch was imported in the background, and
the first page was usable 0.5-1 s later. So nothing heavy runs while a browser loads: `start`
imports what the first run of a page needs before its first widget (`prepare`: pandas, plotly,
the UI modules, about 0.4 s) in a thread once the server listens (`server_listening`), while
the browser loads the page's code, and a page run waits for it in `page_started`. Run while
Streamlit itself started, the same imports shared the interpreter with it and the server
answered 0.2-0.4 s later (launch -> answers 1.0-1.4 s against 0.8-0.95 s, six cold starts
each way on 2026-12-05, load under 1); the page's files, fetched meanwhile, came no later.
Then it imports the rest (torch, the env and agent checks, agents, evaluation, rendering) only
if no page has started within `IDLE_START` seconds, so that a later visitor finds them
imported. A page that starts first imports what it needs itself, after its first widgets: a
second thread importing at the same time would only share the interpreter lock with it.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import threading
from collections.abc import Sequence

# What the first run of a page needs before its first widget (pandas, plotly, the UI modules:
# the app's, the sidebar's and the Explore page's). pandas goes first and alone: plotly looks
# it up in ``sys.modules`` and must never see it half imported.
FIRST_STAGE = (
    "pandas",
    "plotly.graph_objects",
    "paretoscope.dashboard.sidebar",
    "paretoscope.dashboard.plugins",
    "paretoscope.figures.front",
    "paretoscope.dashboard.live",
    "paretoscope.dashboard.known_front",
)
# What it needs next, in the order it needs it.
SECOND_STAGE = (
    "torch",
    "paretoscope.rollout",
    "paretoscope.agents.checkpoint",
    "paretoscope.evaluate",
    "paretoscope.render.frames",
    "paretoscope.video",
    "paretoscope.data",
)
# Seconds after `start` without a page when the second stage begins.
IDLE_START = 10.0
# Longest wait (seconds) for `server_listening` before the first stage starts anyway.
LISTEN_WAIT = 10.0

_thread: threading.Thread | None = None
_page_started = threading.Event()
_prepared = threading.Event()
_listening = threading.Event()


def import_all(modules: Sequence[str]) -> None:
    """Import `modules`; failures are ignored here: the page reports them."""
    for name in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
            if name == "torch":
                from paretoscope.render.backend import one_policy_thread

                one_policy_thread()  # the server renders: the renderer needs the cores


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
        from paretoscope.render.backend import ensure_gl_backend

        ensure_gl_backend()
    from paretoscope.dashboard.streamlit_internals import cache_notes_quieted

    with cache_notes_quieted():
        import_all(FIRST_STAGE)
    with contextlib.suppress(Exception):
        from paretoscope.dashboard.plugins import register_plugins

        register_plugins()
    freeze_imports()


def _warm(modules: Sequence[str], idle_start: float, after_listening: bool) -> None:
    if after_listening:
        _listening.wait(LISTEN_WAIT)
    try:
        prepare()
    finally:
        _prepared.set()
    if not _page_started.wait(idle_start):
        import_all(modules)
        if not _page_started.is_set():  # else a session's objects may be alive: not frozen
            freeze_imports()


def start(
    modules: Sequence[str] = SECOND_STAGE,
    idle_start: float = IDLE_START,
    after_listening: bool = False,
) -> None:
    """In a daemon thread (once per process): `prepare` at once, or once the server listens
    (`server_listening`, at most `LISTEN_WAIT` seconds later) if `after_listening`; then import
    `modules` if no page starts within `idle_start` seconds."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(
            target=_warm,
            args=(modules, idle_start, after_listening),
            name="paretoscope-warm-imports",
            daemon=True,
        )
        _thread.start()


def server_listening() -> None:
    """The server listens: a `start`ed first stage waiting for it begins."""
    _listening.set()


def page_started() -> None:
    """A page run has started: it imports what it needs, no second stage. Returns once
    `prepare` is done (at once where `start` was not called: a page served by plain Streamlit
    or an AppTest), so the page never sees a module half imported by the other thread."""
    _page_started.set()
    if _thread is not None:
        _prepared.wait()
