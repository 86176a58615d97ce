"""Who renders next: a fair, paced frame scheduler for a server's few rendering workers.

Nobody watches faster than real time, so a live stream needs its frames only as its viewer
plays them: frame i of a stream that showed its first frame at t0 is due at t0 + i / fps, and
is rendered at most `lead` seconds early. Workers are handed out one frame at a time, by
priority:

1. a stream's *first* frame, oldest request first (a new move is seen at once, whatever else
   plays);
2. live frames, earliest deadline first;
3. whole tasks (a sweep, a recording of another kind), first come first served; they hold a
   worker until they end, and (with three workers or more) leave one to live frames;
4. idle work (pre-rendering), only while no other stream or task is open at all.

A live stream that falls behind does not freeze: its next grant skips to the frame due now
(`Grant.index`), so it plays at a lower frame rate until the load falls, and a stream that
can skip nothing (an env that draws itself) is still served in deadline order. While many
streams play, each page shows fewer frames a second (`paretoscope.pacing.display.shown_rate`), and a
live stream that can skip draws no more than that: every k-th frame, k = floor(fps / shown
rate), back to every frame as the streams end.

Pure and single-threaded: time comes from `clock`, nothing blocks (`paretoscope.pacing.gate` puts
threads around it). Unit tests drive it with `FakeClock`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from paretoscope.errors import ParetoscopeError
from paretoscope.pacing.display import SHOWN_FRAMES_PER_SECOND, shown_rate

Clock = Callable[[], float]

# From this many workers on, tasks leave one of them to live frames.
TASK_RESERVE_FROM = 3


class Kind(enum.IntEnum):
    """What a stream is for, in priority order (lower first)."""

    LIVE = 0  # a viewer watches it now
    TASK = 1  # a whole piece of work holding one worker (a sweep, another recording)
    IDLE = 2  # pre-rendering while no one else has a stream open


@dataclass(frozen=True)
class Grant:
    """Permission to render frame `index` of stream `key` (a task's grant holds a worker)."""

    key: str
    index: int
    kind: Kind


@dataclass
class _Stream:
    key: str
    kind: Kind
    fps: float
    opened: float  # when it was opened: first frames are served oldest first
    order: int  # tie-break: opening order
    skippable: bool
    next_index: int = 0  # the next frame wanted (every frame before it is done or skipped)
    ready_upto: int = -1  # the last frame the stream can render now (-1: none yet)
    last: int | None = None  # the episode's last frame, once known
    waiting: bool = False  # asks for a worker now
    running: bool = False  # holds a grant now
    started: float | None = None  # when its first frame was done: t0 of its playback
    skipped: int = 0  # frames skipped to keep up
    drawn: int = -1  # the last frame drawn

    def due(self, index: int) -> float:
        """When frame `index` is due on the viewer's screen."""
        if self.started is None:
            return self.opened
        return self.started + index / self.fps

    def due_index(self, now: float) -> int:
        """The frame the viewer should see now."""
        if self.started is None:
            return 0
        return int(math.floor((now - self.started) * self.fps + 1e-9))


@dataclass
class FrameScheduler:
    """Hands `workers` rendering workers to streams one frame at a time (see the module)."""

    workers: int
    clock: Clock
    lead: float = 0.5  # seconds a live stream may render ahead of its playback
    late: float = 0.25  # seconds a live stream may fall behind before it skips frames
    # Draw a live stream's frames no faster than its page shows them (`paretoscope.pacing.display`).
    thin: bool = True
    # The frames a second the live streams' pages share now
    # (`paretoscope.pacing.display.budget_for`).
    budget: Callable[[], float] = lambda: SHOWN_FRAMES_PER_SECOND
    _streams: dict[str, _Stream] = field(default_factory=dict)
    _running: int = 0
    _tasks_running: int = 0
    _opened: int = 0

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ParetoscopeError(f"workers: expected at least 1, got {self.workers}")
        for name in ("lead", "late"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ParetoscopeError(f"{name}: expected seconds >= 0, got {value}")

    # --- streams -------------------------------------------------------------------------------

    def open(
        self,
        key: str,
        fps: float = 1.0,
        kind: Kind = Kind.LIVE,
        skippable: bool = True,
        first: int = 0,
    ) -> None:
        """A new stream of frames played at `fps` (a task: `kind=Kind.TASK`, fps unused), its
        first frame `first` (a stream resumed mid-episode: its playback starts there)."""
        if key in self._streams:
            raise ParetoscopeError(f"stream {key!r} is already open")
        if not (math.isfinite(fps) and fps > 0):
            raise ParetoscopeError(f"fps: expected a positive number, got {fps}")
        if first < 0:
            raise ParetoscopeError(f"first: expected a frame number >= 0, got {first}")
        self._streams[key] = _Stream(
            key, kind, float(fps), self.clock(), self._opened, skippable, next_index=int(first)
        )
        self._opened += 1

    def close(self, key: str) -> None:
        """The stream ended or was cancelled; a grant it held is given back."""
        stream = self._streams.pop(key, None)
        if stream is not None and stream.running:
            self._release(stream)

    def is_open(self, key: str) -> bool:
        return key in self._streams

    def request(self, key: str, ready_upto: int = 0, last: int | None = None) -> None:
        """The stream asks for a worker: it can render frames up to `ready_upto` now (its
        simulation has reached them), and its last frame is `last` once known."""
        stream = self._stream(key)
        if stream.running:
            raise ParetoscopeError(f"stream {key!r} asks again while it holds a grant")
        stream.ready_upto = int(ready_upto)
        stream.last = None if last is None else int(last)
        if stream.last is not None and stream.drawn < stream.last < stream.next_index:
            stream.next_index = stream.last  # thinned past an end learnt since: draw the last
        stream.waiting = True

    def withdraw(self, key: str) -> None:
        """The stream no longer asks (it went back to simulating)."""
        stream = self._streams.get(key)
        if stream is not None:
            stream.waiting = False

    # --- grants --------------------------------------------------------------------------------

    def next_grant(self) -> Grant | None:
        """The next frame to render on a free worker, or None (no worker free, or nobody may
        render now: paced-out streams wait until `wake_at`)."""
        if self._running >= self.workers:
            return None
        now = self.clock()
        best: tuple[tuple[float, ...], _Stream] | None = None
        for stream in self._streams.values():
            rank = self._rank(stream, now)
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, stream)
        if best is None:
            return None
        stream = best[1]
        index = self._index(stream, now)
        stream.waiting = False
        stream.running = True
        self._running += 1
        if stream.kind is Kind.TASK:
            self._tasks_running += 1
        return Grant(stream.key, index, stream.kind)

    def finish(self, grant: Grant) -> None:
        """Frame `grant.index` is rendered (a task: it ended)."""
        stream = self._streams.get(grant.key)
        if stream is None or not stream.running:
            return  # closed meanwhile: its worker was given back then
        self._release(stream)
        if grant.kind is Kind.TASK:
            return
        if stream.started is None and grant.kind is Kind.LIVE:
            stream.started = self.clock() - grant.index / stream.fps
        stream.skipped += max(0, grant.index - stream.next_index)
        stream.drawn = grant.index
        following = grant.index + self._stride(stream)
        if stream.last is not None and grant.index < stream.last:
            following = min(following, stream.last)  # the last frame is always drawn
        stream.next_index = following

    def _stride(self, stream: _Stream) -> int:
        """Frames from one drawn to the next: 1, or, for a live stream that can skip while
        many play, as many as keep it within the frames a second its page shows (nobody sees
        the others; the video holds the picture over them)."""
        if not (self.thin and stream.kind is Kind.LIVE and stream.skippable):
            return 1
        return max(1, math.floor(stream.fps / self.shown_rate() + 1e-9))

    def wake_at(self) -> float | None:
        """When a waiting live stream that is paced out becomes eligible (None: none is)."""
        times = [
            stream.due(stream.next_index) - self.lead
            for stream in self._streams.values()
            if stream.waiting and stream.kind is Kind.LIVE and self._ready(stream)
        ]
        now = self.clock()
        later = [moment for moment in times if moment > now]
        return min(later) if later else None

    # --- what a page or a benchmark may ask ------------------------------------------------------

    def playing(self, key: str) -> int:
        """The frame stream `key`'s viewer should see now (0 before its first frame)."""
        return self._stream(key).due_index(self.clock())

    def skipped(self, key: str) -> int:
        """Frames stream `key` skipped to keep up so far."""
        return self._stream(key).skipped

    def ahead(self, key: str) -> int:
        """Tasks waiting before task `key` (first come, first served)."""
        stream = self._stream(key)
        return sum(
            1
            for other in self._streams.values()
            if other.kind is Kind.TASK and other.waiting and other.order < stream.order
        )

    def tasks_waiting(self) -> int:
        """Tasks waiting for a worker now."""
        return sum(
            1 for stream in self._streams.values() if stream.kind is Kind.TASK and stream.waiting
        )

    @property
    def running(self) -> int:
        """Workers busy now (granted, rendering or holding a task)."""
        return self._running

    def live_streams(self) -> int:
        """Streams open for viewers now (`Kind.LIVE`; one shared by several viewers counts once)."""
        return sum(1 for stream in self._streams.values() if stream.kind is Kind.LIVE)

    def shown_rate(self) -> float:
        """Frames a second each live stream's page shows now (the budget shared)."""
        return shown_rate(self.live_streams(), self.budget())

    # --- inside --------------------------------------------------------------------------------

    def _stream(self, key: str) -> _Stream:
        try:
            return self._streams[key]
        except KeyError:
            raise ParetoscopeError(f"no open stream {key!r}") from None

    def _release(self, stream: _Stream) -> None:
        stream.running = False
        self._running -= 1
        if stream.kind is Kind.TASK:
            self._tasks_running -= 1

    @staticmethod
    def _ready(stream: _Stream) -> bool:
        return stream.kind is Kind.TASK or stream.ready_upto >= stream.next_index

    def _rank(self, stream: _Stream, now: float) -> tuple[float, ...] | None:
        """The stream's place in line now (lower first), or None when it may not render."""
        if not stream.waiting or stream.running or not self._ready(stream):
            return None
        if stream.kind is Kind.LIVE:
            if stream.started is None:
                return (0.0, stream.opened, stream.order)
            due = stream.due(stream.next_index)
            if due - self.lead > now:
                return None  # paced out: far enough ahead of its viewer
            # The oldest frame still owed goes first, even when a grant skips past it.
            return (1.0, due, stream.order)
        # With three workers or more, at least one stays free for live frames. With two, tasks
        # may take both, as one whole task may wait on another (a sweep a page computes while
        # another viewer's runs): one slot for tasks alone would let a long one block the rest.
        tasks_full = self.workers >= TASK_RESERVE_FROM and self._tasks_running >= self.workers - 1
        if stream.kind is Kind.TASK and tasks_full:
            return None
        # Tasks first come, first served; then idle work, oldest first.
        # Idle work waits until no one else has a stream open at all: its drawing competes
        # with the viewers' pages and browsers for the machine, not only for the workers.
        if stream.kind is Kind.IDLE and any(
            other.kind is not Kind.IDLE for other in self._streams.values()
        ):
            return None
        return (float(stream.kind) + 1.0, stream.opened, stream.order)

    def _index(self, stream: _Stream, now: float) -> int:
        """The frame a grant renders: the next one, or, for a live stream that fell behind,
        the one due now (never past what it can render, nor past its last frame)."""
        index = stream.next_index
        behind = stream.started is not None and stream.due(index) < now - self.late
        if stream.kind is Kind.LIVE and stream.skippable and behind:
            index = max(index, min(stream.due_index(now), stream.ready_upto))
            if stream.last is not None:
                index = min(index, stream.last)
        return index
