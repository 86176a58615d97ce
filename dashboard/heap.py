"""Giving freed memory back to the system (glibc), so a server that was busy shrinks when idle.

Every recording allocates and frees a lot from its own thread: frames, renderer and encoder
buffers, policy tensors. glibc keeps what is freed in the arena of the thread that freed it,
for reuse, and returns only the free space at an arena's top: after a burst of slider moves
the server held half a gigabyte of free heap (`benchmarks/bench_memory.py`). `trim()` hands
the free pages back (``malloc_trim``); `IdleTrim` does it a moment after the work stops (the
job board calls it when its last job ends). Elsewhere than glibc both do nothing.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from functools import cache


@cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.malloc_trim.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def trim() -> bool:
    """Return the heap's free pages to the system now; True when some were."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None else False


class IdleTrim:
    """`request()` says the work may have stopped; `release` runs `delay` seconds after the
    last request, in a timer thread (a request meanwhile postpones it), so a burst of jobs ending
    one after another costs one trim, after the last."""

    def __init__(self, delay: float = 2.0, release: Callable[[], object] = trim) -> None:
        self.delay = float(delay)
        self._release = release
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def request(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self._fire)
            self._timer.name = "paretoscope-heap-trim"
            self._timer.daemon = True
            self._timer.start()

    def pending(self) -> bool:
        """True while a release is scheduled."""
        with self._lock:
            return self._timer is not None

    def _fire(self) -> None:
        with self._lock:
            if self._timer is not threading.current_thread():
                return  # postponed by a later request
            self._timer = None
        self._release()
