"""What every kind of recording shares: one agent's episode as a lane of frames, the callback
that sees each frame as it comes, and the writer that encodes the video and keeps each lane's
rewards frame by frame."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings.recording import Recording

if TYPE_CHECKING:  # mujoco comes with these: imported when a recording is made, not before
    from paretoscope.render.frames import FrameRecord
    from paretoscope.rollout import StepRecord


@dataclass(frozen=True)
class LiveFrame:
    """One recorded frame as a callback sees it, while the recording goes on."""

    # The picture the video shows (None when nothing renders); as JPEG bytes where whoever
    # asked for it shows it as one (`paretoscope.cluster.recorders`: what a node sends).
    image: np.ndarray | bytes | None
    records: tuple[StepRecord | None, ...]  # each lane's latest step (None: not started)
    index: int  # 0-based frame number
    # A live recording whose simulation ran to the episode's end before this frame was drawn:
    # the single lane's frame steps of the whole episode (its returns, known before they show).
    episode: tuple[StepRecord, ...] | None = None

    @property
    def record(self) -> StepRecord:
        """The first lane's latest step (a single episode's only lane)."""
        first = next((record for record in self.records if record is not None), None)
        if first is None:
            raise ParetoscopeError("no lane has taken a step yet")
        return first


FrameCallback = Callable[[LiveFrame], None]


def expect_agents(agents: Sequence[Agent], count: int, what: str) -> Sequence[Agent]:
    """`agents` when there are `count` of them, else a clear error."""
    if len(agents) != count:
        raise ParetoscopeError(f"{what} needs {count} agent(s), got {len(agents)}")
    return agents


def playback_rate(env_id: str, every: int, render: bool) -> float | None:
    """Frames per second of the video, None when nothing is rendered."""
    if not render:
        return None
    from paretoscope.render.playback import playback_fps

    return playback_fps(env_id, every)


def divergence_message(record: StepRecord) -> str:
    """Why an episode stopped early on a non-finite value, in the user's words."""
    if not np.isfinite(np.asarray(record.action, dtype=np.float64)).all():
        what = "the agent's action was not a finite number (NaN or infinite)"
    else:
        what = "the simulation diverged (a state or reward was not finite)"
    return f"the episode stopped at step {int(record.step)}: {what}"


def episode_lane(
    agent: Agent,
    env_id: str,
    preference: np.ndarray,
    seed: int,
    target: np.ndarray | None,
    every: int,
    size: int,
    horizon: int,
    render: bool,
) -> Generator[tuple[StepRecord, FrameRecord | None], None, None]:
    """One episode as (step record, rendered frame) pairs: every `every`-th step and the last
    when rendering, every step with no frame otherwise. Close it in the thread that iterates
    it (its renderer lives inside)."""
    if render:
        from paretoscope.render.frames import stream_frames

        frames = stream_frames(
            agent,
            env_id,
            preference,
            seed,
            target=target,
            every=every,
            size=(size, size),
            horizon=horizon,
        )
        with contextlib.closing(frames):
            for frame in frames:
                yield frame.record, frame
        return
    from paretoscope.rollout import stream_rollout

    for record in stream_rollout(agent, env_id, preference, seed, target, horizon):
        yield record, None


class RecordingWriter:
    """Frames in, a `Recording` out: encodes the video (when `fps` is given) and keeps, per lane
    and frame, the reward collected since the lane's previous frame and its step count."""

    def __init__(
        self,
        lanes: Sequence[str],
        n_obj: int,
        fps: float | None,
        on_frame: FrameCallback | None = None,
    ) -> None:
        self.lanes = tuple(lanes)
        self.n_obj = int(n_obj)
        self.fps = fps
        self.on_frame = on_frame
        self._stack = contextlib.ExitStack()
        self._encoder: Any = None
        if fps is not None:
            from paretoscope.render.playback import MIN_SECONDS
            from paretoscope.video import Mp4Encoder

            # A short episode is slowed down to last MIN_SECONDS (`self.fps` then follows).
            self._encoder = self._stack.enter_context(Mp4Encoder(fps, min_seconds=MIN_SECONDS))
        self._previous = np.zeros((len(self.lanes), self.n_obj))
        self._steps = np.zeros(len(self.lanes), dtype=np.int64)
        self._rewards: list[np.ndarray] = []
        self._frame_steps: list[np.ndarray] = []
        self._stopped: list[str] = []

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    def add(self, image: np.ndarray | None, records: Sequence[StepRecord | None]) -> None:
        """One frame: its picture (None without video) and each lane's latest step record
        (None for a lane that has not started; a lane that ended repeats its last record)."""
        if len(records) != len(self.lanes):
            raise ParetoscopeError(f"expected {len(self.lanes)} step records, got {len(records)}")
        increments = np.zeros((len(self.lanes), self.n_obj))
        for lane, record in enumerate(records):
            if record is None:
                continue
            total = np.asarray(record.cumulative_return, dtype=np.float64).reshape(self.n_obj)
            increments[lane] = total - self._previous[lane]
            self._previous[lane] = total
            self._steps[lane] = int(record.step)
            if record.diverged:
                message = divergence_message(record)
                if len(self.lanes) > 1:
                    message = f"{self.lanes[lane]}: {message}"
                if message not in self._stopped:
                    self._stopped.append(message)
        if self._encoder is not None:
            if image is None:
                raise ParetoscopeError("a rendered recording got a frame without a picture")
            self._encoder.add(image)
        self._rewards.append(increments)
        self._frame_steps.append(self._steps.copy())
        if self.on_frame is not None:
            self.on_frame(LiveFrame(image, tuple(records), len(self._rewards) - 1))

    def finish(self, meta: Mapping[str, Any], why_no_video: str | None = None) -> Recording:
        """The recording of every frame added; raises when there was none."""
        if not self._rewards:
            raise ParetoscopeError(
                "the episode stopped at step 1: the agent's action was not a finite number "
                "(NaN or infinite)"
            )
        video = b""
        if self._encoder is not None:
            video = self._encoder.finish()
            self.fps = self._encoder.fps
        extra: dict[str, Any] = {}
        if self._stopped:
            extra["stopped"] = "; ".join(self._stopped)
        if why_no_video is not None:
            extra["why"] = why_no_video
        return Recording(
            video=video,
            fps=float(self.fps) if self.fps is not None else 1.0,
            lanes=self.lanes,
            rewards=np.stack(self._rewards, axis=1),
            frame_steps=np.stack(self._frame_steps, axis=1),
            meta={**dict(meta), **extra},
        )
