"""The one registry of environments and the one way to build them: `make_env(env_id)`.

Two families, and every id says which it belongs to:
- ``MO-*-v2`` / ``MO-Hopper-v3``: the D4MORL tasks of the PEDA paper (500 steps), rebuilt on
  today's MuJoCo in `core.envs.d4morl`;
- ``mo-*-v5``: MO-Gymnasium's own tasks (1000 steps), passed through unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.envs.spec import CameraSpec, EnvSpec, Objective
from core.errors import ParetoscopeError

if TYPE_CHECKING:
    import gymnasium as gym

_ENERGY_NOTE = "reward for spending little control effort"

_D4MORL_REFERENCE = (
    "origin, as PEDA and PGMORL (points with a negative coordinate count for nothing)"
)
_MORL_BASELINES_REFERENCE = "-100 per objective, as MORL-Baselines uses for MuJoCo tasks"


def _d4morl(
    env_id: str,
    objectives: tuple[Objective, ...],
    obs_dim: int,
    act_dim: int,
    dt: float,
    camera: CameraSpec,
    action_bound: tuple[float, ...] | None = None,
    description: str = "",
) -> EnvSpec:
    bound = action_bound if action_bound is not None else (1.0,) * act_dim
    return EnvSpec(
        id=env_id,
        family="d4morl",
        objectives=objectives,
        obs_dim=obs_dim,
        act_dim=act_dim,
        horizon=500,
        dt=dt,
        reference_point=(0.0,) * len(objectives),
        reference_point_source=_D4MORL_REFERENCE,
        camera=camera,
        action_low=tuple(-b for b in bound),
        action_high=bound,
        description=description,
    )


def _mo_gymnasium(
    env_id: str,
    objectives: tuple[Objective, ...],
    obs_dim: int,
    act_dim: int,
    dt: float,
    camera: CameraSpec,
    description: str = "",
) -> EnvSpec:
    return EnvSpec(
        id=env_id,
        family="mo-gymnasium",
        objectives=objectives,
        obs_dim=obs_dim,
        act_dim=act_dim,
        horizon=1000,
        dt=dt,
        reference_point=(-100.0,) * len(objectives),
        reference_point_source=_MORL_BASELINES_REFERENCE,
        camera=camera,
        action_low=(-1.0,) * act_dim,
        action_high=(1.0,) * act_dim,
        description=description,
    )


_CHEETAH_CAMERA = CameraSpec(body="torso", distance=4.0, elevation=-20.0)
_HOPPER_CAMERA = CameraSpec(body="torso", distance=3.0, elevation=-20.0, lookat_height=0.0)
_WALKER_CAMERA = CameraSpec(body="torso", distance=4.0, elevation=-20.0, lookat_height=-0.2)
_ANT_CAMERA = CameraSpec(body="torso", distance=6.0, elevation=-35.0)
_SWIMMER_CAMERA = CameraSpec(body="mid", distance=4.5, elevation=-45.0)

_ENERGY = Objective("energy", None, _ENERGY_NOTE)
# MO-Gymnasium's control cost objective is negative: minus the sum of squared actions.
_CONTROL = Objective("energy", None, "minus the sum of squared actions")

_SPECS: tuple[EnvSpec, ...] = (
    # --- D4MORL (PEDA, ICLR 2023): objective formulas in core.envs.d4morl -------------------
    _d4morl(
        "MO-HalfCheetah-v2",
        (Objective("run", "m/s", "forward speed (capped at 4) + 1"), _ENERGY),
        obs_dim=17,
        act_dim=6,
        dt=0.05,
        camera=_CHEETAH_CAMERA,
        description="HalfCheetah: run fast vs save energy",
    ),
    _d4morl(
        "MO-Hopper-v2",
        (
            Objective("run", "m/s", "1.5 x forward speed + alive bonus"),
            Objective("jump", "m", "12 x height gain + alive bonus"),
        ),
        obs_dim=11,
        act_dim=3,
        dt=0.01,
        camera=_HOPPER_CAMERA,
        action_bound=(2.0, 2.0, 4.0),
        description="Hopper: run forward vs jump high",
    ),
    _d4morl(
        "MO-Hopper-v3",
        (
            Objective("run", "m/s", "1.5 x forward speed + 1"),
            Objective("jump", "m", "12 x height gain + 1"),
            _ENERGY,
        ),
        obs_dim=11,
        act_dim=3,
        dt=0.01,
        camera=_HOPPER_CAMERA,
        action_bound=(2.0, 2.0, 4.0),
        description="Hopper: run forward vs jump high vs save energy",
    ),
    _d4morl(
        "MO-Walker2d-v2",
        (Objective("speed", "m/s", "forward speed + 1"), _ENERGY),
        obs_dim=17,
        act_dim=6,
        dt=0.008,
        camera=_WALKER_CAMERA,
        description="Walker2d: walk fast vs save energy",
    ),
    _d4morl(
        "MO-Ant-v2",
        (
            Objective("x_velocity", "m/s", "speed along x + alive/energy term"),
            Objective("y_velocity", "m/s", "speed along y + alive/energy term"),
        ),
        obs_dim=27,
        act_dim=8,
        dt=0.05,
        camera=_ANT_CAMERA,
        description="Ant: move along x vs along y",
    ),
    _d4morl(
        "MO-Swimmer-v2",
        (Objective("forward", "m/s", "forward speed"), _ENERGY),
        obs_dim=8,
        act_dim=2,
        dt=0.04,
        camera=_SWIMMER_CAMERA,
        description="Swimmer: swim fast vs save energy",
    ),
    # --- MO-Gymnasium v5 (1000 steps), passed through -----------------------------------------
    _mo_gymnasium(
        "mo-halfcheetah-v5",
        (Objective("velocity", "m/s"), _CONTROL),
        obs_dim=17,
        act_dim=6,
        dt=0.05,
        camera=_CHEETAH_CAMERA,
        description="MO-Gymnasium HalfCheetah: velocity vs energy",
    ),
    _mo_gymnasium(
        "mo-hopper-v5",
        (
            Objective("velocity", "m/s"),
            Objective("height", "m", "10 x height"),
            _CONTROL,
        ),
        obs_dim=11,
        act_dim=3,
        dt=0.008,
        camera=_HOPPER_CAMERA,
        description="MO-Gymnasium Hopper: velocity vs height vs energy",
    ),
    _mo_gymnasium(
        "mo-hopper-2obj-v5",
        (Objective("velocity", "m/s"), Objective("height", "m", "10 x height")),
        obs_dim=11,
        act_dim=3,
        dt=0.008,
        camera=_HOPPER_CAMERA,
        description="MO-Gymnasium Hopper: velocity vs height",
    ),
    _mo_gymnasium(
        "mo-walker2d-v5",
        (Objective("velocity", "m/s"), _CONTROL),
        obs_dim=17,
        act_dim=6,
        dt=0.008,
        camera=_WALKER_CAMERA,
        description="MO-Gymnasium Walker2d: velocity vs energy",
    ),
    _mo_gymnasium(
        "mo-ant-v5",
        (
            Objective("x_velocity", "m/s"),
            Objective("y_velocity", "m/s"),
            _CONTROL,
        ),
        obs_dim=105,
        act_dim=8,
        dt=0.05,
        camera=_ANT_CAMERA,
        description="MO-Gymnasium Ant: x velocity vs y velocity vs energy",
    ),
    _mo_gymnasium(
        "mo-ant-2obj-v5",
        (Objective("x_velocity", "m/s"), Objective("y_velocity", "m/s")),
        obs_dim=105,
        act_dim=8,
        dt=0.05,
        camera=_ANT_CAMERA,
        description="MO-Gymnasium Ant: x velocity vs y velocity",
    ),
    _mo_gymnasium(
        "mo-swimmer-v5",
        (Objective("velocity", "m/s"), _CONTROL),
        obs_dim=8,
        act_dim=2,
        dt=0.04,
        camera=_SWIMMER_CAMERA,
        description="MO-Gymnasium Swimmer: velocity vs energy",
    ),
)

REGISTRY: dict[str, EnvSpec] = {spec.id: spec for spec in _SPECS}


def list_specs() -> list[EnvSpec]:
    """All registered environments, D4MORL first, in registration order."""
    return list(REGISTRY.values())


def get_spec(env_id: str) -> EnvSpec:
    """The spec of `env_id`; an unknown id raises `ParetoscopeError` listing the known ones."""
    try:
        return REGISTRY[env_id]
    except (KeyError, TypeError):
        known = ", ".join(REGISTRY)
        raise ParetoscopeError(f"unknown environment id {env_id!r}; known ids: {known}") from None


def make_env(env_id: str, render_mode: str | None = None, **kwargs: Any) -> gym.Env:
    """Build the environment `env_id`: `step` returns a float32 reward vector of shape (n_obj,)."""
    spec = get_spec(env_id)
    if spec.family == "d4morl":
        from core.envs.d4morl import make_d4morl_env

        return make_d4morl_env(spec, render_mode=render_mode, **kwargs)

    import mo_gymnasium

    return mo_gymnasium.make(spec.id, render_mode=render_mode, **kwargs)
