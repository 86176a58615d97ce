"""An episode's states, as the behaviour descriptors read them.

Recordings keep an episode's video and rewards, not its states; the states come from
re-running the same episode (`paretoscope.rollout.stream_rollout`, the stream every recording
draws from: the same agent, preference, target and seed give the same episode). For a MuJoCo
task the main body's track is kept too (position, height, pitch, the limbs' joint velocities
and the contact count), read from the live simulation after each step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paretoscope.agents.base import Agent
from paretoscope.errors import ParetoscopeError


@dataclass(frozen=True)
class BodyTrack:
    """A MuJoCo body's path, one row per env step."""

    time: np.ndarray  # (T,) simulated seconds
    x: np.ndarray  # (T,) forward position of the main body
    height: np.ndarray  # (T,) its height
    pitch: np.ndarray  # (T,) its rotation about the lateral axis, radians
    joint_velocities: np.ndarray  # (T, J) the limbs' joints (the root's own degrees left out)
    contacts: np.ndarray  # (T,) contacts in the scene

    def __post_init__(self) -> None:
        steps = len(np.asarray(self.time))
        for name in ("x", "height", "pitch", "contacts"):
            if np.asarray(getattr(self, name)).shape != (steps,):
                raise ParetoscopeError(f"body track {name}: expected {steps} values")
        if np.asarray(self.joint_velocities).ndim != 2 or len(self.joint_velocities) != steps:
            raise ParetoscopeError(f"body track joint_velocities: expected ({steps}, joints)")


@dataclass(frozen=True)
class EpisodeStates:
    """One episode's observations and rewards after each step, and a MuJoCo body's track."""

    observations: np.ndarray  # (T, *obs_shape)
    rewards: np.ndarray  # (T, n_obj)
    body: BodyTrack | None = None

    @property
    def steps(self) -> int:
        return len(self.rewards)


def _pitch(rotation: np.ndarray) -> float:
    """Rotation about the y axis of a 3x3 rotation matrix (row-major)."""
    return math.atan2(float(rotation[0, 2]), float(rotation[2, 2]))


def _limb_dofs(model: object) -> np.ndarray:
    """Velocity indices of the joints below the main body (the root's own joints excluded)."""
    bodies = np.asarray(model.jnt_bodyid)  # type: ignore[attr-defined]
    addresses = np.asarray(model.jnt_dofadr)  # type: ignore[attr-defined]
    return np.asarray(addresses[bodies > 1], dtype=np.int64)


def episode_states(
    agent: Agent,
    env_id: str,
    preference: Sequence[float],
    seed: int,
    target: Sequence[float] | None = None,
    horizon: int | None = None,
) -> EpisodeStates:
    """Run the episode once more and keep its states (see the module's docstring)."""
    from paretoscope.rollout import stream_rollout

    observations: list[np.ndarray] = []
    rewards: list[np.ndarray] = []
    track: dict[str, list[object]] = {name: [] for name in BodyTrack.__dataclass_fields__}
    simulated = True
    stream = stream_rollout(
        agent,
        env_id,
        np.asarray(preference, dtype=np.float64),
        int(seed),
        None if target is None else np.asarray(target, dtype=np.float64),
        horizon,
    )
    limbs: np.ndarray | None = None
    for record in stream:
        if record.diverged:
            break
        observations.append(np.asarray(record.observation, dtype=np.float64))
        rewards.append(np.asarray(record.reward, dtype=np.float64))
        if record.model is None or record.data is None:
            simulated = False
            continue
        data = record.data
        if limbs is None:
            limbs = _limb_dofs(record.model)
        position = np.asarray(data.xpos[1])
        track["time"].append(float(data.time))
        track["x"].append(float(position[0]))
        track["height"].append(float(position[2]))
        track["pitch"].append(_pitch(np.asarray(data.xmat[1]).reshape(3, 3)))
        track["joint_velocities"].append(np.asarray(data.qvel)[limbs].copy())
        track["contacts"].append(int(data.ncon))
    if not rewards:
        raise ParetoscopeError(f"{env_id}: the episode stopped before its first step")
    body = None
    if simulated and track["time"]:
        body = BodyTrack(**{name: np.asarray(values) for name, values in track.items()})
    return EpisodeStates(np.stack(observations), np.stack(rewards), body)
