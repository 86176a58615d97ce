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
    """A written episode video: where, how many env steps and frames it shows, at which frame
    rate and speed (a multiple of real time; `speed_text` in words), and the episode's return."""

    path: Path
    steps: int
    fps: float
    returns: np.ndarray
    frames: int
    speed: float

    @property
    def speed_text(self) -> str:
        """ "real time", "played at 1/6 speed", ... (`paretoscope.render.speed_words`)."""
        from paretoscope.render.playback import speed_words

        return speed_words(self.speed)


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
    preset: str | None = None,
    crf: int | None = None,
    smooth: bool = True,
) -> VideoFile:
    """Roll `agent` out once at `preference` (and `target`) with `settings` and encode the
    frames as they are drawn into `out`: an H.264 MP4, or a GIF when it ends in .gif. An MP4's
    x264 `preset` and `crf` default to `paretoscope.video.encode_mp4`'s; without `smooth`, a
    MuJoCo env's edges are not anti-aliased (a third of the drawing time on a CPU).

    The video lasts at least `paretoscope.render.MIN_SECONDS` (a short episode is slowed
    down); `paretoscope.render.playback` says which steps are drawn and how fast they play."""
    from tqdm import tqdm

    from paretoscope.envs import get_spec
    from paretoscope.render import stream_frames
    from paretoscope.render.playback import (
        MIN_SECONDS,
        default_every,
        playback_fps,
        playback_speed,
    )
    from paretoscope.video import DEFAULT_CRF, DEFAULT_PRESET, encode_gif, encode_mp4, lasting_fps

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
        smooth=smooth,
    )
    bar = tqdm(total=horizon, unit="step", desc="render", disable=not progress)
    last: list[Any] = []
    count = [0]  # frames encoded

    def frames_with_progress() -> Iterator[Any]:
        for frame in frames:
            bar.update(frame.step - (last[0].step if last else 0))
            last[:] = [frame]
            count[0] += 1
            yield frame.frame

    with contextlib.closing(frames), bar:
        if path.suffix.lower() == ".gif":
            encode_gif(frames_with_progress(), fps, path, min_seconds=MIN_SECONDS)
        else:
            encode_mp4(
                frames_with_progress(),
                fps,
                path,
                preset=preset or DEFAULT_PRESET,
                crf=DEFAULT_CRF if crf is None else crf,
                min_seconds=MIN_SECONDS,
            )
        bar.total = last[0].step  # an episode that ended early is complete all the same
        bar.refresh()
    played_fps = lasting_fps(fps, count[0], MIN_SECONDS)  # as the encoder slowed it down
    return VideoFile(
        path,
        int(last[0].step),
        played_fps,
        np.asarray(last[0].record.cumulative_return),
        frames=count[0],
        speed=playback_speed(env_id, every, played_fps),
    )
