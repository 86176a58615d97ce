"""A tour's frames: for each stop on a path of preferences, the start of that preference's
episode beside the front panel, where the point glides from the previous stop's return to
this one's. `paretoscope.recordings.tour` turns them into a recording."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.envs.spec import EnvSpec
from paretoscope.render.frames import FrameRecord, stream_frames
from paretoscope.render.front_panel import FrontPanel
from paretoscope.video import draw_caption, tile_frames

# Share of a stop's frames during which the point moves to the stop's return.
MOVE_FRACTION = 0.3


def describe_preference(preference: Sequence[float] | np.ndarray, names: Sequence[str]) -> str:
    """A preference in plain words: "mostly run (80% run, 20% energy)", "all energy (100%
    energy)", "balanced (50% run, 50% energy)"."""
    shares = [round(100 * float(value)) for value in preference]
    parts = ", ".join(f"{share}% {name}" for share, name in zip(shares, names, strict=True))
    ranked = sorted(zip(shares, names, strict=True), reverse=True)
    top, name = ranked[0]
    if top >= 100:
        words = f"all {name}"
    elif len(ranked) > 1 and top - ranked[1][0] <= 10:
        words = "balanced"
    elif top >= 60:
        words = f"mostly {name}"
    else:
        words = f"leaning to {name}"
    return f"{words} ({parts})"


def stop_label(
    index: int, count: int, preference: Sequence[float] | np.ndarray, names: Sequence[str]
) -> str:
    """A stop named in words: "stop 3 of 11: mostly run (80% run, 20% energy)"."""
    return f"stop {index + 1} of {count}: {describe_preference(preference, names)}"


def clock(seconds: float) -> str:
    """Seconds as a clock reading: 2.3 -> "0:02", 75 -> "1:15"."""
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def tour_caption(spec: EnvSpec, frame: FrameRecord, index: int, count: int) -> tuple[str, ...]:
    """A tour frame's caption in plain words, for an audience: which stop, what the agent aims
    for (if it reads a target), its score so far, and how far into the episode it is."""
    names = spec.objective_names
    lines = [stop_label(index, count, frame.preference, names)]
    if frame.reads_target:
        aims = ", ".join(
            f"{name} {value:,.0f}" for name, value in zip(names, frame.target, strict=True)
        )
        lines.append(f"aiming for a score of {aims}")
    score = ", ".join(
        f"{name} {value:,.0f}"
        for name, value in zip(names, frame.record.cumulative_return, strict=True)
    )
    lines.append(f"score so far: {score}")
    elapsed = clock(frame.step * spec.dt)
    lines.append(f"{elapsed} of {clock(spec.horizon * spec.dt)}")
    return tuple(lines)


def tour_frames(
    agent: Agent,
    env_id: str,
    stops: np.ndarray,
    stop_returns: np.ndarray,
    panel: FrontPanel,
    seed: int,
    size: int,
    steps_per_stop: int,
    every: int,
    move_fraction: float = MOVE_FRACTION,
) -> Generator[tuple[int, FrameRecord, np.ndarray], None, None]:
    """(stop index, the stop's rendered step, the tiled picture) for each frame of the tour:
    the first `steps_per_stop` steps of each stop's episode, captioned, beside the panel."""
    spec = get_spec(env_id)
    frames_per_stop = max(1, -(-steps_per_stop // every))
    moving = max(1, int(frames_per_stop * move_fraction))
    previous = np.asarray(stop_returns[0], dtype=np.float64)
    trail: list[np.ndarray] = []
    for index, preference in enumerate(np.asarray(stops, dtype=np.float64)):
        destination = np.asarray(stop_returns[index], dtype=np.float64)
        frames = stream_frames(
            agent,
            env_id,
            preference,
            seed,
            every=every,
            size=(size, size),
            horizon=steps_per_stop,
            env_aspect=False,  # tiled beside the square panel: the same square
        )
        with contextlib.closing(frames):
            for count, frame in enumerate(frames):
                fraction = min(1.0, (count + 1) / moving)
                point = previous + (destination - previous) * fraction
                lines = tour_caption(spec, frame, index, len(stops))
                rollout = draw_caption(frame.frame, lines, font_size=max(12, size // 30))
                yield index, frame, tile_frames([rollout, panel.draw(point, trail)], gap=0)
        trail.append(destination)
        previous = destination
