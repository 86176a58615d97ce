"""The table of the six D4MORL tasks: model file, physics edits, frame skip and formulas."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from paretoscope.envs.d4morl import formulas
from paretoscope.envs.d4morl.model import (
    ModelEdit,
    set_actuators,
    set_all_gears,
    set_default_geom_density,
    set_default_joint_damping,
    set_geom_friction,
    unlimit_joints,
)
from paretoscope.errors import ParetoscopeError
from paretoscope.text import quoted

RewardFn = Callable[
    [formulas.FloatArray, formulas.FloatArray, formulas.FloatArray, float, formulas.FloatArray],
    formulas.FloatArray,
]
TerminationFn = Callable[[formulas.FloatArray, formulas.FloatArray], formulas.BoolArray]

_INF = float(np.inf)


@dataclass(frozen=True)
class D4MORLTask:
    """Static description of one D4MORL task; the registry's `EnvSpec` has the rest."""

    env_id: str
    xml_file: str
    frame_skip: int
    edits: tuple[ModelEdit, ...]
    # Observation = qpos[obs_qpos_start:] followed by qvel (clipped to ±qvel_clip if not None).
    obs_qpos_start: int
    qvel_clip: float | None
    rewards: RewardFn
    terminated: TerminationFn
    # Bounds of each objective per step, in the registry's objective order (inf where unbounded).
    reward_low: tuple[float, ...]
    reward_high: tuple[float, ...]
    # Reset: qpos + U(-1e-3, 1e-3) except the coordinates in `exact_qpos` (kept at their initial
    # value), then qvel + U(-1e-3, 1e-3) ("uniform") or + 1e-3·N(0, 1) ("normal"), as in the
    # data-generation code of PEDA.
    qvel_noise: Literal["uniform", "normal"] = "uniform"
    exact_qpos: tuple[int, ...] = ()


_HOPPER_EDITS: tuple[ModelEdit, ...] = (
    set_default_joint_damping(40.0),
    unlimit_joints,
    set_actuators(ctrl_bounds=(2.0, 2.0, 4.0), gears=(200.0, 200.0, 300.0)),
)

_TASKS: tuple[D4MORLTask, ...] = (
    D4MORLTask(
        env_id="MO-HalfCheetah-v2",
        xml_file="half_cheetah.xml",
        frame_skip=5,
        edits=(),
        obs_qpos_start=1,
        qvel_clip=None,
        rewards=formulas.half_cheetah_rewards,
        terminated=formulas.half_cheetah_terminated,
        reward_low=(-_INF, 5.0 - 6.0),
        reward_high=(5.0, 5.0),
        qvel_noise="normal",
    ),
    D4MORLTask(
        env_id="MO-Hopper-v2",
        xml_file="hopper.xml",
        frame_skip=5,
        edits=_HOPPER_EDITS,
        obs_qpos_start=1,
        qvel_clip=10.0,
        rewards=formulas.hopper_v2_rewards,
        terminated=formulas.hopper_terminated,
        reward_low=(-_INF, -_INF),
        reward_high=(_INF, _INF),
        exact_qpos=(1,),  # the torso starts exactly at its initial height
    ),
    D4MORLTask(
        env_id="MO-Hopper-v3",
        xml_file="hopper.xml",
        frame_skip=5,
        edits=_HOPPER_EDITS,
        obs_qpos_start=1,
        qvel_clip=10.0,
        rewards=formulas.hopper_v3_rewards,
        terminated=formulas.hopper_terminated,
        # Σa² is at most 2² + 2² + 4² = 24.
        reward_low=(-_INF, -_INF, 5.0 - 24.0),
        reward_high=(_INF, _INF, 5.0),
        exact_qpos=(1,),
    ),
    D4MORLTask(
        env_id="MO-Walker2d-v2",
        xml_file="walker2d_v5.xml",
        frame_skip=4,
        edits=(
            set_default_joint_damping(3.0),
            set_default_geom_density(1500.0),
            # PGMORL's walker2d.xml (like gymnasium's pre-v5 walker2d.xml) keeps the right foot
            # at friction 0.9; walker2d_v5.xml raised it to 1.9 like the left foot.
            set_geom_friction("foot_geom", 0.9),
        ),
        obs_qpos_start=1,
        qvel_clip=10.0,
        rewards=formulas.walker2d_rewards,
        terminated=formulas.walker2d_terminated,
        reward_low=(-_INF, 5.0 - 6.0),
        reward_high=(_INF, 5.0),
    ),
    D4MORLTask(
        env_id="MO-Ant-v2",
        xml_file="ant.xml",
        frame_skip=5,
        edits=(set_all_gears(100.0),),
        obs_qpos_start=2,
        qvel_clip=None,
        rewards=formulas.ant_rewards,
        terminated=formulas.not_finite_terminated,
        reward_low=(-_INF, -_INF),
        reward_high=(_INF, _INF),
        qvel_noise="normal",
    ),
    D4MORLTask(
        env_id="MO-Swimmer-v2",
        xml_file="swimmer.xml",
        frame_skip=4,
        edits=(set_all_gears(300.0),),  # PGMORL's swimmer.xml: gear 300 (gymnasium: 150)
        obs_qpos_start=2,
        qvel_clip=None,
        rewards=formulas.swimmer_rewards,
        terminated=formulas.never_terminated,
        reward_low=(-_INF, 0.3 - 0.15 * 2.0),
        reward_high=(_INF, 0.3),
    ),
)

TASKS: dict[str, D4MORLTask] = {task.env_id: task for task in _TASKS}


def get_task(env_id: str) -> D4MORLTask:
    """The D4MORL task `env_id`; an unknown id raises `ParetoscopeError`."""
    try:
        return TASKS[env_id]
    except KeyError:
        raise ParetoscopeError(
            f"{quoted(env_id)} is not a D4MORL environment; known: {', '.join(TASKS)}"
        ) from None
