"""The MuJoCo tasks paretoscope describes itself: D4MORL's (PEDA) and MO-Gymnasium's v5.

Their specs are static (dims, time step, tracking camera for paretoscope's own renderer), so
listing them builds nothing. D4MORL's objective formulas live in `paretoscope.envs.d4morl`.
"""

from __future__ import annotations

from paretoscope.envs.spec import CameraSpec, EnvSpec, Objective

_ENERGY_NOTE = "reward for spending little control effort: higher means less energy used"

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
    action_bound: float = 1.0,
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
        action_low=(-action_bound,) * act_dim,
        action_high=(action_bound,) * act_dim,
        description=description,
    )


_CHEETAH_CAMERA = CameraSpec(body="torso", distance=4.0, elevation=-20.0)
_HOPPER_CAMERA = CameraSpec(body="torso", distance=3.0, elevation=-20.0, lookat_height=0.0)
_WALKER_CAMERA = CameraSpec(body="torso", distance=4.0, elevation=-20.0, lookat_height=-0.2)
_ANT_CAMERA = CameraSpec(body="torso", distance=6.0, elevation=-35.0)
_SWIMMER_CAMERA = CameraSpec(body="mid", distance=4.5, elevation=-45.0)

_ENERGY = Objective("energy", None, _ENERGY_NOTE)
# MO-Gymnasium's control cost objective is negative: minus the sum of squared actions.
_CONTROL = Objective(
    "energy", None, "minus the sum of squared actions: higher means less energy used"
)

SPECS: tuple[EnvSpec, ...] = (
    # --- D4MORL (PEDA, ICLR 2023): objective formulas in paretoscope.envs.d4morl
    # -------------------
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
    _mo_gymnasium(
        "mo-humanoid-v5",
        (Objective("velocity", "m/s"), _CONTROL),
        obs_dim=348,
        act_dim=17,
        dt=0.015,
        camera=CameraSpec(body="torso", distance=4.0, elevation=-20.0, lookat_height=-0.3),
        description="MO-Gymnasium Humanoid: velocity vs energy (strongly correlated)",
        action_bound=0.4,
    ),
    EnvSpec(
        id="mo-reacher-v5",
        family="mo-gymnasium",
        objectives=tuple(
            Objective(f"target_{i}", None, f"1 - 4 x squared distance of the tip to target {i}")
            for i in range(1, 5)
        ),
        obs_dim=6,
        act_dim=1,
        n_actions=9,
        horizon=50,
        dt=0.02,
        reference_point=(-50.0,) * 4,
        reference_point_source="-1 per step and objective over its 50 steps (paretoscope's "
        "choice: the lowest return the reward space allows)",
        camera=CameraSpec(body="body0", distance=0.9, elevation=-90.0, azimuth=90.0),
        action_low=(0.0,),
        action_high=(8.0,),
        description="MO-Gymnasium Reacher: reach one of four targets (9 discrete torques)",
    ),
)
