"""Rollouts as frames: a single rollout's stream of steps, with a rendered frame every k steps.

`stream_frames` drives `paretoscope.rollout.stream_rollout` and renders each chosen step from the
live
simulation before the rollout advances (MuJoCo tasks with paretoscope's renderer, in a thread of
its own; every other env through its own `render()`, fitted to the same size by
`paretoscope.render.env_frames`), so frames arrive while the episode runs (the dashboard
shows them as they come and hands them to an encoder at the same time). The renderer lives
inside the generator: close the generator (or exhaust it) in the thread that iterates it, e.g.
with ``contextlib.closing``, to release it at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import EnvSpec, get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.render.backend import ensure_gl_backend
from paretoscope.render.env_frames import EnvFrames
from paretoscope.render.renderer import DEFAULT_SIZE, RenderThread, check_size
from paretoscope.rollout import StepRecord, stream_rollout
from paretoscope.video import LabelledFrame, draw_caption, tile_videos


@dataclass(frozen=True)
class FrameRecord:
    """A rendered step: the step record (without the live simulation) and its frame."""

    record: StepRecord  # model and data are None: the simulation has moved on
    frame: np.ndarray  # (height, width, 3) uint8 RGB
    preference: np.ndarray  # (n_obj,) the rollout's preference
    target: np.ndarray  # (n_obj,) the initial target the agent was given
    reads_target: bool = True  # whether the agent is return-conditioned (else targets are moot)

    @property
    def step(self) -> int:
        """Env steps taken when the frame was drawn (1 after the first step)."""
        return self.record.step

    @property
    def done(self) -> bool:
        return self.record.done


def _format_vector(spec: EnvSpec, values: np.ndarray, digits: int) -> str:
    """Tab-separated cells "name value", one per objective (aligned by `draw_caption`)."""
    return "\t".join(
        f"{name} {value:.{digits}f}"
        for name, value in zip(spec.objective_names, values, strict=True)
    )


def caption_lines(spec: EnvSpec, frame: FrameRecord, title: str | None = None) -> tuple[str, ...]:
    """Caption text: title, preference, target (if the agent reads one), running return, step."""
    record = frame.record
    lines = [] if title is None else [title]
    lines.append("preference\t" + _format_vector(spec, frame.preference, 2))
    if frame.reads_target:
        lines.append("target\t" + _format_vector(spec, frame.target, 0))
    lines.append("return\t" + _format_vector(spec, record.cumulative_return, 1))
    ended = " (fell)" if spec.camera is not None else " (ended)"  # a grid world has no floor
    status = ended if record.terminated else " (diverged)" if record.diverged else ""
    lines.append(f"step {record.step}/{spec.horizon}{status}")
    return tuple(lines)


def stream_frames(
    agent: Agent,
    env_id: str,
    preference: Sequence[float] | np.ndarray,
    seed: int,
    target: Sequence[float] | np.ndarray | None = None,
    every: int = 1,
    size: tuple[int, int] = DEFAULT_SIZE,
    shadows: bool = False,
    caption: bool = False,
    horizon: int | None = None,
    env_aspect: bool = True,
    smooth: bool = True,
) -> Generator[FrameRecord, None, None]:
    """One episode, yielding a `FrameRecord` for every `every`-th step and for the last step.

    `size` is (width, height); an env that draws itself keeps its picture's aspect ratio at
    about that area (`paretoscope.render.env_frames.own_aspect_size`) unless not `env_aspect`
    (its picture then fits inside `size`, between bars); a MuJoCo env's edges are anti-aliased
    unless not `smooth` (`FrameRenderer`). Frames come as they are rendered.
    Raises `RenderingUnavailable` before the first step when no GL backend works.
    """
    spec = get_spec(env_id)
    if every < 1:
        raise ParetoscopeError(f"every: expected at least 1, got {every}")
    size = check_size(size)
    if spec.camera is not None:
        ensure_gl_backend()
    preference_vector = np.asarray(preference, dtype=np.float64).reshape(-1)
    target_vector = None if target is None else np.asarray(target, dtype=np.float64)
    reads_target = bool(agent.spec.conditioning.return_conditioned)
    renderer: RenderThread | None = None
    drawn_by_env: EnvFrames | None = None
    # Frames being drawn while the rollout goes on: (record, frame or its future), in order.
    pending: deque[tuple[StepRecord, Future[np.ndarray] | np.ndarray]] = deque()
    last_frame: np.ndarray | None = None

    def finish(record: StepRecord, drawn: Future[np.ndarray] | np.ndarray) -> FrameRecord:
        nonlocal last_frame
        frame = drawn.result() if isinstance(drawn, Future) else drawn
        last_frame = frame
        frame_record = FrameRecord(
            record,
            frame,
            preference_vector,
            record.remaining_target + record.cumulative_return,
            reads_target,
        )
        if caption:
            lines = caption_lines(spec, frame_record)
            frame_record = replace(frame_record, frame=draw_caption(frame, lines))
        return frame_record

    try:
        for record in stream_rollout(
            agent, env_id, preference_vector, seed, target_vector, horizon, render=True
        ):
            if record.step % every and not record.done:
                continue
            plain_record = replace(record, model=None, data=None, env=None)
            if record.env is not None:  # an env that draws itself, here and now
                if drawn_by_env is None:
                    # The env's own aspect ratio: a wide picture is not a strip between bars.
                    drawn_by_env = EnvFrames(record.env, size, own_aspect=env_aspect)
                lines = (f"step {record.step}", f"observation {record.observation}")
                pending.append((plain_record, drawn_by_env.frame(lines)))
            elif record.model is None or record.data is None or spec.camera is None:
                # A non-finite action stops the episode before the step: hold the last frame.
                while pending:
                    yield finish(*pending.popleft())
                if last_frame is not None:
                    yield finish(plain_record, last_frame)
                return
            else:
                if renderer is None:
                    renderer = RenderThread(record.model, spec.camera, size, shadows, smooth=smooth)
                pending.append((plain_record, renderer.submit(record.data)))
            # One frame is drawn while the caller uses the previous one and the rollout goes on.
            while len(pending) > 1:
                yield finish(*pending.popleft())
        while pending:
            yield finish(*pending.popleft())
    finally:
        if renderer is not None:
            renderer.close()


def side_by_side(
    streams: Sequence[Iterable[FrameRecord]],
    titles: Sequence[str],
    env_id: str,
    columns: int | None = None,
) -> Generator[np.ndarray, None, None]:
    """N rollouts tiled into one video, each labelled (title, preference, running return).

    The streams (from `stream_frames` with the same `size` and `every`) advance in lockstep; a
    shorter episode holds its last frame and return. Yields the tiled frames as they come.
    """
    if len(titles) != len(streams):
        raise ParetoscopeError(f"titles: expected {len(streams)} titles, got {len(titles)}")
    spec = get_spec(env_id)

    def labelled(stream: Iterable[FrameRecord], title: str) -> Iterator[LabelledFrame]:
        for frame in stream:
            yield LabelledFrame(frame.frame, caption_lines(spec, frame, title))

    iterators = [iter(stream) for stream in streams]
    try:
        yield from tile_videos(
            [labelled(stream, title) for stream, title in zip(iterators, titles, strict=True)],
            columns,
        )
    finally:
        for iterator in iterators:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
