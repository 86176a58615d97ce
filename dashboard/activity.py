"""When a viewer last asked the server for a page: idle work waits for a quiet server.

Idle pre-rendering draws only while no stream wants a worker (`paretoscope.pacing`), but a page run
that serves a finished video opens no stream, and software rendering (llvmpipe's threads, at
normal priority whoever asks them to draw) would still take the cores that run needs. So idle
work also waits until no page has run for `QUIET_SECONDS`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

QUIET_SECONDS = 3.0


class Activity:
    """The time of the last page run, on `clock`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last = -float("inf")
        self._lock = threading.Lock()

    def touch(self) -> None:
        """A page runs now."""
        with self._lock:
            self._last = self._clock()

    def quiet_for(self) -> float:
        """Seconds since the last page run (infinite before the first)."""
        with self._lock:
            return self._clock() - self._last

    def wait_quiet(
        self,
        seconds: float,
        check: Callable[[], None],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Return once no page has run for `seconds`; calls `check` (which may raise to give
        up) at least every quarter second meanwhile."""
        while (left := seconds - self.quiet_for()) > 0:
            check()
            sleep(min(left, 0.25))


_shared = Activity()


def shared_activity() -> Activity:
    """The server's page runs (every page's sidebar touches it)."""
    return _shared
