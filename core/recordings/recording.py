"""A finished recording: its video and, per lane, the rewards each frame showed.

A lane is one agent's episode (a single episode has one; a side-by-side video one per agent;
a tour one per stop). Rewards are stored per lane and frame (what the lane collected since the
previous frame), so the returns a recording reports are exactly what its video showed, for
every agent and objective. On disk a recording is ``<key>.mp4`` with ``<key>.json`` beside it;
the JSON carries the video's SHA-256, so a torn or swapped video is never served.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.atomic import write_bytes_atomically
from paretoscope.errors import ParetoscopeError

# Bump when what a key names changes (rendering, encoding, layout): old recordings are ignored.
# 3: envs with discrete actions show every step, and a short video is slowed to last 3 s.
RECORDING_VERSION = 3


@dataclass(frozen=True)
class Recording:
    """A rendered (or, with an empty video, only simulated) recording."""

    video: bytes  # H.264 MP4; b"" when rendering was unavailable
    fps: float
    lanes: tuple[str, ...]  # who acted in each lane: agent names, or a tour's stops
    rewards: np.ndarray  # (lanes, frames, n_obj): collected since the lane's previous frame
    frame_steps: np.ndarray  # (lanes, frames): env steps the lane had taken at each frame
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rewards = np.asarray(self.rewards, dtype=np.float64)
        steps = np.asarray(self.frame_steps, dtype=np.int64)
        if rewards.ndim != 3 or rewards.shape[0] != len(self.lanes):
            raise ParetoscopeError(
                f"recording rewards: expected (lanes={len(self.lanes)}, frames, objectives), "
                f"got {rewards.shape}"
            )
        if steps.shape != rewards.shape[:2]:
            raise ParetoscopeError(
                f"recording frame_steps: expected {rewards.shape[:2]}, got {steps.shape}"
            )
        object.__setattr__(self, "rewards", rewards)
        object.__setattr__(self, "frame_steps", steps)

    @property
    def returns(self) -> np.ndarray:
        """(lanes, n_obj): each lane's return over what the recording shows."""
        return self.rewards.sum(axis=1)

    @property
    def length(self) -> int:
        """Frames (env steps for a recording without video)."""
        return int(self.rewards.shape[1])

    def cumulative(self, lane: int = 0) -> np.ndarray:
        """(frames, n_obj): the lane's running return at each frame."""
        return np.cumsum(self.rewards[lane], axis=0)

    @property
    def speed(self) -> float | None:
        """How fast the video plays, as a multiple of real time; None without a video, or
        without the env and the step stride in `meta` (or for an env no longer registered)."""
        env_id, every = self.meta.get("env"), self.meta.get("every")
        if not self.video or env_id is None or every is None:
            return None
        from paretoscope.render.playback import playback_speed

        try:
            return playback_speed(str(env_id), int(every), self.fps)
        except ParetoscopeError:
            return None

    @property
    def speed_text(self) -> str | None:
        """`speed` in words ("real time", "played at 1/6 speed"), or None."""
        from paretoscope.render.playback import speed_words

        speed = self.speed
        return None if speed is None else speed_words(speed)

    @property
    def nbytes(self) -> int:
        """Memory the recording holds: video, reward and step tables, a little bookkeeping."""
        return len(self.video) + int(self.rewards.nbytes + self.frame_steps.nbytes) + 1024


def recording_key(kind: str, **values: Any) -> str:
    """A stable name for one recording request: its kind and plain values (floats rounded to
    1e-6, so slider noise still matches)."""
    canonical = json.dumps(
        [RECORDING_VERSION, kind, _canonical(values)], separators=(",", ":"), sort_keys=True
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def _canonical(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(name): _canonical(item) for name, item in value.items()}
    if isinstance(value, np.ndarray):
        return _canonical(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, (float, np.floating)):
        return round(float(value), 6)
    if isinstance(value, np.integer):
        return int(value)
    return value


def array_digest(values: np.ndarray | None) -> str | None:
    """A short digest of an array's values (rounded like keys), for requests that carry one."""
    if values is None:
        return None
    rounded = np.round(np.asarray(values, dtype=np.float64), 6) + 0.0  # + 0.0: no -0.0
    payload = json.dumps([list(rounded.shape), rounded.ravel().tolist()])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def write_recording(folder: str | os.PathLike[str], key: str, recording: Recording) -> Path:
    """Store `recording` as ``<key>.mp4`` + ``<key>.json`` in `folder` (video first, atomically)."""
    directory = Path(folder)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(directory / f"{key}.mp4", recording.video)
        sidecar = {
            "version": RECORDING_VERSION,
            "fps": float(recording.fps),
            "lanes": list(recording.lanes),
            "rewards": recording.rewards.tolist(),
            "frame_steps": recording.frame_steps.tolist(),
            "meta": dict(recording.meta),
            "video_sha256": hashlib.sha256(recording.video).hexdigest(),
        }
        write_bytes_atomically(directory / f"{key}.json", json.dumps(sidecar).encode("utf-8"))
    except OSError as error:
        raise ParetoscopeError(f"cannot write a recording to {directory}: {error}") from None
    return directory / f"{key}.mp4"


def read_recording(folders: Iterable[str | os.PathLike[str]], key: str) -> Recording | None:
    """The recording `key` from the first folder that holds an intact copy, else None."""
    for folder in folders:
        directory = Path(folder)
        video_path, sidecar_path = directory / f"{key}.mp4", directory / f"{key}.json"
        if not (video_path.is_file() and sidecar_path.is_file()):
            continue
        try:
            sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
            video = video_path.read_bytes()
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if not isinstance(sidecar, dict) or sidecar.get("version") != RECORDING_VERSION:
            continue
        if hashlib.sha256(video).hexdigest() != sidecar.get("video_sha256"):
            continue  # a torn or swapped video: record it again
        try:
            return Recording(
                video=video,
                fps=float(sidecar["fps"]),
                lanes=tuple(str(lane) for lane in sidecar["lanes"]),
                rewards=np.asarray(sidecar["rewards"], dtype=np.float64),
                frame_steps=np.asarray(sidecar["frame_steps"], dtype=np.int64),
                meta=dict(sidecar.get("meta") or {}),
            )
        except (KeyError, TypeError, ValueError, ParetoscopeError):
            continue  # a damaged sidecar: record it again
    return None
