"""MO-Gymnasium's classic tasks (and its MuJoCo v4 ids): what its documentation says of each.

A task's spaces, objective count, time limit and frame rate are read from the env itself the
first time its spec is asked for (`spec_from_env`); this table adds what the env cannot say:
objective names and units (from MO-Gymnasium's documentation), the hypervolume reference point
and where it comes from. An env without a registered time limit gets `DEFAULT_HORIZON` steps
(most of them end earlier on their own: fruit-tree at its depth, water-reservoir at 100 steps,
fishwood at 200, highway at its 40 s duration); `--horizon` asks for more.

Observations: images (minecart-rgb) and grids (highway) keep their shape; a `Dict` observation
(breakable-bottles) is flattened with `gymnasium.spaces.flatten` (one-hot for its discrete
parts), the vector every MORL-Baselines agent is fed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from paretoscope.envs.episode_random import GLOBAL_NUMPY_DRAWS
from paretoscope.envs.spec import DEFAULT_HORIZON, EnvSpec, Objective

_MORL_BASELINES = "MORL-Baselines' examples"
_WORST = "paretoscope's choice: the lowest return the time limit allows"
_BELOW_RANDOM = "paretoscope's choice: below what a uniform random policy collects"
_JUST_BELOW = "paretoscope's choice: just below the origin, so one objective alone still counts"


@dataclass(frozen=True)
class SuiteTask:
    """The documented part of one MO-Gymnasium task's spec."""

    id: str
    objectives: tuple[Objective, ...]
    reference_point: tuple[float, ...]
    reference_point_source: str
    description: str
    # The env draws from numpy's global generator (minecart's ore), not only from its own
    # seeded one: paretoscope gives each episode its own (paretoscope.envs.episode_random).
    global_numpy_random: bool = False


def _names(*names: str) -> tuple[Objective, ...]:
    return tuple(Objective(name) for name in names)


_TIME = Objective("time", "steps", "-1 every step")
_DST_OBJECTIVES = (Objective("treasure", None, "value of the treasure found"), _TIME)
_MINECART = (
    Objective("ore_1", None, "first ore brought to the base"),
    Objective("ore_2", None, "second ore brought to the base"),
    Objective("fuel", None, "minus the fuel spent"),
)
_MOUNTAINCAR_TIME = Objective("time", "steps", "-1 every step")
_REVERSE = Objective("reverse", None, "-1 every step the car pushes left")
_FORWARD = Objective("forward", None, "-1 every step the car pushes right")
_MOVE = Objective("move", None, "-1 every step the car pushes either way")
_SPEED = Objective("speed", None, "speed of the car")
_LUNAR = (
    Objective("landing", None, "+100 landed, -100 crashed"),
    Objective("shaping", None, "closeness, slowness and leg contact (Gymnasium's shaping)"),
    Objective("main_fuel", None, "minus the main engine's fuel"),
    Objective("side_fuel", None, "minus the side engines' fuel"),
)
_HIGHWAY = (
    Objective("speed", None, "high-speed reward per step"),
    Objective("right_lane", None, "right-lane reward per step"),
    Objective("collision", None, "-1 on a crash"),
)
_NUTRIENTS = _names("protein", "carbs", "fats", "vitamins", "minerals", "water")

# MuJoCo v4 ids (the v5 ones are described in paretoscope.envs.mujoco_specs and drawn by
# paretoscope's
# renderer); v4 tasks draw themselves. v4 says `-2d` where v5 says `-2obj`.
_VELOCITY = Objective("velocity", "m/s")
_ENERGY = Objective(
    "energy", None, "minus the sum of squared actions: higher means less energy used"
)
_HEIGHT = Objective("height", "m", "10 x height")
_MUJOCO_V4 = {
    "mo-halfcheetah-v4": (_VELOCITY, _ENERGY),
    "mo-hopper-v4": (_VELOCITY, _HEIGHT, _ENERGY),
    "mo-hopper-2d-v4": (_VELOCITY, _HEIGHT),
    "mo-walker2d-v4": (_VELOCITY, _ENERGY),
    "mo-ant-v4": (Objective("x_velocity", "m/s"), Objective("y_velocity", "m/s"), _ENERGY),
    "mo-ant-2d-v4": (Objective("x_velocity", "m/s"), Objective("y_velocity", "m/s")),
    "mo-swimmer-v4": (_VELOCITY, _ENERGY),
    "mo-humanoid-v4": (_VELOCITY, _ENERGY),
    "mo-reacher-v4": tuple(
        Objective(f"target_{i}", None, f"1 - 4 x squared distance of the tip to target {i}")
        for i in range(1, 5)
    ),
}

TASKS: tuple[SuiteTask, ...] = (
    SuiteTask(
        "deep-sea-treasure-v0",
        _DST_OBJECTIVES,
        (0.0, -25.0),
        _MORL_BASELINES,
        "Deep Sea Treasure: a submarine trades treasure for time (convex front)",
    ),
    SuiteTask(
        "deep-sea-treasure-concave-v0",
        _DST_OBJECTIVES,
        (0.0, -25.0),
        _MORL_BASELINES + " for deep-sea-treasure-v0 (same map size)",
        "Deep Sea Treasure with concave treasure values",
    ),
    SuiteTask(
        "deep-sea-treasure-mirrored-v0",
        _DST_OBJECTIVES,
        (0.0, -100.0),
        _WORST,
        "Deep Sea Treasure mirrored: treasures on both sides, longer paths",
    ),
    SuiteTask(
        "fruit-tree-v0",
        _NUTRIENTS,
        (0.0,) * 6,
        _MORL_BASELINES,
        "Fruit Tree: pick one leaf of a depth-6 binary tree, six nutrients",
    ),
    SuiteTask(
        "resource-gathering-v0",
        (
            Objective("enemy", None, "-1 when killed by an enemy"),
            Objective("gold", None, "+1 when home with gold"),
            Objective("diamond", None, "+1 when home with a diamond"),
        ),
        (-1.0, -1.0, -1.0),
        _JUST_BELOW,
        "Resource Gathering: fetch gold and diamonds past enemies",
    ),
    SuiteTask(
        "four-room-v0",
        _names("blue_square", "green_triangle", "red_circle"),
        (-1.0, -1.0, -1.0),
        _JUST_BELOW,
        "Four Room: collect three kinds of items in a four-room grid",
    ),
    SuiteTask(
        "breakable-bottles-v0",
        (
            _TIME,
            Objective("bottles", None, "reward per bottle delivered"),
            Objective("potential", None, "penalty for bottles left broken on the ground"),
        ),
        (-100.0, -1.0, -100.0),
        _WORST,
        "Breakable Bottles: deliver bottles fast without breaking them",
    ),
    SuiteTask(
        "fishwood-v0",
        _names("fish", "wood"),
        (-1.0, -1.0),
        _JUST_BELOW,
        "Fishwood: gather wood or fish (text only: it draws no picture)",
    ),
    SuiteTask(
        "water-reservoir-v0",
        (
            Objective("flooding", None, "minus the excess level upstream"),
            Objective("deficit", None, "minus the water supply deficit"),
        ),
        (-10000.0, -2000.0),
        _BELOW_RANDOM,
        "Water Reservoir: release water, trading flooding for supply",
    ),
    SuiteTask(
        "minecart-v0",
        _MINECART,
        (0.0, 0.0, -200.0),
        _MORL_BASELINES,
        "Minecart: mine two ores and bring them home, spending little fuel",
        global_numpy_random=True,
    ),
    SuiteTask(
        "minecart-deterministic-v0",
        _MINECART,
        (0.0, 0.0, -200.0),
        _MORL_BASELINES,
        "Minecart with deterministic mining",
        global_numpy_random=True,
    ),
    SuiteTask(
        "minecart-rgb-v0",
        _MINECART,
        (0.0, 0.0, -200.0),
        _MORL_BASELINES + " for minecart-v0",
        "Minecart seen as 480x480 RGB images",
        global_numpy_random=True,
    ),
    SuiteTask(
        "mo-mountaincar-v0",
        (_MOUNTAINCAR_TIME, _REVERSE, _FORWARD),
        (-200.0, -200.0, -200.0),
        _WORST,
        "Mountain Car: reach the flag, pushing little either way",
    ),
    SuiteTask(
        "mo-mountaincar-3d-v0",
        (_MOUNTAINCAR_TIME, _MOVE, _SPEED),
        (-200.0, -200.0, 0.0),
        _WORST,
        "Mountain Car: time vs pushing vs speed",
    ),
    SuiteTask(
        "mo-mountaincar-timemove-v0",
        (_MOUNTAINCAR_TIME, _MOVE),
        (-200.0, -200.0),
        _WORST,
        "Mountain Car: time vs pushing",
    ),
    SuiteTask(
        "mo-mountaincar-timespeed-v0",
        (_MOUNTAINCAR_TIME, _SPEED),
        (-200.0, 0.0),
        _WORST,
        "Mountain Car: time vs speed",
    ),
    SuiteTask(
        "mo-mountaincarcontinuous-v0",
        (_MOUNTAINCAR_TIME, Objective("fuel", None, "minus the squared action")),
        (-999.0, -999.0),
        _WORST,
        "Continuous Mountain Car: time vs fuel",
    ),
    SuiteTask(
        "mo-lunar-lander-v3",
        _LUNAR,
        (-101.0, -1001.0, -101.0, -101.0),
        _MORL_BASELINES,
        "Lunar Lander: land safely vs shaping vs main and side fuel",
    ),
    SuiteTask(
        "mo-lunar-lander-continuous-v3",
        _LUNAR,
        (-101.0, -1001.0, -101.0, -101.0),
        _MORL_BASELINES,
        "Continuous Lunar Lander: land safely vs shaping vs main and side fuel",
    ),
    SuiteTask(
        "mo-highway-v0",
        _HIGHWAY,
        (0.0, 0.0, -1.0),
        _WORST,
        "Highway: drive fast and on the right without crashing (about 6 steps/s)",
    ),
    SuiteTask(
        "mo-highway-fast-v0",
        _HIGHWAY,
        (0.0, 0.0, -1.0),
        _WORST,
        "Highway (fast simulation): drive fast and on the right without crashing",
    ),
    *(
        SuiteTask(
            env_id,
            objectives,
            ((-50.0,) * 4 if "reacher" in env_id else (-100.0,) * len(objectives)),
            _WORST
            if "reacher" in env_id
            else "-100 per objective, as MORL-Baselines uses for MuJoCo tasks",
            f"MO-Gymnasium {env_id.split('-')[1].capitalize()} (v4; draws itself)",
        )
        for env_id, objectives in _MUJOCO_V4.items()
    ),
)


def spec_from_env(task: SuiteTask) -> EnvSpec:
    """The spec of `task`, with spaces, time limit and frame rate read from the env itself."""
    import gymnasium as gym
    from gymnasium import spaces

    from paretoscope.envs.dependencies import mo_gymnasium_make

    env = mo_gymnasium_make(task.id)
    try:
        unwrapped = env.unwrapped
        observation_space = env.observation_space
        action_space = env.action_space
        reward_dim = int(getattr(unwrapped, "reward_dim", 0) or len(task.objectives))
        render_fps = unwrapped.metadata.get("render_fps")
        model_dt = getattr(unwrapped, "dt", None)
    finally:
        env.close()
    if reward_dim != len(task.objectives):
        raise AssertionError(f"{task.id}: {reward_dim} rewards, {len(task.objectives)} names")

    if isinstance(observation_space, spaces.Dict):
        obs_shape: tuple[int, ...] = (int(spaces.flatdim(observation_space)),)
    else:
        obs_shape = tuple(int(side) for side in observation_space.shape or ())
    low: tuple[float, ...]
    high: tuple[float, ...]
    if isinstance(action_space, spaces.Discrete):
        n_actions: int | None = int(action_space.n)
        act_dim, low, high = 1, (0.0,), (float(action_space.n - 1),)
    elif isinstance(action_space, spaces.Box):
        n_actions = None
        act_dim = int(math.prod(action_space.shape))
        low = tuple(float(value) for value in np.asarray(action_space.low).ravel())
        high = tuple(float(value) for value in np.asarray(action_space.high).ravel())
    else:  # no MO-Gymnasium task has another kind; a user's env would need its own spec
        raise AssertionError(f"{task.id}: unsupported action space {action_space}")
    limit = gym.spec(task.id).max_episode_steps
    if isinstance(model_dt, float) and model_dt > 0:  # MuJoCo v4: the simulated time step
        dt = model_dt
    else:  # the pace the env itself plays at; 4 steps/s for one that says none (fishwood)
        dt = 1.0 / float(render_fps) if render_fps else 0.25
    return EnvSpec(
        id=task.id,
        family="mo-gymnasium",
        objectives=task.objectives,
        obs_dim=int(math.prod(obs_shape)),
        obs_shape=obs_shape,
        act_dim=act_dim,
        n_actions=n_actions,
        horizon=int(limit) if limit else DEFAULT_HORIZON,
        horizon_source="registry" if limit else "default",
        dt=dt,
        reference_point=task.reference_point,
        reference_point_source=task.reference_point_source,
        camera=None,
        action_low=low,
        action_high=high,
        description=task.description,
        extra={GLOBAL_NUMPY_DRAWS: True} if task.global_numpy_random else {},
    )
