"""One bounded pool of rollout workers per server process, served first come, first served.

Every page that simulates an episode (live rollouts, replays, comparisons, tours) takes a slot
here first, so a room full of viewers cannot start more simulations than the machine has
cores. A request beyond the limit waits in line; while it waits, `on_wait(ahead)` is called a
few times a second with the number of requests before it. That callback is where a Streamlit
page shows "queued (k ahead)", and where the page's own stop signal (the viewer moved the
slider again or closed the tab) interrupts the wait: whatever it raises leaves the line and
gives the place up.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections import deque
from collections.abc import Callable, Iterator

from dashboard.limits import rollout_workers

WaitCallback = Callable[[int], None]


class RolloutPool:
    """At most `workers` holders at once; the others wait in arrival order."""

    def __init__(self, workers: int, poll_seconds: float = 0.2) -> None:
        if workers < 1:
            raise ValueError(f"workers: expected at least 1, got {workers}")
        self.workers = int(workers)
        self.poll_seconds = float(poll_seconds)
        self._condition = threading.Condition()
        self._line: deque[int] = deque()
        self._tickets = itertools.count()
        self._running = 0

    @property
    def running(self) -> int:
        """Slots in use now."""
        with self._condition:
            return self._running

    @property
    def waiting(self) -> int:
        """Requests in line now."""
        with self._condition:
            return len(self._line)

    @contextlib.contextmanager
    def slot(self, on_wait: WaitCallback | None = None) -> Iterator[None]:
        """Hold one worker slot for the block; wait in line (calling `on_wait(ahead)`) first
        when all are taken. An exception from `on_wait` leaves the line and propagates."""
        ticket = next(self._tickets)
        with self._condition:
            self._line.append(ticket)
        try:
            while True:
                with self._condition:
                    if self._running < self.workers and self._line[0] == ticket:
                        self._line.popleft()
                        self._running += 1
                        # The next in line may fit too (several slots freed at once).
                        self._condition.notify_all()
                        break
                    ahead = self._line.index(ticket)
                if on_wait is not None:
                    on_wait(ahead)
                with self._condition:
                    if not (self._running < self.workers and self._line[0] == ticket):
                        self._condition.wait(self.poll_seconds)
        except BaseException:
            with self._condition:
                with contextlib.suppress(ValueError):
                    self._line.remove(ticket)
                self._condition.notify_all()
            raise
        try:
            yield
        finally:
            with self._condition:
                self._running -= 1
                self._condition.notify_all()


_shared: RolloutPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> RolloutPool:
    """The server's pool, sized by `dashboard.limits.rollout_workers` on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = RolloutPool(rollout_workers())
        return _shared


def set_shared_pool(pool: RolloutPool | None) -> None:
    """Replace the server's pool (tests; None: size it again from the environment)."""
    global _shared
    with _shared_lock:
        _shared = pool
