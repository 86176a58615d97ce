"""No drawing while the process exits.

Software OpenGL (Mesa) tears its state down as the process exits; a thread that is drawing at
that moment crashes the whole process (a segmentation fault, exit status 139) after all its work
finished well. Daemon threads (the dashboard's pre-rendering, a live stream's recording) are
never joined at exit, so every drawing passes through `drawing()`: once the interpreter starts
shutting down, no new drawing begins (a daemon thread waits there until the process is gone,
another thread gets `ProcessExiting`), and shutdown waits for the drawing under way to end.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Iterator

# How long shutdown waits for the pictures being drawn (one takes milliseconds).
EXIT_WAIT_SECONDS = 10.0

_state = threading.Condition()
_under_way = 0
_exiting = False


class ProcessExiting(RuntimeError):
    """Raised in a thread the interpreter will join, when it asks to draw during shutdown."""


@contextlib.contextmanager
def drawing() -> Iterator[None]:
    """Hold around each use of an OpenGL context (make current, draw, read, free)."""
    global _under_way
    with _state:
        exiting = _exiting
        if not exiting:
            _under_way += 1
    if exiting:
        _stop_here()
    try:
        yield
    finally:
        with _state:
            _under_way -= 1
            _state.notify_all()


def _stop_here() -> None:
    if threading.current_thread().daemon:
        threading.Event().wait()  # the interpreter abandons daemon threads: wait for the end
    raise ProcessExiting("the process is exiting: nothing more is drawn")


def stop_drawing(timeout: float = EXIT_WAIT_SECONDS) -> bool:
    """Let no new drawing begin and wait up to `timeout` s for the drawing under way; whether
    none is left. Runs at interpreter shutdown, before the exit handlers."""
    global _exiting
    with _state:
        _exiting = True
        return _state.wait_for(lambda: _under_way == 0, timeout)


# Shutdown's first step (before atexit's handlers and the C libraries' own): the point where the
# main thread is done and other threads may still be drawing. `concurrent.futures` joins its
# workers from the same hook.
_at_thread_shutdown = getattr(threading, "_register_atexit", None)
(_at_thread_shutdown or atexit.register)(stop_drawing)
