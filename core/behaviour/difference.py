"""Why two episodes differ: where their return difference accrues, when their states diverge
most, and their recordings' frames at those moments."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paretoscope.behaviour.states import EpisodeStates
from paretoscope.errors import ParetoscopeError
from paretoscope.recordings.recording import Recording


@dataclass(frozen=True)
class ReturnDifference:
    """Cumulative return of episode a minus b, frame by frame."""

    steps: np.ndarray  # (F,) env steps of the longer episode at each frame
    difference: np.ndarray  # (F, n_obj)


def return_difference(
    a: Recording, b: Recording, lane_a: int = 0, lane_b: int = 0
) -> ReturnDifference:
    """The cumulative per-objective return of `a`'s lane minus `b`'s, at each frame; the
    shorter episode holds its final return after it ends. Both recordings must show the same
    steps per frame (the same env and stride)."""
    if a.rewards.shape[2] != b.rewards.shape[2]:
        raise ParetoscopeError(
            f"return difference: the episodes have {a.rewards.shape[2]} and "
            f"{b.rewards.shape[2]} objectives"
        )
    if a.meta.get("every") != b.meta.get("every"):
        raise ParetoscopeError("return difference: the episodes were recorded at different strides")
    frames = max(a.length, b.length)
    first, second = _held(a.cumulative(lane_a), frames), _held(b.cumulative(lane_b), frames)
    steps = np.maximum(_held(a.frame_steps[lane_a], frames), _held(b.frame_steps[lane_b], frames))
    return ReturnDifference(steps, first - second)


def _held(values: np.ndarray, frames: int) -> np.ndarray:
    """`values` extended to `frames` rows by repeating its last row."""
    if len(values) >= frames:
        return values[:frames]
    return np.concatenate([values, np.repeat(values[-1:], frames - len(values), axis=0)])


def divergence(a: EpisodeStates, b: EpisodeStates) -> np.ndarray:
    """(T,) distance between the two episodes' observations at each step they share, each
    observation entry scaled by its spread over both episodes."""
    steps = min(a.steps, b.steps)
    if steps == 0:
        raise ParetoscopeError("divergence: an episode has no steps")
    first = np.asarray(a.observations[:steps], dtype=np.float64).reshape(steps, -1)
    second = np.asarray(b.observations[:steps], dtype=np.float64).reshape(steps, -1)
    if first.shape != second.shape:
        raise ParetoscopeError("divergence: the episodes' observations differ in shape")
    spread = np.concatenate([first, second]).std(axis=0)
    scale = np.where(spread > 0, spread, np.inf)
    return np.asarray(np.linalg.norm((first - second) / scale, axis=1))


def divergent_steps(a: EpisodeStates, b: EpisodeStates, count: int = 3) -> np.ndarray:
    """The 1-based steps where the states diverge most: the `count` largest distances, each
    at least a tenth of the episode away from those before (earlier steps win ties)."""
    distance = divergence(a, b)
    gap = max(1, len(distance) // 10)
    chosen: list[int] = []
    for index in np.argsort(-distance, kind="stable"):
        if all(abs(int(index) - other) >= gap for other in chosen):
            chosen.append(int(index))
        if len(chosen) == count:
            break
    return np.asarray(sorted(chosen), dtype=np.int64) + 1


def frame_index(recording: Recording, step: int, lane: int = 0) -> int:
    """The recording's first frame drawn at or after env step `step` (its last frame when the
    episode ended before)."""
    later = np.flatnonzero(recording.frame_steps[lane] >= step)
    return int(later[0]) if len(later) else recording.length - 1


def frames_at(recording: Recording, steps: np.ndarray, lane: int = 0) -> list[np.ndarray]:
    """The recording's video frames at each of `steps` (`frame_index`), decoded from its MP4."""
    from paretoscope.video import decoded_frames

    if not recording.video:
        raise ParetoscopeError("the recording has no video (rendering was unavailable)")
    wanted = [frame_index(recording, int(step), lane) for step in steps]
    found: dict[int, np.ndarray] = {}
    with tempfile.TemporaryDirectory(prefix="paretoscope-frames-") as folder:
        path = Path(folder) / "episode.mp4"
        path.write_bytes(recording.video)
        for index, frame in enumerate(decoded_frames(path)):
            if index in wanted:
                found[index] = frame.copy()
            if len(found) == len(set(wanted)):
                break
    if len(found) < len(set(wanted)):
        raise ParetoscopeError("the recording's video holds fewer frames than its steps")
    return [found[index] for index in wanted]
