"""`FrameGate`: a `FrameScheduler` shared by threads, one thread per stream or task.

A stream's thread asks for its next grant with `poll` (never blocks: a thread that can
simulate ahead meanwhile does so) or `wait` (blocks until granted), renders the frame it was
granted, and reports it with `finish`. Whoever holds the lock hands free workers out, so no
dispatcher thread is needed; a waiting thread also wakes when a paced-out stream becomes due.
A task (a sweep, a recording of another kind) holds a worker for a whole block with `hold`.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterator

from paretoscope.pacing.scheduler import FrameScheduler, Grant, Kind


class Cancelled(Exception):
    """Raised in a stream's thread once nobody wants its frames any more."""


# Called while a task waits, with the number of tasks ahead of it; what it raises leaves the line.
WaitCallback = Callable[[int], None]


class FrameGate:
    """Threads around one scheduler (its clock must be safe to call from any thread)."""

    def __init__(self, scheduler: FrameScheduler, poll_seconds: float = 0.1) -> None:
        self.scheduler = scheduler
        self.poll_seconds = float(poll_seconds)
        self._condition = threading.Condition()
        self._granted: dict[str, Grant] = {}
        self._tasks = itertools.count()

    # --- streams -------------------------------------------------------------------------------

    def open(
        self,
        key: str,
        fps: float,
        kind: Kind = Kind.LIVE,
        skippable: bool = True,
        first: int = 0,
    ) -> None:
        with self._condition:
            self.scheduler.open(key, fps, kind, skippable, first)

    def close(self, key: str) -> None:
        """The stream ended or was cancelled: its worker (granted or running) is free again."""
        with self._condition:
            self._granted.pop(key, None)
            self.scheduler.close(key)
            self._dispatch()

    def poll(self, key: str, ready_upto: int, last: int | None = None) -> Grant | None:
        """The stream's grant if one is free now (else it stays in line and may ask again)."""
        with self._condition:
            grant = self._granted.pop(key, None)
            if grant is None:
                self.scheduler.request(key, ready_upto, last)
                self._dispatch()
                grant = self._granted.pop(key, None)
            return grant

    def poll_within(
        self, key: str, ready_upto: int, last: int | None, seconds: float
    ) -> Grant | None:
        """`poll`, waiting up to `seconds` (real time) for a grant: a stream that may not
        simulate ahead now waits for its next frame instead."""
        deadline = time.monotonic() + seconds
        while (grant := self.poll(key, ready_upto, last)) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            with self._condition:
                if key not in self._granted:
                    self._condition.wait(self._sleep(left))
        return grant

    def wait(self, key: str, ready_upto: int, last: int | None, check: Callable[[], None]) -> Grant:
        """Block until the stream is granted a frame. `check` is called between waits and
        should raise (e.g. `Cancelled`) once the frames are no longer wanted."""
        while True:
            grant = self.poll(key, ready_upto, last)
            if grant is not None:
                return grant
            check()
            with self._condition:
                if key in self._granted:
                    continue
                self._condition.wait(self._sleep(self.poll_seconds))

    def playing(self, key: str) -> int:
        """The frame the stream's viewer should see now (a late stream simulates up to it)."""
        with self._condition:
            return self.scheduler.playing(key)

    def finish(self, grant: Grant) -> None:
        """The granted frame is rendered (or the task ended): its worker moves on."""
        with self._condition:
            self.scheduler.finish(grant)
            self._dispatch()

    # --- tasks ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def hold(self, on_wait: WaitCallback | None = None) -> Iterator[None]:
        """Hold one worker for the block, first come, first served among tasks (live frames
        keep one worker from three workers on); `on_wait(ahead)` is called while it waits."""
        key = f"task-{next(self._tasks)}"
        self.open(key, 1.0, Kind.TASK)
        grant: Grant | None = None
        try:
            while grant is None:
                grant = self.poll(key, 0)
                if grant is not None:
                    break
                if on_wait is not None:
                    with self._condition:
                        ahead = self.scheduler.ahead(key)
                    on_wait(ahead)
                with self._condition:
                    if key not in self._granted:
                        self._condition.wait(self.poll_seconds)
            yield
        finally:
            if grant is not None:
                self.finish(grant)
            self.close(key)

    @contextlib.contextmanager
    def relayed(self, key: str, fps: float) -> Iterator[None]:
        """For the block, a live stream drawn elsewhere (a cluster's actor) that this server's
        pages show: it counts in their frame budget (`live_streams`, `shown_rate`) and asks
        for no worker here."""
        self.open(key, fps, Kind.LIVE)
        try:
            yield
        finally:
            self.close(key)

    def counts(self) -> tuple[int, int]:
        """(workers busy, tasks waiting) now."""
        with self._condition:
            return self.scheduler.running, self.scheduler.tasks_waiting()

    def live_streams(self) -> int:
        """Streams open for viewers now."""
        with self._condition:
            return self.scheduler.live_streams()

    def shown_rate(self) -> float:
        """Frames a second each live stream's page shows now (`FrameScheduler.shown_rate`)."""
        with self._condition:
            return self.scheduler.shown_rate()

    # --- inside --------------------------------------------------------------------------------

    def _sleep(self, longest: float) -> float:
        """How long a waiting thread may sleep (the lock is held): at most `longest`, and no
        later than a paced-out stream becomes due (nobody else wakes it then)."""
        wake = self.scheduler.wake_at()
        if wake is None:
            return longest
        return min(longest, max(0.0, wake - self.scheduler.clock()) + 1e-4)

    def _dispatch(self) -> None:
        """Hand every free worker out (the lock is held)."""
        while (grant := self.scheduler.next_grant()) is not None:
            self._granted[grant.key] = grant
            self._condition.notify_all()
