"""A single episode recorded *live*: drawn as fast as its viewer watches, never faster, and
fairly beside every other viewer's (`paretoscope.pacing`).

The simulation and the policy run ahead of the pictures (they are cheaper; a MuJoCo episode to
its end, so its returns are known while it plays, beyond its next second within a share of a
core that every live stream's simulation shares, `paretoscope.pacing.share`), keeping each frame
step
(`paretoscope.render.deferred`); a frame is drawn only when the server's scheduler
grants it: the first at once, then each about when the viewer's playback reaches it. A stream
that falls behind is granted the frame due now, skipping the ones between (fewer frames, never
a frozen picture). The video is made from the stream as it plays, so it is ready when the last
frame is shown: a frame the stream skipped holds the picture before it (its rewards are the
step's own), and the recording's meta counts them (``held_frames``). The recording is the same
episode, with the same key, as `EpisodeRequest.record` makes (its pictures drawn from the kept
states, see `paretoscope.render.deferred`).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Callable, Generator
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.pacing.display import smooth_frames
from paretoscope.pacing.gate import FrameGate
from paretoscope.pacing.priority import STREAMING_NICENESS, lower_this_thread
from paretoscope.pacing.scheduler import Kind
from paretoscope.pacing.share import CoreShare, simulation_share
from paretoscope.recordings.lanes import FrameCallback, LiveFrame, RecordingWriter, playback_rate
from paretoscope.recordings.recording import Recording
from paretoscope.render.backend import ensure_gl_backend
from paretoscope.render.deferred import FrameSource, frame_source
from paretoscope.rollout import StepRecord, stream_rollout

# Seconds of playback the simulation may run ahead of the pictures shown, for an env that
# draws itself (it keeps ~300 kB a picture): enough to skip ahead when its stream falls behind.
# A MuJoCo episode keeps a physics state a frame (~1 kB), so its simulation runs on to the end
# (500 HalfCheetah steps with the default MORvS: ~0.23 s of Python, within half a core shared
# by the live streams beyond their next second, see `UNMETERED_SECONDS`), and its returns are
# known before its second second plays.
SIMULATE_AHEAD_SECONDS = 2.0

# Seconds of playback ahead of the frame due now that a live stream simulates at once; beyond
# them, its simulation runs within the process's share (`paretoscope.pacing.share`). More than the
# scheduler's lead and a thinned stream's stride: its next frame is never kept waiting.
UNMETERED_SECONDS = 1.0

# Each recording is its own stream, even of a key being recorded already (a viewer who left
# and came back may start one while the old one winds down).
_streams = itertools.count()


class PacedEpisode(Protocol):
    """What a paced recording reads of its request (`paretoscope.recordings.EpisodeRequest`)."""

    @property
    def env_id(self) -> str: ...
    @property
    def preference(self) -> tuple[float, ...]: ...
    @property
    def target(self) -> tuple[float, ...] | None: ...
    @property
    def seed(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def horizon(self) -> int: ...
    @property
    def every(self) -> int: ...
    @property
    def label(self) -> str: ...

    def key(self) -> str: ...

    def meta(self) -> dict[str, Any]: ...


class _Kept:
    """The frame steps of one episode as the simulation passes them."""

    def __init__(
        self,
        rollout: Generator[StepRecord, None, None],
        every: int,
        spec: Any,
        size: int,
        warm: bool,
        smooth: bool,
    ) -> None:
        self._rollout = rollout
        self._warm = warm
        self._smooth = smooth
        self._every = every
        self._spec = spec
        self._size = (size, size)
        self.records: list[StepRecord] = []
        self.kept: list[Any] = []
        self.source: FrameSource | None = None
        self.last: int | None = None  # the last frame's index, once the episode has ended

    @property
    def ready(self) -> int:
        return len(self.records) - 1

    def advance(self) -> None:
        """Simulate up to the next frame step and keep it (or learn that the episode ended)."""
        for record in self._rollout:
            if record.step % self._every and not record.done:
                continue
            plain = replace(record, model=None, data=None, env=None)
            if self.source is None:
                self.source = frame_source(record, self._spec, self._size, self._warm, self._smooth)
            drawable = record.env is not None or record.data is not None
            if self.source is None or not (drawable or self.kept):
                self.last = len(self.records) - 1  # nothing to draw, not even a last picture
                return
            # A step that stopped before it was taken (a non-finite action) has no state of its
            # own: it shows the last picture again.
            self.kept.append(self.source.keep(record) if drawable else self.kept[-1])
            self.records.append(plain)
            if record.done or not drawable:
                self.last = self.ready
            return
        self.last = self.ready

    def draw(self, index: int) -> np.ndarray:
        assert self.source is not None
        return self.source.draw(self.kept[index])

    def forget(self, index: int) -> None:
        """Frame `index` will not be drawn again: drop a kept picture (states are tiny)."""
        if self.source is not None and not self.source.skippable:
            self.kept[index] = None


def record_paced(
    request: PacedEpisode,
    agent: Agent,
    gate: FrameGate,
    on_frame: FrameCallback | None,
    check: Callable[[], None],
    kind: Kind = Kind.LIVE,
    share: CoreShare | None = None,
    smooth: bool | None = None,
    first: int = 0,
) -> Recording:
    """`request`'s episode, each frame drawn when `gate` grants it, shown through `on_frame`.
    `check` raises once nobody watches (the stream stops there). A `Kind.IDLE` recording draws
    every frame, in order, whenever no one else streams. Raises `RenderingUnavailable` before
    the first step when nothing renders. A live stream's simulation beyond its next second of
    playback runs within `share` (the process's `simulation_share()` by default), with all
    others'. `smooth`: whether its frames are anti-aliased (None: idle work's are, and a live
    stream's unless it starts in a crowd). `first`: the first frame drawn and shown (a stream
    resumed mid-episode: the frames before it are simulated, not drawn, and the video holds
    its picture over them)."""
    env_id, every, size, key = request.env_id, request.every, request.size, request.key()
    preference = np.asarray(request.preference, dtype=np.float64)
    target = None if request.target is None else np.asarray(request.target, dtype=np.float64)
    spec = get_spec(env_id)
    if spec.camera is not None:
        ensure_gl_backend()
    fps = playback_rate(env_id, every, render=True)
    assert fps is not None
    rollout = stream_rollout(
        agent, env_id, preference, request.seed, target, request.horizon, render=True
    )
    # Idle work draws with a renderer of its own, made in (and as low-priority as) its thread,
    # anti-aliased unless asked; a live stream that starts in a crowd draws cheaper frames
    # (`smooth_frames`).
    idle = kind is Kind.IDLE
    if smooth is None:
        smooth = idle or smooth_frames(gate.live_streams())
    metered = kind is Kind.LIVE
    share = share or simulation_share()
    unmetered = math.ceil(UNMETERED_SECONDS * fps)  # frames
    episode = _Kept(rollout, every, spec, size, warm=not idle, smooth=smooth)
    encoded = 0  # frames given to the video, which takes them in order
    held = 0  # of those, frames the stream skipped: they repeat the picture before them
    with (
        RecordingWriter((request.label,), spec.n_obj, fps) as writer,
        contextlib.closing(rollout),
        contextlib.ExitStack() as cleanup,
    ):
        episode.advance()
        if episode.source is not None:
            cleanup.callback(episode.source.close)
        stream = f"{key}#{next(_streams)}"
        skippable = kind is Kind.LIVE and episode.source is not None and episode.source.skippable
        gate.open(stream, fps, kind, skippable, first)
        cleanup.callback(gate.close, stream)
        ahead = (
            math.inf
            if episode.source is not None and episode.source.skippable
            else max(8, math.ceil(SIMULATE_AHEAD_SECONDS * fps))
        )

        previous: np.ndarray | None = None  # the last picture given to the video

        def draw(index: int) -> np.ndarray:
            nonlocal encoded, held, previous
            image = episode.draw(index)
            while encoded < index:  # skipped: the picture before holds (the first, this one)
                writer.add(image if previous is None else previous, (episode.records[encoded],))
                episode.forget(encoded)
                encoded += 1
                held += 1
            writer.add(image, (episode.records[index],))
            episode.forget(index)
            encoded += 1
            previous = image
            return image

        shown = -1
        playing = False  # its first frame shown
        whole: tuple[StepRecord, ...] | None = None  # the episode's frame steps, once simulated
        while episode.ready >= 0 and shown != episode.last:
            check()
            if episode.last is None and episode.ready < gate.playing(stream):
                episode.advance()  # late: the frame due now must exist before it is drawn
                continue
            can_simulate = episode.last is None and episode.ready - shown < ahead
            if can_simulate:
                # Beyond its next second of playback, a live stream's simulation takes its turn
                # of a core shared by every stream (`share`); the frames due soon never wait.
                beyond = metered and episode.ready >= gate.playing(stream) + unmetered
                pause = share.wait_time() if beyond else 0.0
                grant = gate.poll_within(stream, episode.ready, episode.last, pause)
                if grant is None:
                    if pause == 0.0:
                        started = time.thread_time()
                        episode.advance()
                        if beyond:
                            share.spend(time.thread_time() - started)
                    continue
            else:
                grant = gate.wait(stream, episode.ready, episode.last, check)
            image = draw(grant.index)
            gate.finish(grant)
            shown = grant.index
            if whole is None and episode.last is not None:
                whole = tuple(episode.records)
            if on_frame is not None:
                on_frame(LiveFrame(image, (episode.records[shown],), shown, whole))
            if kind is Kind.LIVE and not playing:
                # Its first frame is out: the stream only keeps its pace from here on, and
                # yields the cores to viewers' moves (`paretoscope.pacing.priority`).
                lower_this_thread(STREAMING_NICENESS)
                playing = True
        meta = {**request.meta(), "every": every}
        if held:
            meta["held_frames"] = held
        return writer.finish(meta)
