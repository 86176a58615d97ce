"""Work done in background threads (recordings, sweeps), shared by every viewer who asks for
the same thing.

A `Job` runs `produce(on_frame, on_wait)` in a thread of its own (the server's rendering
workers, `paretoscope.dashboard.pool`, bound how much of it runs at once). Viewers *subscribe*:
each page
run that needs the result follows its progress (queued, frames, finished) without running it.
When the last subscriber leaves (the viewer moved the slider or closed the tab) the job is
cancelled: a queued one leaves the line, a running one stops at its next frame. A second viewer
asking for work that is under way joins it instead of doing it again, and keeps it alive if the
first one leaves. No Streamlit here: pages read the job's state and draw it themselves.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paretoscope.dashboard.heap import IdleTrim
from paretoscope.pacing.gate import Cancelled

# (on_frame, on_wait) -> the result: a `paretoscope.recordings.Recording`, a sweep's table, ...
# `on_wait(ahead)` while the job waits in line, `on_wait(None)` while it runs; both raise
# `Cancelled` once nobody follows the job (so a producer may call it just to ask).
Produce = Callable[[Callable[[Any], None], Callable[[int | None], None]], Any]

__all__ = ["Cancelled", "Job", "JobBoard", "JobState", "Produce", "shared_board"]


@dataclass(frozen=True)
class JobState:
    """What a follower sees: how many frames so far, the latest one, the line, the end."""

    frames: int
    latest: Any
    ahead: int | None  # requests before this one in the pool's line; None when not waiting
    done: bool
    result: Any  # None until done (and after a failure)
    error: BaseException | None


class Job:
    """One piece of work done by a thread, followed by its subscribers."""

    def __init__(
        self,
        key: str,
        produce: Produce,
        on_done: Callable[[Any], None],
        on_exit: Callable[[], None] | None = None,
    ) -> None:
        self.key = key
        self._produce = produce
        self._on_done = on_done
        self._on_exit = on_exit
        self._condition = threading.Condition()
        self._subscribers = 0
        self._cancelled = False
        self._frames = 0
        self._latest: Any = None
        self._ahead: int | None = None
        self._done = False
        self._result: Any = None
        self._error: BaseException | None = None
        # Called at each change of state (`watch`): how a feed's coroutine learns of a frame
        # without looking every few milliseconds.
        self._watchers: list[Callable[[], None]] = []
        # Every frame's step records, for the charts the followers draw: a frame's `.records`
        # without its image (500 images would hold ~150 MB), other frames as given.
        self.history: list[Any] = []
        self._thread = threading.Thread(target=self._run, name=f"job-{key[:12]}", daemon=True)

    @property
    def cancelled(self) -> bool:
        with self._condition:
            return self._cancelled

    def start(self) -> None:
        self._thread.start()

    def subscribe(self) -> bool:
        """Follow this job; False when it was already cancelled (start another)."""
        with self._condition:
            if self._cancelled:
                return False
            self._subscribers += 1
            return True

    def unsubscribe(self) -> None:
        """Stop following; the last follower to leave cancels an unfinished job."""
        with self._condition:
            self._subscribers -= 1
            if self._subscribers <= 0 and not self._done:
                self._cancelled = True
            self._changed()

    def watch(self, wake: Callable[[], None]) -> Callable[[], None]:
        """Call `wake()` at each change of state from now on (from the thread that changes it,
        holding the job's lock: it must return at once and take no lock of the job's). Returns
        the call that stops it."""
        with self._condition:
            self._watchers.append(wake)

        def unwatch() -> None:
            with self._condition, contextlib.suppress(ValueError):
                self._watchers.remove(wake)

        return unwatch

    def _changed(self) -> None:
        """Wake the waiters and the watchers (the caller holds the lock). A watcher that fails
        (its event loop closed) must not stop the work."""
        self._condition.notify_all()
        for wake in self._watchers:
            with contextlib.suppress(Exception):
                wake()

    def wait(self, frames_seen: int, ahead_seen: int | None, timeout: float) -> JobState:
        """The state once it differs from what the caller saw (or after `timeout` seconds)."""
        with self._condition:
            self._condition.wait_for(
                lambda: self._done or self._frames != frames_seen or self._ahead != ahead_seen,
                timeout,
            )
            return JobState(
                self._frames, self._latest, self._ahead, self._done, self._result, self._error
            )

    def _on_wait(self, ahead: int | None) -> None:
        with self._condition:
            if self._cancelled:
                raise Cancelled
            if ahead != self._ahead:
                self._ahead = ahead
                self._changed()

    def _on_frame(self, frame: Any) -> None:
        with self._condition:
            if self._cancelled:
                raise Cancelled
            self._ahead = None
            self._frames += 1
            self._latest = frame
            self.history.append(getattr(frame, "records", frame))
            self._changed()

    def _run(self) -> None:
        result = None
        error: BaseException | None = None
        try:
            result = self._produce(self._on_frame, self._on_wait)
            self._on_done(result)
        except Cancelled:
            pass
        except BaseException as failure:  # noqa: BLE001 - handed to the followers to show
            error = failure
        with self._condition:
            self._done = True
            self._ahead = None
            self._result = result
            self._error = error
            self._changed()
        if self._on_exit is not None:
            self._on_exit()


class JobBoard:
    """The jobs running now, by key (one board per server process). `on_idle` is called, from
    the thread of the job that ended, each time the last job on the board ends."""

    def __init__(self, on_idle: Callable[[], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._on_idle = on_idle

    def follow(self, key: str, produce: Produce, on_done: Callable[[Any], None]) -> Job:
        """The job for `key`, subscribed to: the running one, or a new one started."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.cancelled and job.subscribe():
                return job

            started = Job(key, produce, on_done, on_exit=lambda: self._forget(key, started))
            started.subscribe()
            self._jobs[key] = started
            started.start()
            return started

    def running(self) -> list[str]:
        with self._lock:
            return list(self._jobs)

    def jobs(self) -> list[Job]:
        """The jobs on the board now."""
        with self._lock:
            return list(self._jobs.values())

    def _forget(self, key: str, job: Job) -> None:
        with self._lock:
            if self._jobs.get(key) is job:
                del self._jobs[key]
            idle = not self._jobs
        if idle and self._on_idle is not None:
            self._on_idle()


# The work's freed memory goes back to the system once the board is idle
# (`paretoscope.dashboard.heap`).
_board = JobBoard(on_idle=IdleTrim().request)


def shared_board() -> JobBoard:
    """The server's board of running jobs."""
    return _board
