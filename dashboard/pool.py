"""One bounded set of rendering workers per server process, shared fairly.

Every page that simulates or renders takes its workers here. Live episodes (`Explore`, the
Training page, Decide) are paced and granted one frame at a time by the server's
`paretoscope.pacing.gate.FrameGate`: a new viewer's first frame comes before other streams' later
frames, and nobody's frames are drawn faster than they are watched. Other work (sweeps, the
other kinds of recording) holds a worker for its whole length with `RolloutPool.slot`, first
come, first served, and from three workers on leaves one to live frames. A request beyond the limit
waits in line; while it waits, `on_wait(ahead)` is called a few times a second with the number
of requests before it. That callback is where a Streamlit page shows "queued (k ahead)", and
where the page's own stop signal (the viewer moved the slider again or closed the tab)
interrupts the wait: whatever it raises leaves the line and gives the place up.
"""

from __future__ import annotations

import contextlib
import threading
import time

from paretoscope.dashboard.limits import rollout_workers
from paretoscope.pacing.display import budget_for
from paretoscope.pacing.gate import FrameGate, WaitCallback
from paretoscope.pacing.machine import IdleShare
from paretoscope.pacing.scheduler import FrameScheduler

__all__ = ["RolloutPool", "WaitCallback", "set_shared_pool", "shared_pool"]


class RolloutPool:
    """`workers` rendering workers: frames for live streams (`gate`), whole tasks (`slot`)."""

    def __init__(self, workers: int, poll_seconds: float = 0.2) -> None:
        if workers < 1:
            raise ValueError(f"workers: expected at least 1, got {workers}")
        self.workers = int(workers)
        idle = IdleShare()
        # The pages' frame budget shrinks while the machine is nearly full (`budget_for`).
        scheduler = FrameScheduler(self.workers, time.monotonic, budget=lambda: budget_for(idle()))
        self.gate = FrameGate(scheduler, poll_seconds)

    @property
    def running(self) -> int:
        """Workers busy now."""
        return self.gate.counts()[0]

    @property
    def waiting(self) -> int:
        """Tasks in line now."""
        return self.gate.counts()[1]

    def slot(self, on_wait: WaitCallback | None = None) -> contextlib.AbstractContextManager[None]:
        """Hold one worker for the block; wait in line (calling `on_wait(ahead)`) first when
        none is free to tasks. An exception from `on_wait` leaves the line and propagates."""
        return self.gate.hold(on_wait)


_shared: RolloutPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> RolloutPool:
    """The server's pool, sized by `paretoscope.dashboard.limits.rollout_workers` on first use."""
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


def live_shown_rate() -> float:
    """Frames a second each live stream's page shows now, the budget shared by the streams the
    server's gate has open (`paretoscope.pacing.display.shown_rate`, `budget_for`)."""
    return shared_pool().gate.shown_rate()
