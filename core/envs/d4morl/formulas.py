"""The D4MORL per-step formulas (docs/reference.md#d4morl-environments) as pure numpy functions.

Every function works on a single state (``qpos`` of shape (nq,)) or on a batch (``(..., nq)``),
so `D4MORLEnv.step` and a batched stepper that drives `mujoco.MjData` directly share exactly
the same arithmetic. Rewards are computed in float64; the environment hands them out as float32.

Arguments, for all reward functions:
- ``qpos_before`` / ``qpos_after``: joint positions at the start / end of one env step;
- ``action``: the action *after* clipping to the action bounds (energy terms use it);
- ``dt``: the env step duration (model timestep x frame skip);
- ``init_qpos``: the model's initial joint positions (Hopper's jump is measured from its height).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

# Termination thresholds, in radians where they are angles.
HALF_CHEETAH_MAX_ANGLE = float(np.deg2rad(50.0))
HOPPER_MIN_HEIGHT = 0.4
HOPPER_MAX_ANGLE = float(np.deg2rad(90.0))
WALKER_HEIGHT_RANGE = (0.8, 2.0)
WALKER_ANGLE_RANGE = (-1.0, 1.0)


def square_sum(action: FloatArray) -> FloatArray:
    """Σa² over the last axis (the energy spent by one action)."""
    return np.einsum("...i,...i->...", action, action)


def forward_velocity(qpos_before: FloatArray, qpos_after: FloatArray, dt: float) -> FloatArray:
    """Δx/dt of the root (qpos[0] is the root x in all six models)."""
    return (qpos_after[..., 0] - qpos_before[..., 0]) / dt


def half_cheetah_rewards(
    qpos_before: FloatArray,
    qpos_after: FloatArray,
    action: FloatArray,
    dt: float,
    init_qpos: FloatArray,
) -> FloatArray:
    """[run, energy] = [min(4, Δx/dt) + 1, 5 − Σa²]."""
    run = np.minimum(4.0, forward_velocity(qpos_before, qpos_after, dt)) + 1.0
    energy = 5.0 - square_sum(action)
    return np.stack([run, energy], axis=-1)


def hopper_v2_rewards(
    qpos_before: FloatArray,
    qpos_after: FloatArray,
    action: FloatArray,
    dt: float,
    init_qpos: FloatArray,
) -> FloatArray:
    """[run, jump] = [1.5·Δx/dt + o, 12·(h − h_init) + o] with o = 1 − 2e-4·Σa², h = qpos[1]."""
    others = 1.0 - 2e-4 * square_sum(action)
    run = 1.5 * forward_velocity(qpos_before, qpos_after, dt) + others
    jump = 12.0 * (qpos_after[..., 1] - init_qpos[..., 1]) + others
    return np.stack([run, jump], axis=-1)


def hopper_v3_rewards(
    qpos_before: FloatArray,
    qpos_after: FloatArray,
    action: FloatArray,
    dt: float,
    init_qpos: FloatArray,
) -> FloatArray:
    """[run, jump, energy] = [1.5·Δx/dt + 1, 12·(h − h_init) + 1, 5 − Σa²]."""
    run = 1.5 * forward_velocity(qpos_before, qpos_after, dt) + 1.0
    jump = 12.0 * (qpos_after[..., 1] - init_qpos[..., 1]) + 1.0
    energy = 5.0 - square_sum(action)
    return np.stack([run, jump, energy], axis=-1)


def walker2d_rewards(
    qpos_before: FloatArray,
    qpos_after: FloatArray,
    action: FloatArray,
    dt: float,
    init_qpos: FloatArray,
) -> FloatArray:
    """[speed, energy] = [Δx/dt + 1, 5 − Σa²]."""
    speed = forward_velocity(qpos_before, qpos_after, dt) + 1.0
    energy = 5.0 - square_sum(action)
    return np.stack([speed, energy], axis=-1)


def ant_rewards(
    qpos_before: FloatArray,
    qpos_after: FloatArray,
    action: FloatArray,
    dt: float,
    init_qpos: FloatArray,
) -> FloatArray:
    """[x_velocity, y_velocity] = [Δx/dt + o, Δy/dt + o] with o = 1 − 0.5·Σa² (torso root x, y)."""
    others = 1.0 - 0.5 * square_sum(action)
    vx = forward_velocity(qpos_before, qpos_after, dt) + others
    vy = (qpos_after[..., 1] - qpos_before[..., 1]) / dt + others
    return np.stack([vx, vy], axis=-1)


def swimmer_rewards(
    qpos_before: FloatArray,
    qpos_after: FloatArray,
    action: FloatArray,
    dt: float,
    init_qpos: FloatArray,
) -> FloatArray:
    """[forward, energy] = [Δx/dt, 0.3 − 0.15·Σa²]."""
    forward = forward_velocity(qpos_before, qpos_after, dt)
    energy = 0.3 - 0.15 * square_sum(action)
    return np.stack([forward, energy], axis=-1)


def half_cheetah_terminated(qpos: FloatArray, qvel: FloatArray) -> BoolArray:
    """Ends when the torso tips over: |root angle qpos[2]| ≥ 50°."""
    return np.asarray(np.abs(qpos[..., 2]) >= HALF_CHEETAH_MAX_ANGLE)


def hopper_terminated(qpos: FloatArray, qvel: FloatArray) -> BoolArray:
    """Ends unless the torso height qpos[1] > 0.4 and |qpos[2:6]| are all < 90°."""
    upright = np.all(np.abs(qpos[..., 2:6]) < HOPPER_MAX_ANGLE, axis=-1)
    return np.asarray(~((qpos[..., 1] > HOPPER_MIN_HEIGHT) & upright))


def walker2d_terminated(qpos: FloatArray, qvel: FloatArray) -> BoolArray:
    """Ends unless 0.8 < height qpos[1] < 2.0 and −1 < angle qpos[2] < 1."""
    height, angle = qpos[..., 1], qpos[..., 2]
    low_h, high_h = WALKER_HEIGHT_RANGE
    low_a, high_a = WALKER_ANGLE_RANGE
    healthy = (low_h < height) & (height < high_h) & (low_a < angle) & (angle < high_a)
    return np.asarray(~healthy)


def not_finite_terminated(qpos: FloatArray, qvel: FloatArray) -> BoolArray:
    """Ends when any coordinate of the state (qpos, qvel) is NaN or infinite (Ant)."""
    finite = np.all(np.isfinite(qpos), axis=-1) & np.all(np.isfinite(qvel), axis=-1)
    return np.asarray(~finite)


def never_terminated(qpos: FloatArray, qvel: FloatArray) -> BoolArray:
    """Never ends early (Swimmer)."""
    return np.zeros(qpos.shape[:-1], dtype=bool)


def observation(
    qpos: FloatArray, qvel: FloatArray, qpos_start: int, qvel_clip: float | None
) -> FloatArray:
    """qpos[qpos_start:] (root x, and for Ant/Swimmer y, left out) then qvel, clipped if asked."""
    velocities = qvel if qvel_clip is None else np.clip(qvel, -qvel_clip, qvel_clip)
    return np.concatenate([qpos[..., qpos_start:], velocities], axis=-1)
