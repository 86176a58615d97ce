"""A share of one core for work that can wait: the simulation a live stream runs ahead.

A MuJoCo stream simulates its whole episode as soon as its first frame is drawn (~0.23 s of
Python for 500 HalfCheetah steps with the default MORvS), so its returns are known while it
plays. When several viewers move at once, those simulations held Python's lock and a core
together just when the new frames had to be sent and the viewers' pages redrawn (with the
browsers on the same two cores, the slowest first frames of a room were such moments). Metered
by a `CoreShare`, they take at most a share of one core between them, and the returns still
come within the episode's first second or two.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from paretoscope.errors import ParetoscopeError

# Of one core, for the live streams' simulation ahead, all streams together; the burst lets a
# lone stream's first steps run at once.
SIMULATION_SHARE = 0.5
SIMULATION_BURST_SECONDS = 0.05


class CoreShare:
    """A token bucket of CPU seconds: `share` of a second of work a second, up to `burst`
    seconds at once. Thread-safe; the work measures itself and reports it with `spend`."""

    def __init__(
        self, share: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not (math.isfinite(share) and share > 0) or not (math.isfinite(burst) and burst > 0):
            raise ParetoscopeError(f"expected share > 0 and burst > 0, got {share}, {burst}")
        self.share = float(share)
        self.burst = float(burst)
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens = self.burst
        self._last = clock()

    def wait_time(self) -> float:
        """Seconds until the work may go on (0: now)."""
        with self._lock:
            self._refill()
            return 0.0 if self._tokens > 0 else -self._tokens / self.share

    def spend(self, seconds: float) -> None:
        """`seconds` of work were done (the bucket may go below zero: the wait grows)."""
        with self._lock:
            self._refill()
            self._tokens -= max(0.0, float(seconds))

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.share)
        self._last = now


_simulation = CoreShare(SIMULATION_SHARE, SIMULATION_BURST_SECONDS)


def simulation_share() -> CoreShare:
    """The process's share for the live streams' simulation ahead."""
    return _simulation
