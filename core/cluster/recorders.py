"""Recordings made on a Ray cluster: a recording request (`paretoscope.recordings`) recorded by
an actor on one of the cluster's nodes, its frames streamed back as they are drawn (a Ray
streaming generator), the finished `Recording` last.

A request names everything that changes its episode (its key), so recording it again gives the
same frames. An actor lost mid-stream (its node died, its process was killed) is therefore
replaced by a new one, on any node, that records the same request again and sends only the
frames after the last one received: the stream resumes where it stopped, and the recording is
the one a local worker would have made.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from paretoscope.agents.base import Agent
from paretoscope.cluster.connect import connect
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings import LiveFrame, Recording, RecordingRequest

# Cores an actor holds on its node while it records (the physics, the policy and the renderer).
RECORDER_CPUS = 1.0
# Actors a recording may lose before it fails: more means the cluster itself is failing.
MOST_LOST_ACTORS = 3
# Frames an actor may draw before the ones it sent are taken: the stream's memory stays bounded,
# and an actor lost mid-stream has not run far ahead of what was received.
FRAMES_AHEAD = 8
# Seconds between a stream's looks for its next frame.
POLL_SECONDS = 0.005
# A stream waits this many of its last gaps between frames (at least `stall` seconds) before
# it counts its actor lost.
STALL_FRAMES = 4


class _End:
    """Put in a stream's queue after its last frame."""


def _frames_then_recording(
    request: RecordingRequest, agents: Sequence[Agent], skip: int
) -> Iterator[tuple[str, Any]]:
    """``("frame", LiveFrame)`` for each frame from number `skip` on, as `request` is recorded
    (in a thread of its own: the recording calls back, the stream is pulled), then
    ``("recording", Recording)``. The recording's error, if any, is raised here."""
    # Bounded: the recording waits while the frames it drew are not taken (Ray's back-pressure
    # holds the stream, and this holds the recording).
    frames: queue.Queue[LiveFrame | _End] = queue.Queue(maxsize=FRAMES_AHEAD)
    outcome: dict[str, Any] = {}

    def record() -> None:
        try:
            outcome["recording"] = request.record(agents, frames.put)
        except BaseException as error:  # raised in the stream below
            outcome["error"] = error
        finally:
            frames.put(_End())

    thread = threading.Thread(target=record, name="paretoscope-cluster-recording", daemon=True)
    thread.start()
    while not isinstance(item := frames.get(), _End):
        if item.index >= skip:
            yield "frame", item
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    yield "recording", outcome["recording"]


class _RecordingActor:
    """What runs on a node: chooses the GL backend once, then records what it is asked."""

    def __init__(self) -> None:
        from paretoscope.render.backend import ensure_gl_backend

        with contextlib.suppress(Exception):  # no renderer: each recording says so itself
            ensure_gl_backend()

    def node(self) -> str:
        import ray

        node: str = ray.get_runtime_context().get_node_id()
        return node

    def record(
        self, request: RecordingRequest, skip: int, *agents: Agent
    ) -> Iterator[tuple[str, Any]]:
        yield from _frames_then_recording(request, agents, skip)


class _Stalled(Exception):
    """No frame came from an actor within its patience: treated as an actor lost."""


class ClusterRecorders:
    """Records requests on the Ray cluster at `address` (``auto``, ``HOST:PORT``; None: a local
    Ray for this process), one actor per recording. `actor_options` go to Ray's
    ``.options(...)`` for every actor (resources, scheduling). One actor is kept started ahead
    (its imports and renderer ready), so a recording, or one resumed, starts without waiting
    for a new process.

    A node that dies is declared dead by Ray only after its heartbeats are missed (seconds), so
    a stream also counts its actor lost when no frame comes for `stall` seconds once frames
    have begun (`first_patience` before the first one: an actor loads its agent and env)."""

    def __init__(
        self,
        address: str | None,
        actor_options: Mapping[str, Any] | None = None,
        stall: float = 1.0,
        first_patience: float = 60.0,
    ) -> None:
        self._ray, _ = connect(address)  # kept for the process: never ended here
        self._actor = self._ray.remote(num_cpus=RECORDER_CPUS, max_restarts=0)(_RecordingActor)
        self._options = dict(actor_options or {})
        self._stall = stall
        self._first_patience = first_patience
        self._spare: Any = None
        self._lock = threading.Lock()
        exceptions = self._ray.exceptions
        self._task_error = exceptions.RayTaskError
        # What a lost actor looks like from here (its node or process died, or it went silent).
        self._lost = (
            _Stalled,
            exceptions.RayActorError,
            exceptions.ObjectLostError,
            exceptions.WorkerCrashedError,
            exceptions.NodeDiedError,
        )

    def close(self) -> None:
        """Stop the spare actor (the recordings' own actors stop when they end); a later
        `record` starts actors again."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            with contextlib.suppress(Exception):
                self._ray.kill(spare)

    def _started_actor(self) -> Any:
        """The spare actor, or a new one; then a new spare (after: on a full cluster the
        recording's own actor gets the free core first)."""
        with self._lock:
            actor, self._spare = self._spare, None
        if actor is None:
            actor = self._actor.options(**self._options).remote()
        with self._lock:
            if self._spare is None:
                self._spare = self._actor.options(**self._options).remote()
        return actor

    def record(
        self,
        request: RecordingRequest,
        agents: Sequence[Agent],
        on_frame: Callable[[LiveFrame], None] | None = None,
        on_actor: Callable[[Any], None] | None = None,
        check: Callable[[], None] | None = None,
    ) -> Recording:
        """`request` recorded by an actor on the cluster, each frame passed to `on_frame` as it
        arrives (in order, each once, however many actors were lost), the recording returned.
        `on_actor(actor)` is told each actor before it records (to place or to watch it);
        `check()` is called while a frame is awaited. An exception from `on_frame` or `check`
        (a cancelled job) stops the actor and is raised; an error of the recording itself is
        raised as it was raised on the node."""
        agent_references = [self._ray.put(agent) for agent in agents]
        received = lost = 0
        while True:
            actor = self._started_actor()
            try:
                if on_actor is not None:
                    on_actor(actor)
                stream = actor.record.options(
                    num_returns="streaming", _generator_backpressure_num_objects=FRAMES_AHEAD
                ).remote(request, received, *agent_references)
                patience, last = self._first_patience, None
                while True:
                    kind, item = self._next(stream, patience, check)
                    if kind == "recording":
                        recording: Recording = item
                        return recording
                    if on_frame is not None:
                        on_frame(item)
                    received = item.index + 1
                    # A node that draws slowly is not a dead one: the patience follows its pace.
                    now = time.monotonic()
                    gap = 0.0 if last is None else now - last
                    patience, last = max(self._stall, STALL_FRAMES * gap), now
            except self._lost as error:
                lost += 1
                if lost > MOST_LOST_ACTORS:
                    raise ParetoscopeError(
                        f"the Ray cluster lost {lost} actors recording one episode: "
                        f"{error or 'no frame came'}"
                    ) from None
            except self._task_error as error:
                raise error.cause from None  # the node's own exception, not Ray's report of it
            finally:
                with contextlib.suppress(Exception):
                    self._ray.kill(actor)

    def _next(
        self, stream: Any, patience: float, check: Callable[[], None] | None
    ) -> tuple[str, Any]:
        """The stream's next item, waiting at most `patience` seconds for it (`_Stalled` past
        it, its fetch included: a frame in a dead node's object store never comes). Polled:
        Ray's own timed wait is a busy loop."""
        deadline = time.monotonic() + patience
        while not stream.next_ready():
            if check is not None:
                check()
            if time.monotonic() > deadline:
                raise _Stalled()
            time.sleep(POLL_SECONDS)
        try:
            item: tuple[str, Any] = self._ray.get(
                next(stream), timeout=max(deadline - time.monotonic(), self._stall)
            )
        except (StopIteration, self._ray.exceptions.GetTimeoutError):
            raise _Stalled() from None  # ended without its recording, or not fetched in time
        return item
