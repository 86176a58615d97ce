"""The settings of one rendered episode (`paretoscope render`, `paretoscope.recordings`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from paretoscope.errors import ParetoscopeError
from paretoscope.settings.fields import check_bounds, frozen, setting
from paretoscope.settings.forms import parse_size
from paretoscope.settings.limits import HORIZONS, SEEDS


@dataclass(frozen=True)
class RecordingSettings:
    """One episode as a video: its seed and length, the frames' size and rate, what they show."""

    seed: int = setting(0, "episode seed (default 0)", bounds=SEEDS)
    size: tuple[int, int] = setting(
        (480, 480), "frame size WxH (default 480x480)", parse=parse_size
    )
    every: int | None = setting(
        None,
        "render every K-th step (default: every step for discrete actions, else the fewest "
        "frames for smooth real time)",
    )
    speed: float = setting(
        1.0,
        "playback speed vs real time (default 1; discrete actions play at 30 fps at most, and "
        "a video lasts at least 3 s)",
    )
    horizon: int | None = setting(None, "steps (default: env's)", bounds=HORIZONS)
    shadows: bool = setting(False, "shadows and reflections (3-5x slower on CPU)")
    caption: bool = setting(False, "write preference, target and return on frames")

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", frozen(self.size))
        if self.every is not None and self.every < 1:
            raise ParetoscopeError(f"every: expected at least 1, got {self.every}")
        if not (math.isfinite(self.speed) and self.speed > 0):
            raise ParetoscopeError(f"speed: expected a positive number, got {self.speed}")
        check_bounds(self)
