"""How an episode's video plays: which steps become frames, the frame rate, and the speed in
words ("real time", "played at 1/6 speed").

Continuous-control envs (MuJoCo) play in real time: every `every`-th step is drawn, the
smallest stride whose real-time video needs at most `MAX_FPS` frames a second (HalfCheetah,
dt 0.05 s: every step at 20 fps; Hopper v5, dt 0.008 s: every 5th at 25 fps). Envs with
discrete actions (grid worlds, minecart, classic control) show every step, since each one is a
move the viewer should see: a video faster than `MAX_FPS` is slowed down to it (minecart
declares 180 steps a second, so it plays at 1/6 speed) rather than thinned. Whatever the env,
a video lasts at least `MIN_SECONDS`: the encoders (`paretoscope.video`, `min_seconds`) slow a
shorter one down to that length, so a 39-step minecart episode is 3 s, not a blink.
"""

from __future__ import annotations

import math

from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError

MAX_FPS = 30.0
MIN_SECONDS = 3.0


def default_every(env_id: str, max_fps: float = MAX_FPS) -> int:
    """The step stride of a video of `env_id`: 1 for an env with discrete actions (every step
    shown), else the smallest stride whose real-time video needs at most `max_fps`."""
    spec = get_spec(env_id)
    if spec.n_actions is not None:
        return 1
    return max(1, math.ceil(1.0 / (spec.dt * max_fps) - 1e-9))


def playback_fps(
    env_id: str, every: int = 1, speed: float = 1.0, max_fps: float = MAX_FPS
) -> float:
    """Frames per second that play every `every`-th step at `speed` x real time; for an env
    with discrete actions, at most `max_fps` (slower than asked rather than skipping steps)."""
    spec = get_spec(env_id)
    if every < 1:
        raise ParetoscopeError(f"every: expected at least 1, got {every}")
    if not (math.isfinite(speed) and speed > 0):
        raise ParetoscopeError(f"speed: expected a positive number, got {speed}")
    fps = speed / (spec.dt * every)
    return min(fps, max_fps) if spec.n_actions is not None else fps


def playback_speed(env_id: str, every: int, fps: float) -> float:
    """How fast a video of every `every`-th step at `fps` plays, as a multiple of real time."""
    return fps * get_spec(env_id).dt * every


def speed_words(speed: float) -> str:
    """`speed` (a multiple of real time) for people: "real time", "played at 1/6 speed",
    "played at about 1/14 speed", "played at 0.6x speed", "played at 2x speed"."""
    if not (math.isfinite(speed) and speed > 0):
        raise ParetoscopeError(f"speed: expected a positive number, got {speed}")
    if abs(speed - 1.0) < 0.01:
        return "real time"
    if speed < 0.5:
        slower = 1.0 / speed
        whole = round(slower)
        about = "" if abs(slower - whole) <= 0.02 * slower else "about "
        return f"played at {about}1/{whole} speed"
    return f"played at {speed:.2g}x speed"
