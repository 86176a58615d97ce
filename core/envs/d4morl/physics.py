"""`D4MORLPhysics`: one compiled D4MORL model plus the task's formulas, independent of gymnasium.

`D4MORLEnv` steps through it; a batched rollout engine can hold one `D4MORLPhysics` and many
`mujoco.MjData` and call the same `step_data` (or the vectorised `clip_action`, `rewards`,
`terminated`, `observation`) so that both paths compute the very same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import mujoco
import numpy as np

from paretoscope.envs.d4morl import formulas
from paretoscope.envs.d4morl.model import compile_model
from paretoscope.envs.d4morl.tasks import D4MORLTask, get_task
from paretoscope.envs.registry import get_spec
from paretoscope.envs.spec import EnvSpec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import quoted

FloatArray = formulas.FloatArray

# Reset noise scale: qpos gets U(-RESET_NOISE, RESET_NOISE) per coordinate, qvel the same or
# RESET_NOISE·N(0, 1) (per task, see `D4MORLTask.qvel_noise`).
RESET_NOISE = 1e-3

# MuJoCo replaces a diverged state (NaN/inf or huge accelerations) with a reset and counts a
# warning instead of leaving the non-finite numbers in place; these counters reveal it.
_INSTABILITY_WARNINGS = [
    int(mujoco.mjtWarning.mjWARN_BADQPOS),
    int(mujoco.mjtWarning.mjWARN_BADQVEL),
    int(mujoco.mjtWarning.mjWARN_BADQACC),
]


def instability_count(data: mujoco.MjData) -> int:
    """How many times MuJoCo has found `data` diverged (and reset it) so far."""
    return int(data.warning.number[_INSTABILITY_WARNINGS].sum())


@dataclass
class StepOutcome:
    """What one env step produced (the raw pieces, before gymnasium's tuple)."""

    observation: FloatArray
    rewards: FloatArray
    terminated: bool
    info: dict[str, Any] = field(default_factory=dict)


class D4MORLPhysics:
    """The compiled, edited model of one D4MORL task and its per-step formulas."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self.task: D4MORLTask = get_task(spec.id)
        self.model: mujoco.MjModel = compile_model(self.task.xml_file, self.task.edits)
        self.frame_skip = self.task.frame_skip
        self.dt = float(self.model.opt.timestep) * self.frame_skip
        self.init_qpos: FloatArray = self.model.qpos0.copy()
        self.init_qvel: FloatArray = np.zeros(self.model.nv)
        self.action_low = np.asarray(spec.action_low, dtype=np.float64)
        self.action_high = np.asarray(spec.action_high, dtype=np.float64)
        self._check_against_spec()

    def _check_against_spec(self) -> None:
        """The registry and the compiled model must agree; a mismatch is a programming error."""
        spec, model = self.spec, self.model
        problems = []
        if not math.isclose(self.dt, spec.dt, rel_tol=1e-12):
            problems.append(f"dt {self.dt} (timestep x frame_skip) != spec dt {spec.dt}")
        if model.nu != spec.act_dim:
            problems.append(f"model has {model.nu} actuators, spec act_dim {spec.act_dim}")
        else:
            ctrl = model.actuator_ctrlrange
            if not (
                np.all(model.actuator_ctrllimited)
                and np.array_equal(ctrl[:, 0], self.action_low)
                and np.array_equal(ctrl[:, 1], self.action_high)
            ):
                problems.append(
                    f"actuator ctrlrange {ctrl.tolist()} != spec action bounds "
                    f"{spec.action_low}..{spec.action_high}"
                )
        obs_dim = model.nq - self.task.obs_qpos_start + model.nv
        if obs_dim != spec.obs_dim:
            problems.append(f"observation has {obs_dim} entries, spec obs_dim {spec.obs_dim}")
        if len(self.task.reward_low) != spec.n_obj:
            problems.append(f"task has {len(self.task.reward_low)} objectives, spec {spec.n_obj}")
        if problems:
            raise ParetoscopeError(
                f"D4MORL model for {spec.id} disagrees with its spec: " + "; ".join(problems)
            )

    # --- vectorised formulas (single state or a batch along leading axes) -------------------

    def clip_action(self, action: FloatArray) -> FloatArray:
        """The action clipped to the spec's bounds, as float64 (what MuJoCo and energy see)."""
        return np.clip(np.asarray(action, dtype=np.float64), self.action_low, self.action_high)

    def observation(self, qpos: FloatArray, qvel: FloatArray) -> FloatArray:
        """The D4MORL observation of the state (qpos, qvel), float64."""
        return formulas.observation(qpos, qvel, self.task.obs_qpos_start, self.task.qvel_clip)

    def rewards(
        self, qpos_before: FloatArray, qpos_after: FloatArray, clipped_action: FloatArray
    ) -> FloatArray:
        """The reward vector (..., n_obj), float64, in the registry's objective order."""
        return self.task.rewards(qpos_before, qpos_after, clipped_action, self.dt, self.init_qpos)

    def terminated(self, qpos: FloatArray, qvel: FloatArray) -> formulas.BoolArray:
        """Whether the state (qpos, qvel) ends the episode."""
        return self.task.terminated(qpos, qvel)

    # --- one MjData ---------------------------------------------------------------------------

    def make_data(self) -> mujoco.MjData:
        """A fresh `MjData` for this model."""
        return mujoco.MjData(self.model)

    def reset_data(self, data: mujoco.MjData, rng: np.random.Generator) -> None:
        """Initial state plus small noise: qpos first, then qvel, both drawn from `rng`.

        qpos + U(-1e-3, 1e-3) (the task's `exact_qpos` coordinates keep their initial value);
        qvel + U(-1e-3, 1e-3) or + 1e-3·N(0, 1), per the task's `qvel_noise`.
        """
        mujoco.mj_resetData(self.model, data)
        qpos = self.init_qpos + rng.uniform(-RESET_NOISE, RESET_NOISE, self.model.nq)
        for index in self.task.exact_qpos:
            qpos[index] = self.init_qpos[index]
        if self.task.qvel_noise == "normal":
            qvel = self.init_qvel + RESET_NOISE * rng.standard_normal(self.model.nv)
        else:
            qvel = self.init_qvel + rng.uniform(-RESET_NOISE, RESET_NOISE, self.model.nv)
        data.qpos[:] = qpos
        data.qvel[:] = qvel
        mujoco.mj_forward(self.model, data)

    def step_data(self, data: mujoco.MjData, action: FloatArray) -> StepOutcome:
        """Clip `action`, advance `data` by one env step and evaluate the task's formulas.

        A step in which MuJoCo found the state diverged (and reset it) counts as a non-finite
        state: for Ant it ends the episode; for every task ``info["unstable"]`` reports it.
        """
        clipped = self.clip_action(action)
        qpos_before = data.qpos.copy()
        unstable_before = instability_count(data)
        data.ctrl[:] = clipped
        mujoco.mj_step(self.model, data, nstep=self.frame_skip)
        qpos, qvel = data.qpos.copy(), data.qvel.copy()
        unstable = instability_count(data) != unstable_before
        rewards = self.rewards(qpos_before, qpos, clipped)
        terminated = bool(self.terminated(qpos, qvel))
        if unstable and self.task.terminated is formulas.not_finite_terminated:
            terminated = True
        info: dict[str, Any] = {
            "x_position": float(qpos[0]),
            "x_velocity": float((qpos[0] - qpos_before[0]) / self.dt),
            "action_square_sum": float(formulas.square_sum(clipped)),
            "unstable": unstable,
        }
        if self.task.obs_qpos_start == 2:  # planar root: x and y
            info["y_position"] = float(qpos[1])
            info["y_velocity"] = float((qpos[1] - qpos_before[1]) / self.dt)
        else:
            info["height"] = float(qpos[1])
            info["angle"] = float(qpos[2])
        return StepOutcome(self.observation(qpos, qvel), rewards, terminated, info)


def load_physics(env_id: str) -> D4MORLPhysics:
    """`D4MORLPhysics` for a registered D4MORL id (e.g. ``"MO-HalfCheetah-v2"``)."""
    spec = get_spec(env_id)
    if spec.family != "d4morl":
        raise ParetoscopeError(f"{quoted(env_id)} is a {spec.family} environment, not a D4MORL one")
    return D4MORLPhysics(spec)
