"""Recordings made on a Ray cluster: a recording request (`paretoscope.recordings`) recorded by
an actor on one of the cluster's nodes, its frames streamed back as they are drawn (a Ray
streaming generator), the finished `Recording` last.

One episode is recorded once at a time on a cluster, however many dashboard servers use it: a
registry actor (named, on the head node) knows which actor records each request's key, and a
second server asking for it follows that actor's stream. The registry also keeps the actors:
one that finished (or whose viewers all left) waits, warm, for the next episode, since starting
a process (its imports, its renderer) costs seconds of a core; a waiting actor draws one frame
of the env and size the streams ask for, so its first episode there pays for no renderer.
Actors hold their node's cores while they wait: a cluster's capacity is the cores its nodes
declare (`ray start --num-cpus`). Beyond it, a new episode is not refused nor queued: its actor
shares a node's cores with the ones there, and every episode there is drawn more slowly.

A stream sends what a relaying server's pages show: each frame as a JPEG (when asked), and the
simulated episode's frame steps once (its server puts them back on each later frame).

A live episode (`LivePace`) is drawn on its node by the server's own pacing rules
(`paretoscope.recordings.paced`): its first frame at once, then each about when its viewers'
video reaches it, no more frames a second than the relaying server's pages show (the rest held
in the video), without anti-aliasing when it starts in a crowd, and a node that falls behind
skips to the frame due now (fewer frames, never a frozen picture).

A request names everything that changes its episode (its key), so recording it again gives the
same frames. An actor lost mid-stream (its node died, its process was killed) is therefore
replaced by another, away from its node, that records the same request again and sends only the
frames after the last one received: the stream resumes where it stopped, with the returns a
local worker would have recorded. A live episode resumes drawing at once from the first frame
not received (its video holds that picture over the frames before it, as over the frames a
paced stream skips); one recorded without a pace draws every frame again.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.cluster.connect import connect, import_ray
from paretoscope.cluster.packed_steps import packed
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.jpeg import jpeg_bytes
from paretoscope.pacing.gate import FrameGate
from paretoscope.pacing.scheduler import FrameScheduler
from paretoscope.recordings import LiveFrame, Recording, RecordingRequest
from paretoscope.render.backend import one_policy_thread

if TYPE_CHECKING:  # mujoco comes with it: imported on the nodes, not here
    from paretoscope.rollout import StepRecord

# Cores an actor holds on its node (the physics, the policy and the renderer): a node started
# with `ray start --num-cpus=K` records K episodes at once.
RECORDER_CPUS = 1.0
# Actors waiting for an episode, at most: the registry starts one per free core of the cluster
# with itself (starting one costs seconds of a core: a room's first moves would wait for them),
# and keeps some off each node for its episodes, should it be lost (`spares_short`).
MOST_WAITING = 16
# Actors a recording may lose before it fails: more means the cluster itself is failing.
MOST_LOST_ACTORS = 3
# Frames an actor may keep past the furthest one taken: the stream's memory stays bounded, and
# an actor lost mid-stream has not run far ahead of what was received.
FRAMES_AHEAD = 8
# Frames an actor keeps for streams that follow it (a stream joining late starts from these).
FRAMES_KEPT = 2 * FRAMES_AHEAD
# Streams (and questions) one actor serves at once: every server's viewers of its episode.
MOST_STREAMS = 64
# Seconds a stream waits for its next frame at a time before it asks whether anyone still
# follows it (`check`) and whether its patience has run out. The wait ends as the frame comes.
WAIT_SECONDS = 0.1
# Seconds an actor that sent no frame within its stream's patience has to answer a question
# (it then only draws slowly: a loaded node) before it counts lost; and seconds its node has
# to take a connection, when where it runs is known.
PING_SECONDS = 2.0
# A stream waits this many of its last gaps between frames (at least `stall` seconds) before
# it counts its actor lost.
STALL_FRAMES = 4
# Agents a server keeps in the cluster's object store (the most recently used): a node fetches
# an agent once, not again for each of its episodes.
AGENTS_KEPT = 32
# Seconds between the registry's looks for waiting actors that came up and may warm themselves.
WARM_LOOK_SECONDS = 0.5
# Where the registry lives: one per cluster, found by name.
REGISTRY_NAME = "paretoscope-recordings"
NAMESPACE = "paretoscope"
HEAD_NODE_RESOURCE = "node:__internal_head__"  # Ray's own resource of the head node


@dataclass(frozen=True)
class LivePace:
    """How an actor draws a live episode: at most `shown_rate` frames a second (what the
    relaying server's pages show now, `paretoscope.pacing.display.shown_rate`), anti-aliased
    or not (`smooth`, `paretoscope.pacing.display.smooth_frames`), each frame about when its
    viewers' video reaches it."""

    shown_rate: float
    smooth: bool


class _Cancelled(Exception):
    """Raised in a recording's thread once nobody follows its episode."""


class _Episode:
    """One episode an actor records: its newest frames, how far its streams have taken them,
    and its end (``recording`` or ``error``)."""

    def __init__(self, key: str, skip: int) -> None:
        self.key = key
        self.frames: collections.deque[LiveFrame] = collections.deque(maxlen=FRAMES_KEPT)
        self.taken = skip - 1  # the furthest frame number any stream has taken
        self.outcome: dict[str, Any] = {}
        self.cancelled = False

    def ahead(self) -> int:
        """Frames kept that no stream has taken yet."""
        return sum(1 for frame in self.frames if frame.index > self.taken)


class _RecordingActor:
    """What runs on a node: chooses the GL backend once, then records one episode at a time for
    every stream that follows it (threaded: each stream, and each question, in a thread of its
    own). It keeps the episode's last frames, so a stream that joins late starts from the
    newest, and keeps at most `FRAMES_AHEAD` frames past the furthest any stream has taken."""

    def __init__(self) -> None:
        # Set up as the dashboard's server sets itself up: software GL drawing in the thread
        # that asks (at that thread's priority), the backend chosen before MuJoCo is imported,
        # and the heavy imports done here: the actor answers (counts as up) only once its first
        # episode costs the episode alone, not a process's imports (seconds of a core).
        from paretoscope.pacing.priority import draw_in_calling_threads
        from paretoscope.render.backend import ensure_gl_backend

        draw_in_calling_threads()
        with contextlib.suppress(Exception):  # no renderer: each recording says so itself
            ensure_gl_backend()
        import mujoco  # noqa: F401
        import torch  # noqa: F401

        import paretoscope.recordings.paced  # noqa: F401 - the rollout and the renderer

        self._changed = threading.Condition()
        self._episode: _Episode | None = None

    def node(self) -> str:
        import ray

        node: str = ray.get_runtime_context().get_node_id()
        return node

    def warm(self, request: RecordingRequest, pace: LivePace | None, *agents: Agent) -> None:
        """Draw `request`'s first frame and stop: its env, its renderer and the policy's first
        step are made, and kept (`paretoscope.render.warm`), so that this actor's first
        episode of that env costs its frames alone (a few tenths of a second of a core
        otherwise, seconds on a busy node). A live episode's first frame is drawn both
        anti-aliased and not: which one an episode asks for depends on the crowd when it
        starts (`LivePace.smooth`), and each has a renderer of its own."""

        def first_only(_: LiveFrame) -> None:
            raise _Cancelled()

        one_policy_thread()
        paces = (
            [pace] if pace is None else [dataclasses.replace(pace, smooth=s) for s in (True, False)]
        )
        for each in paces:
            with contextlib.suppress(_Cancelled):
                record_on_node(request, agents, first_only, lambda: None, each)

    def stop(self, key: str) -> None:
        """Nobody follows `key` any more: its recording stops (if it is this actor's)."""
        with self._changed:
            if self._episode is not None and self._episode.key == key:
                self._episode.cancelled = True
                self._changed.notify_all()

    def follow(
        self,
        key: str,
        request: RecordingRequest,
        skip: int,
        since: int,
        pace: LivePace | None,
        jpeg_quality: int | None,
        *agents: Agent,
    ) -> Iterator[tuple[str, Any]]:
        """``("frame", LiveFrame)`` for each frame of `request` (its `key`) from number `since`
        on (or the oldest kept), its picture a JPEG of `jpeg_quality` (None: the pixels), then
        ``("recording", Recording)``; a stream of another episode
        than the one recorded starts it, from frame `skip` on (the other one stops), paced by
        `pace` (`record_on_node`; None: every frame, as fast as the node draws them). The
        recording's error, if any, is raised here."""
        with self._changed:
            episode = self._episode
            if episode is None or episode.key != key or episode.cancelled:
                if episode is not None:
                    episode.cancelled = True
                    self._changed.notify_all()
                episode = self._episode = _Episode(key, skip)
                threading.Thread(
                    target=self._record,
                    args=(episode, request, agents, skip, pace),
                    name="paretoscope-cluster-recording",
                    daemon=True,
                ).start()
        position = since
        whole_sent = False
        while True:
            with self._changed:
                self._changed.wait_for(functools.partial(self._news, episode, position))
                if episode.cancelled:
                    return
                ready = [frame for frame in episode.frames if frame.index >= position]
                outcome = dict(episode.outcome) if not ready else {}
            for frame in ready:
                yield "frame", _as_sent(frame, jpeg_quality, whole_sent)
                whole_sent = whole_sent or frame.episode is not None
                position = frame.index + 1
                with self._changed:
                    if frame.index > episode.taken:
                        episode.taken = frame.index
                        self._changed.notify_all()
            if outcome:
                if "error" in outcome:
                    raise outcome["error"]
                yield "recording", outcome["recording"]
                return

    @staticmethod
    def _news(episode: _Episode, position: int) -> bool:
        """Whether `episode` has a frame numbered `position` or later, or has ended."""
        frames = episode.frames
        newer = bool(frames) and frames[-1].index >= position
        return episode.cancelled or bool(episode.outcome) or newer

    def _record(
        self,
        episode: _Episode,
        request: RecordingRequest,
        agents: Sequence[Agent],
        skip: int,
        pace: LivePace | None,
    ) -> None:
        def keep(frame: LiveFrame) -> None:
            with self._changed:
                if frame.index >= skip:
                    # Counted in frames kept, not frame numbers: a paced recording that fell
                    # behind skips ahead, past any number of frames nobody can take.
                    self._changed.wait_for(
                        lambda: episode.cancelled or episode.ahead() < FRAMES_AHEAD
                    )
                if episode.cancelled:
                    raise _Cancelled()
                if frame.index >= skip:
                    episode.frames.append(frame)
                    self._changed.notify_all()

        def check() -> None:
            if episode.cancelled:
                raise _Cancelled()

        one_policy_thread()  # the renderer needs the cores (per thread: OpenMP's count is)

        outcome: dict[str, Any]
        try:
            outcome = {"recording": record_on_node(request, agents, keep, check, pace, skip)}
        except _Cancelled:
            return
        except BaseException as error:  # raised in each stream
            outcome = {"error": error}
        with self._changed:
            episode.outcome = outcome
            self._changed.notify_all()


def _as_sent(frame: LiveFrame, quality: int | None, whole_sent: bool) -> LiveFrame:
    """`frame` as a stream sends it: its picture a JPEG of `quality` (None: as it is), and the
    episode's frame steps once, packed (`packed_steps`), not again once they were sent
    (`ClusterRecorders.record` puts them back: sent with every frame, unpickling their
    thousands of arrays was most of a relaying server's work)."""
    changes: dict[str, Any] = {}
    if quality is not None and isinstance(frame.image, np.ndarray):
        changes["image"] = jpeg_bytes(frame.image, quality)
    if frame.episode is not None:
        changes["episode"] = None if whole_sent else packed(frame.episode)
    return dataclasses.replace(frame, **changes) if changes else frame


def record_on_node(
    request: RecordingRequest,
    agents: Sequence[Agent],
    on_frame: Callable[[LiveFrame], None],
    check: Callable[[], None],
    pace: LivePace | None,
    first: int = 0,
) -> Recording:
    """`request` recorded on this node: paced by `pace` where the request can be (a single
    episode of an env MuJoCo draws, as a server paces its own), from frame `first` (a stream
    resumed there: the frames before it are simulated, not drawn, and the video holds the
    resumed frame's picture over them, as a paced stream holds the frames it skips); else
    every frame at once (`on_frame` sees them all)."""
    record_live = getattr(request, "record_live", None)
    if pace is None or record_live is None or get_spec(request.env_id).camera is None:
        return request.record(agents, on_frame)
    # This actor's one stream, its pages' rate the relaying server's (`shown_rate` of one
    # stream is the budget itself, within the display's bounds).
    gate = FrameGate(FrameScheduler(1, time.monotonic, budget=lambda: pace.shown_rate))
    recording: Recording = record_live(
        agents, gate, on_frame, check, smooth=pace.smooth, first=first
    )
    return recording


def _kill(actor: Any) -> None:
    import ray

    with contextlib.suppress(Exception):  # already gone
        ray.kill(actor)


class _Started:
    """An actor the registry started, and the node it runs on once it has answered (it is up
    then: a process's start is behind it)."""

    def __init__(self, handle: Any, away_from: str | None = None) -> None:
        self.handle = handle
        self.answer = handle.node.remote()
        self.away_from = away_from  # the node it was started away from, if any
        self.warmed: set[tuple[str, int]] = set()  # the (env, size) it has drawn
        # Its answer, once come (asked of Ray until then: the registry looks often).
        self._node: str | None = None
        self._died = False

    def node(self) -> str | None:
        """Its node, once it has answered (without waiting); None before, or when it died
        before answering."""
        self._look()
        return self._node

    def dead(self) -> bool:
        """Whether it died before answering (without waiting)."""
        self._look()
        return self._died

    def _look(self) -> None:
        if self._node is not None or self._died:
            return
        ray = import_ray()
        ready, _ = ray.wait([self.answer], timeout=0)
        if ready:
            self._node = _answered(self.answer)
            self._died = self._node is None


def spares_short(
    busy: Sequence[str], waiting: Sequence[tuple[str | None, str | None]], nodes: Sequence[str]
) -> dict[str, int]:
    """For each worker node with episodes (`busy`: each episode's node), how many more waiting
    actors off it the registry needs so that, were it lost, each of its episodes would go on
    at once with one of them rather than wait seconds for a new process. `waiting`: each
    waiting actor's node (None while it starts) and the node it was started away from (None:
    anywhere). Only where another of the live worker `nodes` could hold them."""
    short = {}
    for node, episodes in collections.Counter(busy).items():
        if any(other != node for other in nodes):
            covered = sum(
                where != node if where is not None else away == node for where, away in waiting
            )
            if episodes > covered:
                short[node] = episodes - covered
    return short


def _worker_nodes() -> list[str]:
    """The cluster's live worker nodes (those that declare cores: not the head)."""
    ray = import_ray()
    return [
        node["NodeID"]
        for node in ray.nodes()
        if node["Alive"] and node["Resources"].get("CPU", 0.0) > 0
    ]


def _answered(answer: Any) -> str | None:
    """An actor's answer to ``node`` if it has come (without waiting), else None (also when it
    died before answering)."""
    ray = import_ray()
    ready, _ = ray.wait([answer], timeout=0)
    if not ready:
        return None
    try:
        node: str = ray.get(answer)
    except Exception:  # noqa: BLE001 - an actor that died before answering
        return None
    return node


def _node_of(known: str | None, answer: Any) -> str | None:
    """An actor's node: `known`, else its `answer` to ``node`` if it has come."""
    return known if known is not None or answer is None else _answered(answer)


class _Entry:
    """An episode being recorded: its actor (of a generation: the number of its start) and
    the streams following it."""

    def __init__(self, generation: int, actor: _Started) -> None:
        self.generation = generation
        self.actor = actor
        self.streams = 1


class _Registry:
    """The cluster's one list of the episodes being recorded, by key: which actor records each,
    and how many streams follow it (from every dashboard server using the cluster), and the
    actors waiting for an episode. A plain actor: its calls run one at a time, so two servers
    asking for one episode at once get one actor. It starts the actors itself (it owns them:
    they outlive any one server): the next episode's actor in a thread of its own, since
    starting one waits for the cluster's control service (seconds on a busy cluster), which no
    other stream's `join` should wait for."""

    def __init__(self) -> None:
        ray = import_ray()
        self._class = ray.remote(
            num_cpus=RECORDER_CPUS, max_restarts=0, max_concurrency=MOST_STREAMS
        )(_RecordingActor)
        self._entries: dict[str, _Entry] = {}
        self._generations = 0
        self._turns = itertools.count()  # the nodes given an actor beyond the cluster's cores
        free = int(ray.available_resources().get("CPU", 0.0) // RECORDER_CPUS)
        self._idle = [self._start() for _ in range(max(1, min(free, MOST_WAITING)))]
        # What the starter thread does next: actors to start (each away from a node, or
        # anywhere: None), actors to kill.
        self._changed = threading.Condition()
        self._to_start: list[str | None] = []
        self._to_kill: list[Any] = []
        # The last episode a stream asked for (its request, pace and agents): what the waiting
        # actors draw a first frame of, once up.
        self._example: tuple[Any, ...] | None = None
        threading.Thread(target=self._starter, name="paretoscope-starter", daemon=True).start()

    def _start(self, avoid: str | None = None) -> _Started:
        """A new actor, holding its cores; on a cluster whose cores are all held (or away from
        the node `avoid`, which lost an actor: Ray may not know yet that it died), one holding
        none, on the worker node next in turn: the node's episodes share its cores, each drawn
        more slowly, rather than one waiting for another to end."""
        ray = import_ray()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if avoid is None and ray.available_resources().get("CPU", 0.0) >= RECORDER_CPUS:
            return _Started(self._class.remote())
        nodes = sorted(node for node in _worker_nodes() if node != avoid)
        if not nodes:  # no worker node at all: the actor waits for one to join
            return _Started(self._class.remote())
        # Held to that node: a fallback could be the head, which declares no cores to draw on.
        where = NodeAffinitySchedulingStrategy(nodes[next(self._turns) % len(nodes)], soft=False)
        handle = self._class.options(num_cpus=0, scheduling_strategy=where).remote()
        return _Started(handle, away_from=avoid)

    def _starter(self) -> None:
        """The registry's second thread: starts and kills actors when `join` asks, keeps
        spare actors for a node's loss, and has each waiting actor warm itself as soon as it
        is up (not at the next `join`: a room's first moves would wait for every actor warming
        at once)."""
        while True:
            # Asked of the cluster's control service outside the lock, which `join` waits for.
            nodes = _worker_nodes() if self._entries else []
            with self._changed:
                self._changed.wait_for(
                    lambda: bool(self._to_start or self._to_kill), timeout=WARM_LOOK_SECONDS
                )
                self._warm_idle()
                avoids, self._to_start = self._to_start + self._spares(nodes), []
                doomed, self._to_kill = self._to_kill, []
            for handle in doomed:
                _kill(handle)
            started = [self._start(avoid) for avoid in avoids]
            with self._changed:
                self._idle += started

    def _spares(self, nodes: list[str]) -> list[str | None]:
        """The nodes to start a waiting actor away from, one for each spare missing for a
        node's loss (`spares_short`) on the worker `nodes`, within `MOST_WAITING`."""
        busy = self._episode_nodes()
        room = MOST_WAITING - len(self._idle) - len(self._to_start)
        if not busy or room <= 0:
            return []
        waiting = [(actor.node(), actor.away_from) for actor in self._idle]
        short = spares_short(busy, waiting, nodes)
        avoids: list[str | None] = [node for node, count in short.items() for _ in range(count)]
        return avoids[:room]

    def _episode_nodes(self) -> list[str]:
        """The node of each episode being recorded, where its actor has said."""
        return [
            node for entry in self._entries.values() if (node := entry.actor.node()) is not None
        ]

    def join(
        self,
        key: str,
        stale: int | None,
        lost_node: str | None,
        example: tuple[Any, ...] | None = None,
    ) -> tuple[int, Any, bool, str | None]:
        """The actor recording `key` (and its generation), followed once more; when none is, or
        when the one known is `stale` (lost on `lost_node`, or where it said it ran when it
        started: it is stopped), a waiting one that is up (elsewhere), else one that is
        starting (or a new one). The flag says whether the actor is up (its first frame comes
        without a process's start); last, its node, if it has said. `example` (the request,
        its pace and its agents) is what the waiting actors warm themselves with
        (`_RecordingActor.warm`), each once per env and size."""
        with self._changed:
            if example is not None:
                self._example = example
            entry = self._entries.get(key)
            if entry is not None and entry.generation != stale:
                entry.streams += 1
                return entry.generation, entry.actor.handle, True, entry.actor.node()
            doomed = [] if entry is None else [entry.actor]
            if entry is not None and lost_node is None:  # where it said it ran when it started
                lost_node = entry.actor.node()
            if lost_node is not None:  # the actors that waited there died with it
                doomed += [waiting for waiting in self._idle if waiting.node() == lost_node]
            doomed += [waiting for waiting in self._idle if waiting.dead()]
            self._idle = [waiting for waiting in self._idle if waiting not in doomed]
            self._to_kill += [actor.handle for actor in doomed]
            ready = [waiting for waiting in self._idle if waiting.node() is not None]
            actor: _Started | None
            if ready:  # on the node with the fewest episodes: the load and the spares spread
                load: collections.Counter[str | None] = collections.Counter(self._episode_nodes())
                actor = min(ready, key=lambda waiting: load[waiting.node()])
            else:  # one starting (after a loss, away from the node lost): sooner up than new
                starting = [
                    waiting
                    for waiting in self._idle
                    if entry is None or (lost_node is not None and waiting.away_from == lost_node)
                ]
                actor = starting[0] if starting else None
            if actor is not None:
                self._idle.remove(actor)
            if not self._idle:
                self._to_start.append(None)  # warm for the next episode
            self._warm_idle()
            self._changed.notify_all()
        if actor is None:  # after a loss, never one that may have died with it
            actor = self._start(avoid=lost_node)
        with self._changed:  # the starter thread counts the episodes' nodes
            self._generations += 1
            self._entries[key] = _Entry(self._generations, actor)
        return self._generations, actor.handle, actor in ready, actor.node()

    def _warm_idle(self) -> None:
        """Each waiting actor that is up draws a first frame of the last example's env and
        size, once."""
        if self._example is None:
            return
        request, pace, *agents = self._example
        drawn = (request.env_id, int(getattr(request, "size", 0)))
        for waiting in self._idle:
            if drawn not in waiting.warmed and waiting.node() is not None:
                waiting.warmed.add(drawn)
                waiting.handle.warm.remote(request, pace, *agents)

    def leave(self, key: str, generation: int) -> None:
        """One stream of `key`'s actor of `generation` ended; after the last one the actor
        stops recording it and waits for another episode."""
        with self._changed:
            entry = self._entries.get(key)
            if entry is None or entry.generation != generation:
                return  # an actor replaced since
            entry.streams -= 1
            if entry.streams:
                return
            del self._entries[key]
            entry.actor.handle.stop.remote(key)
            self._idle.append(entry.actor)

    def recording(self) -> dict[str, int]:
        """Each episode being recorded now, and its streams."""
        return {key: entry.streams for key, entry in self._entries.items()}

    def waiting(self) -> list[str | None]:
        """The node of each actor waiting for an episode (None: still starting)."""
        with self._changed:
            return [actor.node() for actor in self._idle]


class _Stalled(Exception):
    """No frame came from an actor within its patience: treated as an actor lost."""


class ClusterRecorders:
    """Records requests on the Ray cluster at `address` (``auto``, ``HOST:PORT``; None: a local
    Ray for this process): each episode by one actor, shared by every stream of it from any
    server.

    A node that dies is declared dead by Ray only after its heartbeats are missed (seconds), so
    a stream also asks its actor whether it is there when no frame comes for `stall` seconds
    (from an actor started before, which only loads its agent and env for its first frame), or
    `first_patience` seconds before the first frame of a new actor (its process starts): an
    actor that does not answer within `PING_SECONDS` counts lost. One that answers only draws
    slowly, and is waited for (at most `first_patience` seconds for any one frame)."""

    def __init__(
        self,
        address: str | None,
        stall: float = 1.0,
        first_patience: float = 60.0,
    ) -> None:
        self._ray, _ = connect(address)  # kept for the process: never ended here
        self._registry_class = self._ray.remote(num_cpus=0, max_restarts=0)(_Registry)
        self._registry: Any = None
        self._stall = stall
        self._first_patience = first_patience
        self._lock = threading.Lock()
        # Agents put in the object store, by identity and fingerprint (the agent kept with its
        # reference: its id is not reused meanwhile), the most recently used last.
        self._agents: collections.OrderedDict[tuple[int, str], tuple[Agent, Any]] = (
            collections.OrderedDict()
        )
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

    def recording(self) -> dict[str, int]:
        """The episodes being recorded on the cluster now (by any server), by key, and how many
        streams follow each."""
        found: dict[str, int] = self._ray.get(self._registry_actor().recording.remote())
        return found

    def waiting(self) -> list[str | None]:
        """The node of each actor waiting for an episode on the cluster now (None: still
        starting): the warm ones the next episodes take, and the spares for a node's loss."""
        nodes: list[str | None] = self._ray.get(self._registry_actor().waiting.remote())
        return nodes

    def _registry_actor(self, renew: bool = False) -> Any:
        """The cluster's registry, started by the first server that needs it (on the head
        node, which lives as long as the cluster; detached: no server owns it)."""
        with self._lock:
            if self._registry is None or renew:
                self._registry = self._registry_class.options(
                    name=REGISTRY_NAME,
                    namespace=NAMESPACE,
                    get_if_exists=True,
                    lifetime="detached",
                    resources={HEAD_NODE_RESOURCE: 0.001},
                ).remote()
            return self._registry

    def _join(self, key: str, *asked: Any) -> tuple[int, Any, bool, str | None]:
        """The registry's `join` for `key` (and the rest of its arguments)."""
        try:
            joined: tuple[int, Any, bool, str | None] = self._ray.get(
                self._registry_actor().join.remote(key, *asked)
            )
        except self._ray.exceptions.RayActorError:  # the registry was lost: a new one
            renewed = self._registry_actor(renew=True)
            joined = self._ray.get(renewed.join.remote(key, *asked))
        return joined

    def record(
        self,
        request: RecordingRequest,
        agents: Sequence[Agent],
        on_frame: Callable[[LiveFrame], None] | None = None,
        on_actor: Callable[[Any], None] | None = None,
        check: Callable[[], None] | None = None,
        pace: LivePace | None = None,
        jpeg_quality: int | None = None,
    ) -> Recording:
        """`request` recorded on the cluster (by the actor already recording it for anyone,
        else by a waiting or new one), each frame passed to `on_frame` as it arrives (in order,
        each once, however many actors were lost), the recording returned. `on_actor(actor)`
        is told each actor before it streams (to place or to watch it); `check()` is called
        while a frame is awaited. An exception from `on_frame` or `check` (a cancelled job)
        ends this stream (the recording stops if it was the last) and is raised; an error of
        the recording itself is raised as it was raised on the node. A live episode started
        here is drawn at `pace` (None: every frame, as fast as the node draws them), and so is
        the rest of an episode whose actor was lost, from the first frame not received (its
        video holds that frame's picture over the frames before it). With `jpeg_quality`,
        each frame's picture comes as a JPEG of that quality, encoded on the node (what a page
        shows: a twelfth of the bytes to move, and nothing to encode here); the recording's
        video is made from the pixels either way."""
        key = request.key()
        received = lost = 0
        whole: tuple[StepRecord, ...] | None = None  # the episode's frame steps, once sent
        generation: int | None = None
        lost_node: str | None = None  # where the last actor lost ran, if it had said
        while True:
            agent_references = self._references(request, agents)
            example = (request, pace, *agent_references)  # for the waiting actors to warm with
            generation, actor, warm, node = self._join(key, generation, lost_node, example)
            resumed = False
            stream = None
            # Where it runs: known to the registry for an actor that is up, else its answer
            # once it is up. (A dead node's actor never answers: its node, where known, is
            # looked at instead, at once.)
            answer = None if node is not None else actor.node.remote()
            where = functools.partial(_node_of, node, answer)
            try:
                if on_actor is not None:
                    on_actor(actor)
                stream = actor.follow.options(
                    num_returns="streaming", _generator_backpressure_num_objects=FRAMES_AHEAD
                ).remote(key, request, received, received, pace, jpeg_quality, *agent_references)
                patience = self._stall if warm else self._first_patience
                last = None
                while True:
                    kind, item = self._next(stream, patience, check, actor, where)
                    if kind == "recording":
                        recording: Recording = item
                        return recording
                    if item.episode is not None:
                        whole = item.episode
                    elif whole is not None:
                        item = dataclasses.replace(item, episode=whole)
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
                resumed = True  # the next join replaces the actor
                # Put again: a copy a lost node fetched is still listed where the object is,
                # and a fetch that tries it first waits out Ray's timeouts.
                self._forget_agents()
                lost_node = where()
            except self._task_error as error:
                raise error.cause from None  # the node's own exception, not Ray's report of it
            finally:
                with contextlib.suppress(Exception):  # an actor or a registry gone meanwhile
                    if stream is not None:
                        self._ray.cancel(stream)  # its thread on the actor ends
                    if not resumed:
                        self._registry_actor().leave.remote(key, generation)

    def _references(self, request: RecordingRequest, agents: Sequence[Agent]) -> list[Any]:
        """`agents` in the cluster's object store: put once each, while they are among the
        `AGENTS_KEPT` used last and their fingerprint in `request` is the same (an agent
        trained further in a notebook is put again)."""
        fingerprints = getattr(request, "fingerprints", None) or (
            getattr(request, "fingerprint", None),
        )
        if len(fingerprints) != len(agents) or not all(fingerprints):
            return [self._ray.put(agent) for agent in agents]
        references = []
        with self._lock:
            for agent, fingerprint in zip(agents, fingerprints, strict=True):
                key = (id(agent), str(fingerprint))
                kept = self._agents.pop(key, None) or (agent, self._ray.put(agent))
                self._agents[key] = kept
                references.append(kept[1])
            while len(self._agents) > AGENTS_KEPT:
                self._agents.popitem(last=False)
        return references

    def _forget_agents(self) -> None:
        with self._lock:
            self._agents.clear()

    def _next(
        self,
        stream: Any,
        patience: float,
        check: Callable[[], None] | None,
        actor: Any,
        where: Callable[[], str | None],
    ) -> tuple[str, Any]:
        """The stream's next item, waited for `patience` seconds, then for as long as `actor`
        is there (`_there`), at most `first_patience` seconds in all; `_Stalled` past it, its
        fetch included: a frame in a dead node's object store never comes. Waited for in
        `ray.wait`, which returns as the item comes (polling the stream every 10 ms cost the
        server 27 ms of CPU a second per paced stream, this wait about half)."""
        started = time.monotonic()
        deadline = started + patience
        item = None  # the next item's reference, once the stream has one
        while True:
            if item is None:
                wait = min(WAIT_SECONDS, max(0.0, deadline - time.monotonic()))
                ready, _ = self._ray.wait([stream], timeout=wait, fetch_local=False)
                if ready:
                    try:
                        item = next(stream)
                    except StopIteration:
                        raise _Stalled() from None  # ended without its recording
            # Fetched while it is waited for: a frame in a busy node's object store may take its
            # time, one in a dead node's never comes.
            if item is not None:
                left = max(WAIT_SECONDS, deadline - time.monotonic())
                with contextlib.suppress(self._ray.exceptions.GetTimeoutError):
                    got: tuple[str, Any] = self._ray.get(item, timeout=left)
                    return got
            if check is not None:
                check()
            now = time.monotonic()
            if now > deadline:
                if now - started > self._first_patience:
                    raise _Stalled()
                if not self._there(actor, where()):
                    raise _Stalled()
                deadline = time.monotonic() + patience

    def _there(self, actor: Any, node: str | None) -> bool:
        """Whether `actor`, which sent nothing within its stream's patience, is still there.
        Where its `node` is known, whether the node's raylet takes a connection: the machine's
        kernel answers that however busy the node is (asking the actor itself made actors too
        busy drawing to answer in time count lost, and their episodes start again elsewhere,
        on the same busy cores), and a node that died refuses it at once or, its machine gone,
        stays silent. An actor that died on a live node is reported by Ray itself, in its
        stream. Where the node is not known (the actor never answered), whether the actor
        answers a question within `PING_SECONDS`."""
        address = None if node is None else self._node_address(node)
        if address is not None:
            return _listens(address)
        try:
            self._ray.get(actor.node.remote(), timeout=PING_SECONDS)
        except Exception:  # noqa: BLE001 - any failure to answer: not there
            return False
        return True

    def _node_address(self, node_id: str) -> tuple[str, int] | None:
        """The address of the raylet of the node `node_id`, if the cluster knows the node."""
        for node in self._ray.nodes():
            if node.get("NodeID") == node_id:
                host, port = node.get("NodeManagerAddress"), node.get("NodeManagerPort")
                return (str(host), int(port)) if host and port else None
        return None


def _listens(address: tuple[str, int]) -> bool:
    """Whether something takes a connection at `address` within `PING_SECONDS`."""
    try:
        with socket.create_connection(address, timeout=PING_SECONDS):
            return True
    except OSError:
        return False
