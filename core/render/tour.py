"""A tour's frames: for each stop on a path of preferences, the start of that preference's
episode beside the front panel, where the point glides from the previous stop's return to
this one's. `paretoscope.recordings.tour` turns them into a recording."""

from __future__ import annotations

import contextlib
from collections.abc import Generator

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.envs import get_spec
from paretoscope.render.frames import FrameRecord, caption_lines, stream_frames
from paretoscope.render.front_panel import FrontPanel
from paretoscope.video import draw_caption, tile_frames

# Share of a stop's frames during which the point moves to the stop's return.
MOVE_FRACTION = 0.3


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
                rollout = draw_caption(frame.frame, caption_lines(spec, frame))
                yield index, frame, tile_frames([rollout, panel.draw(point, trail)], gap=0)
        trail.append(destination)
        previous = destination
