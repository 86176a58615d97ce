"""Per-episode behaviour descriptors: a few numbers that say how a policy moves.

MuJoCo tasks (episodes with a `BodyTrack`): forward speed, the main body's height and pitch
(mean and spread), the limbs' joint speed and the dominant frequency of their velocity
spectrum (the stride rate), and the contacts per step. Other envs: a state-visitation
histogram, the share of steps each observation entry spends in each of a few bins spanning
the values all the episodes given reach. Each descriptor carries the words that describe a
low and a high value, from which clusters are named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paretoscope.behaviour.states import BodyTrack, EpisodeStates
from paretoscope.errors import ParetoscopeError

# Bins per observation entry of a state-visitation histogram, and the entries it looks at.
VISIT_BINS = 4
VISIT_ENTRIES = 16


@dataclass(frozen=True)
class Descriptor:
    """One descriptor's name and the words for a low and a high value."""

    name: str
    low: str
    high: str


BODY_DESCRIPTORS: tuple[Descriptor, ...] = (
    Descriptor("forward speed", "slow", "fast"),
    Descriptor("mean height", "low", "high"),
    Descriptor("height spread", "steady height", "bouncing"),
    Descriptor("mean pitch", "low pitch", "high pitch"),
    Descriptor("pitch spread", "level", "rocking"),
    Descriptor("joint speed", "gentle joints", "busy joints"),
    Descriptor("stride frequency", "long strides", "quick strides"),
    Descriptor("contacts per step", "airborne", "grounded"),
)


@dataclass(frozen=True)
class Descriptors:
    """Descriptor values of several episodes: `values[i, j]` is episode i's descriptor j."""

    descriptors: tuple[Descriptor, ...]
    values: np.ndarray  # (episodes, descriptors)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(descriptor.name for descriptor in self.descriptors)


def stride_frequency(joint_velocities: np.ndarray, time: np.ndarray) -> float:
    """Frequency (Hz) with the most power in the joints' velocity spectra, summed over joints
    (the mean removed, so a constant velocity has none); 0 without joints or power."""
    velocities = np.asarray(joint_velocities, dtype=np.float64)
    if velocities.ndim != 2 or velocities.shape[1] == 0 or len(velocities) < 4:
        return 0.0
    step = float(np.median(np.diff(time)))
    if step <= 0:
        return 0.0
    centred = velocities - velocities.mean(axis=0)
    power = (np.abs(np.fft.rfft(centred, axis=0)) ** 2).sum(axis=1)
    frequencies = np.fft.rfftfreq(len(centred), d=step)
    if power[1:].max(initial=0.0) <= 0:
        return 0.0
    return float(frequencies[1 + int(np.argmax(power[1:]))])


def body_values(track: BodyTrack) -> np.ndarray:
    """The `BODY_DESCRIPTORS` of one body track."""
    time = np.asarray(track.time, dtype=np.float64)
    elapsed = float(time[-1] - time[0]) if len(time) > 1 else 0.0
    speed = float(track.x[-1] - track.x[0]) / elapsed if elapsed > 0 else 0.0
    joints = np.asarray(track.joint_velocities, dtype=np.float64)
    joint_speed = float(np.sqrt(np.mean(joints**2))) if joints.size else 0.0
    return np.array(
        [
            speed,
            float(np.mean(track.height)),
            float(np.std(track.height)),
            float(np.mean(track.pitch)),
            float(np.std(track.pitch)),
            joint_speed,
            stride_frequency(joints, time),
            float(np.mean(track.contacts)),
        ]
    )


def _visits(episodes: Sequence[EpisodeStates]) -> Descriptors:
    flat = [np.asarray(e.observations, dtype=np.float64).reshape(e.steps, -1) for e in episodes]
    entries = min(VISIT_ENTRIES, min(f.shape[1] for f in flat))
    pooled = np.concatenate([f[:, :entries] for f in flat])
    low, high = pooled.min(axis=0), pooled.max(axis=0)
    descriptors: list[Descriptor] = []
    for entry in range(entries):
        edges = np.linspace(low[entry], high[entry], VISIT_BINS + 1)
        for b in range(VISIT_BINS):
            where = f"obs[{entry}] in {edges[b]:.3g}..{edges[b + 1]:.3g}"
            descriptors.append(Descriptor(f"time at {where}", f"seldom {where}", f"often {where}"))
    values = np.zeros((len(flat), entries * VISIT_BINS))
    for row, states in enumerate(flat):
        for entry in range(entries):
            span = high[entry] - low[entry]
            scaled = (states[:, entry] - low[entry]) / span if span > 0 else states[:, entry] * 0
            bins = np.minimum((scaled * VISIT_BINS).astype(np.int64), VISIT_BINS - 1)
            counts = np.bincount(bins, minlength=VISIT_BINS) / len(states)
            values[row, entry * VISIT_BINS : (entry + 1) * VISIT_BINS] = counts
    return Descriptors(tuple(descriptors), values)


def describe(episodes: Sequence[EpisodeStates]) -> Descriptors:
    """Descriptors of `episodes` (of one env): body descriptors when every episode has a body
    track, else state-visitation histograms over the bins all of them share."""
    if not episodes:
        raise ParetoscopeError("episodes: expected at least one episode to describe")
    tracks = [episode.body for episode in episodes]
    if all(track is not None for track in tracks):
        values = np.stack([body_values(track) for track in tracks if track is not None])
        return Descriptors(BODY_DESCRIPTORS, values)
    return _visits(episodes)
