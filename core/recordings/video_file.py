"""One episode rendered straight into a video file, as `paretoscope render` writes it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import RecordingSettings

VIDEO_SUFFIXES = (".mp4", ".gif")


@dataclass(frozen=True)
class VideoFile:
    """A written episode video: where, how many env steps it shows, at which frame rate, and
    the episode's return."""

    path: Path
    steps: int
    fps: float
    returns: np.ndarray


def check_video_path(path: str | Path, option: str = "out") -> Path:
    """`path` when it names an .mp4 or .gif file, else a ParetoscopeError naming `option`."""
    video = Path(path)
    if video.suffix.lower() not in VIDEO_SUFFIXES:
        raise ParetoscopeError(f"{option}: expected a .mp4 or .gif file name, got {video}")
    return video


def render_video_file(
    agent: Agent,
    env_id: str,
    preference: Sequence[float],
    target: Sequence[float] | None,
    settings: RecordingSettings,
    out: str | Path,
    progress: bool = True,
) -> VideoFile:
    """Roll `agent` out once at `preference` (and `target`) with `settings` and encode the
    frames as they are drawn into `out`: an H.264 MP4, or a GIF when it ends in .gif."""
    from tqdm import tqdm

    from paretoscope.envs import get_spec
    from paretoscope.render import default_every, playback_fps, stream_frames
    from paretoscope.video import encode_gif, encode_mp4

    path = check_video_path(out)
    spec = get_spec(env_id)
    every = default_every(env_id) if settings.every is None else settings.every
    fps = playback_fps(env_id, every, settings.speed)
    horizon = spec.horizon if settings.horizon is None else settings.horizon
    frames = stream_frames(
        agent,
        env_id,
        preference,
        settings.seed,
        target=target,
        every=every,
        size=settings.size,
        shadows=settings.shadows,
        caption=settings.caption,
        horizon=settings.horizon,
    )
    bar = tqdm(total=horizon, unit="step", desc="render", disable=not progress)
    last: list[Any] = []

    def frames_with_progress() -> Iterator[Any]:
        for frame in frames:
            bar.update(frame.step - (last[0].step if last else 0))
            last[:] = [frame]
            yield frame.frame

    with contextlib.closing(frames), bar:
        encode = encode_gif if path.suffix.lower() == ".gif" else encode_mp4
        encode(frames_with_progress(), fps, path)
        bar.total = last[0].step  # an episode that ended early is complete all the same
        bar.refresh()
    return VideoFile(path, int(last[0].step), fps, np.asarray(last[0].record.cumulative_return))
