"""The six D4MORL environments against independent truth (docs/reference.md#d4morl-environments).

Expected values are computed here by hand from the table in docs/reference.md and from positions
read straight out of MuJoCo's `MjData`; the unedited models are loaded from gymnasium's XML files
with `mujoco.MjModel.from_xml_path`, independently of the code under test.
"""

from __future__ import annotations

import math
import warnings

import mujoco
import numpy as np
import pytest
from gymnasium.utils import seeding

from paretoscope.envs import get_spec, list_specs, make_env
from paretoscope.envs.d4morl import D4MORLEnv, gymnasium_assets_dir, load_physics, make_d4morl_env
from paretoscope.errors import ParetoscopeError

D4MORL_IDS = [spec.id for spec in list_specs() if spec.family == "d4morl"]

# Hand-written from docs/reference.md#d4morl-environments:
# (obs_dim, act_dim, dt, n_obj, objective names).
TABLE = {
    "MO-HalfCheetah-v2": (17, 6, 0.05, ("run", "energy")),
    "MO-Hopper-v2": (11, 3, 0.01, ("run", "jump")),
    "MO-Hopper-v3": (11, 3, 0.01, ("run", "jump", "energy")),
    "MO-Walker2d-v2": (17, 6, 0.008, ("speed", "energy")),
    "MO-Ant-v2": (27, 8, 0.05, ("x_velocity", "y_velocity")),
    "MO-Swimmer-v2": (8, 2, 0.04, ("forward", "energy")),
}
XML_FILES = {
    "MO-HalfCheetah-v2": "half_cheetah.xml",
    "MO-Hopper-v2": "hopper.xml",
    "MO-Hopper-v3": "hopper.xml",
    "MO-Walker2d-v2": "walker2d_v5.xml",
    "MO-Ant-v2": "ant.xml",
    "MO-Swimmer-v2": "swimmer.xml",
}
HOPPER_BOUND = np.array([2.0, 2.0, 4.0])
HOPPER_INIT_HEIGHT = 1.25  # rootz ref="1.25" in hopper.xml


def _env(env_id: str) -> D4MORLEnv:
    env = make_env(env_id)
    assert isinstance(env, D4MORLEnv)
    return env


def _unedited_model(env_id: str) -> mujoco.MjModel:
    with warnings.catch_warnings():  # half_cheetah.xml's deprecated settotalmass
        warnings.simplefilter("ignore")
        return mujoco.MjModel.from_xml_path(str(gymnasium_assets_dir() / XML_FILES[env_id]))


def get_qpos0(env_id: str) -> np.ndarray:
    """The initial qpos of gymnasium's unedited model."""
    return _unedited_model(env_id).qpos0.copy()


def _step_from(env: D4MORLEnv, qpos, qvel, action):
    """Set the state by hand, take one step; return (x_before, qpos_after, step results)."""
    env.reset(seed=0)
    env.set_state(np.asarray(qpos, dtype=float), np.asarray(qvel, dtype=float))
    qpos_before = env.data.qpos.copy()
    time_before = env.data.time
    result = env.step(np.asarray(action, dtype=np.float32))
    assert math.isclose(env.data.time - time_before, TABLE[env.env_spec.id][2], rel_tol=1e-9)
    return qpos_before, env.data.qpos.copy(), result


def test_the_registry_lists_exactly_the_six_tasks() -> None:
    assert sorted(D4MORL_IDS) == sorted(TABLE)


@pytest.mark.parametrize("env_id", sorted(TABLE))
def test_dims_spaces_and_reward_vector(env_id: str) -> None:
    obs_dim, act_dim, dt, names = TABLE[env_id]
    env = _env(env_id)
    spec = get_spec(env_id)
    assert spec.objective_names == names
    assert math.isclose(env.dt, dt) and math.isclose(spec.dt, dt) and spec.horizon == 500
    assert env.observation_space.shape == (obs_dim,)
    assert env.action_space.shape == (act_dim,)
    bound = HOPPER_BOUND if "Hopper" in env_id else np.ones(act_dim)
    np.testing.assert_array_equal(env.action_space.high, bound)
    np.testing.assert_array_equal(env.action_space.low, -bound)
    assert env.reward_space.shape == (len(names),) and env.reward_dim == len(names)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (obs_dim,) and obs.dtype == np.float64
    assert env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert obs.shape == (obs_dim,)
    assert reward.shape == (len(names),) and reward.dtype == np.float32
    assert isinstance(terminated, bool) and truncated is False
    assert "x_position" in info and "x_velocity" in info


@pytest.mark.parametrize("env_id", sorted(TABLE))
def test_observation_layout(env_id: str) -> None:
    env = _env(env_id)
    nq, nv = env.model.nq, env.model.nv
    qpos = np.arange(1.0, nq + 1.0) / 10.0
    qvel = np.linspace(-30.0, 30.0, nv)
    obs = env.physics.observation(qpos, qvel)
    skipped = 2 if env_id in ("MO-Ant-v2", "MO-Swimmer-v2") else 1  # root x (and y)
    expected_vel = np.clip(qvel, -10, 10) if ("Hopper" in env_id or "Walker" in env_id) else qvel
    np.testing.assert_array_equal(obs, np.concatenate([qpos[skipped:], expected_vel]))
    # Ant: 13 qpos + 14 qvel = 27, no contact forces.
    assert obs.shape == (TABLE[env_id][0],)


def test_half_cheetah_run_and_energy_from_a_known_step() -> None:
    env = _env("MO-HalfCheetah-v2")
    action = np.array([0.5, -0.5, 0.5, -0.5, 0.5, 0.5])  # Σa² = 1.5
    qpos = env.model.qpos0.copy()
    qvel = np.zeros(env.model.nv)
    qvel[0] = 1.0
    before, after, (_, reward, _, _, info) = _step_from(env, qpos, qvel, action)
    velocity = (after[0] - before[0]) / 0.05
    assert 0 < velocity < 4
    np.testing.assert_allclose(reward, [velocity + 1, 5 - 1.5], rtol=1e-6)
    assert math.isclose(info["x_velocity"], velocity)


def test_half_cheetah_run_is_capped_at_four() -> None:
    env = _env("MO-HalfCheetah-v2")
    qvel = np.zeros(env.model.nv)
    qvel[0] = 10.0
    before, after, (_, reward, *_) = _step_from(env, env.model.qpos0, qvel, np.zeros(6))
    assert (after[0] - before[0]) / 0.05 > 4
    assert reward[0] == pytest.approx(5.0) and reward[1] == pytest.approx(5.0)


def test_energy_uses_the_clipped_action_and_reward_space_bounds() -> None:
    env = _env("MO-HalfCheetah-v2")
    env.reset(seed=0)
    _, reward, *_ = env.step(np.full(6, 3.0, dtype=np.float32))  # clipped to 1: Σa² = 6
    assert reward[1] == pytest.approx(-1.0) == env.reward_space.low[1]
    assert env.reward_space.high[1] == pytest.approx(5.0)


@pytest.mark.parametrize("env_id", ["MO-Hopper-v2", "MO-Hopper-v3"])
def test_hopper_run_jump_energy_from_a_known_step(env_id: str) -> None:
    env = _env(env_id)
    qpos = np.array([0.3, 1.5, 0.0, 0.0, 0.0, 0.0])  # lifted 0.25 m above the initial height
    qvel = np.array([2.0, 0.5, 0.0, 0.0, 0.0, 0.0])
    action = np.array([1.0, -1.0, 2.0])  # Σa² = 6, within ±2/±2/±4
    before, after, (_, reward, terminated, _, info) = _step_from(env, qpos, qvel, action)
    velocity = (after[0] - before[0]) / 0.01
    height = after[1]
    assert not terminated and height > 1.4 and velocity > 1
    np.testing.assert_array_equal(env.data.ctrl, action)  # ctrl range ±2/±2/±4: ctrl = action
    if env_id == "MO-Hopper-v2":
        others = 1 - 2e-4 * 6
        expected = [1.5 * velocity + others, 12 * (height - HOPPER_INIT_HEIGHT) + others]
    else:
        expected = [1.5 * velocity + 1, 12 * (height - HOPPER_INIT_HEIGHT) + 1, 5 - 6]
    np.testing.assert_allclose(reward, expected, rtol=1e-6, atol=1e-6)
    assert info["height"] == pytest.approx(height)


def test_hopper_energy_of_an_action_beyond_the_bounds() -> None:
    env = _env("MO-Hopper-v3")
    env.reset(seed=0)
    _, reward, *_ = env.step(np.array([5.0, -5.0, 9.0], dtype=np.float32))
    np.testing.assert_array_equal(env.data.ctrl, [2.0, -2.0, 4.0])
    assert reward[2] == pytest.approx(5 - 24) == env.reward_space.low[2]


def test_walker_speed_and_energy_from_a_known_step() -> None:
    env = _env("MO-Walker2d-v2")
    qvel = np.zeros(env.model.nv)
    qvel[0] = 1.5
    action = np.array([0.1, 0.2, 0.3, -0.4, -0.5, 0.6])  # Σa² = 0.91
    before, after, (_, reward, *_) = _step_from(env, env.model.qpos0, qvel, action)
    velocity = (after[0] - before[0]) / 0.008
    assert velocity > 1
    np.testing.assert_allclose(reward, [velocity + 1, 5 - 0.91], rtol=1e-6)


def test_ant_x_and_y_velocity_from_a_known_step() -> None:
    env = _env("MO-Ant-v2")
    qvel = np.zeros(env.model.nv)
    qvel[:2] = [1.0, -2.0]
    action = np.full(8, 0.5)  # Σa² = 2, o = 1 - 0.5·2 = 0
    before, after, (_, reward, _, _, info) = _step_from(env, env.model.qpos0, qvel, action)
    vx, vy = (after[:2] - before[:2]) / 0.05
    assert vx > 0.5 and vy < -1
    np.testing.assert_allclose(reward, [vx + 0.0, vy + 0.0], rtol=1e-6, atol=1e-6)
    assert info["y_velocity"] == pytest.approx(vy)


def test_swimmer_forward_and_energy_from_a_known_step() -> None:
    env = _env("MO-Swimmer-v2")
    qvel = np.zeros(env.model.nv)
    qvel[0] = 0.8
    action = np.array([0.6, -0.8])  # Σa² = 1
    before, after, (_, reward, *_) = _step_from(env, env.model.qpos0, qvel, action)
    velocity = (after[0] - before[0]) / 0.04
    assert velocity > 0.1
    np.testing.assert_allclose(reward, [velocity, 0.3 - 0.15], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("env_id", sorted(TABLE))
def test_an_action_beyond_the_bounds_acts_as_the_clipped_one(env_id: str) -> None:
    env = _env(env_id)
    env.reset(seed=3)
    qpos, qvel = env.data.qpos.copy(), env.data.qvel.copy()
    bound = env.action_space.high.astype(np.float64)
    wild = np.where(np.arange(bound.size) % 2 == 0, 3.0, -2.5) * bound
    results = []
    for action in (wild, np.clip(wild, -bound, bound)):
        env.set_state(qpos, qvel)
        obs, reward, *_ = env.step(action.astype(np.float32))
        results.append((obs, reward, env.data.qpos.copy()))
    for got, expected in zip(results[0], results[1], strict=True):
        np.testing.assert_array_equal(got, expected)


def _terminated_after_step(env_id: str, qpos, qvel=None) -> bool:
    env = _env(env_id)
    qvel = np.zeros(env.model.nv) if qvel is None else qvel
    *_, (_, _, terminated, _, _) = _step_from(env, qpos, qvel, np.zeros(env.model.nu))
    return terminated


def test_half_cheetah_terminates_when_tipped_over_50_degrees() -> None:
    qpos0 = get_qpos0("MO-HalfCheetah-v2")
    assert not _terminated_after_step("MO-HalfCheetah-v2", qpos0)
    tipped = qpos0.copy()
    tipped[1], tipped[2] = 0.5, np.deg2rad(60)
    assert _terminated_after_step("MO-HalfCheetah-v2", tipped)
    physics = load_physics("MO-HalfCheetah-v2")
    for angle, ends in ((49.9, False), (50.0, True), (-50.1, True), (-49.0, False)):
        state = qpos0.copy()
        state[2] = np.deg2rad(angle)
        assert bool(physics.terminated(state, np.zeros(9))) is ends, angle


@pytest.mark.parametrize("env_id", ["MO-Hopper-v2", "MO-Hopper-v3"])
def test_hopper_terminates_below_0_4_m_or_beyond_90_degrees(env_id: str) -> None:
    qpos0 = get_qpos0(env_id)
    assert not _terminated_after_step(env_id, qpos0)
    low = qpos0.copy()
    low[1] = 0.3
    assert _terminated_after_step(env_id, low)
    for index in (2, 3, 4, 5):  # torso angle, thigh, leg, foot
        bent = qpos0.copy()
        bent[index] = np.deg2rad(100) if index % 2 else -np.deg2rad(100)
        assert _terminated_after_step(env_id, bent), index
    physics = load_physics(env_id)
    for index, value, ends in ((1, 0.41, False), (1, 0.4, True), (4, np.deg2rad(89.9), False)):
        state = qpos0.copy()
        state[index] = value
        assert bool(physics.terminated(state, np.zeros(6))) is ends, (index, value)


def test_walker_terminates_outside_its_height_and_angle_ranges() -> None:
    env_id = "MO-Walker2d-v2"
    qpos0 = get_qpos0(env_id)
    assert not _terminated_after_step(env_id, qpos0)
    for index, value in ((1, 0.7), (1, 2.1), (2, 1.1), (2, -1.1)):
        state = qpos0.copy()
        state[index] = value
        assert _terminated_after_step(env_id, state), (index, value)
    physics = load_physics(env_id)
    for index, value, ends in ((1, 0.81, False), (1, 0.8, True), (1, 2.0, True), (2, 0.99, False)):
        state = qpos0.copy()
        state[index] = value
        assert bool(physics.terminated(state, np.zeros(9))) is ends, (index, value)


def test_ant_terminates_on_a_non_finite_state() -> None:
    physics = load_physics("MO-Ant-v2")
    qpos0, qvel0 = get_qpos0("MO-Ant-v2"), np.zeros(14)
    assert not physics.terminated(qpos0, qvel0)
    assert not physics.terminated(qpos0 + 100.0, qvel0 + 1e6)  # far but finite
    bad_qpos, bad_qvel = qpos0.copy(), qvel0.copy()
    bad_qpos[5], bad_qvel[3] = np.nan, np.inf
    assert physics.terminated(bad_qpos, qvel0) and physics.terminated(qpos0, bad_qvel)
    # Through the env: MuJoCo resets a diverged state and flags it; the episode must end.
    assert not _terminated_after_step("MO-Ant-v2", qpos0)
    env = _env("MO-Ant-v2")
    nan_vel = np.zeros(14)
    nan_vel[0] = np.nan
    *_, (_, _, terminated, _, info) = _step_from(env, qpos0, nan_vel, np.zeros(8))
    assert terminated and info["unstable"]


def test_swimmer_never_terminates_and_truncates_at_step_500() -> None:
    physics = load_physics("MO-Swimmer-v2")
    assert not physics.terminated(np.full(5, 1e3), np.full(5, -1e3))
    env = _env("MO-Swimmer-v2")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (500, 2)).astype(np.float32)
    flags = [env.step(a)[2:4] for a in actions]
    assert not any(terminated for terminated, _ in flags)
    assert [truncated for _, truncated in flags] == [False] * 499 + [True]
    env.reset(seed=1)  # the count restarts
    assert env.step(actions[0])[3] is False


def test_half_cheetah_standing_still_truncates_at_500_with_the_zero_policy_return() -> None:
    env = _env("MO-HalfCheetah-v2")
    env.reset(seed=0)
    total = np.zeros(2)
    for step in range(1, 501):
        _, reward, terminated, truncated, _ = env.step(np.zeros(6, dtype=np.float32))
        total += reward
        assert not terminated and truncated is (step == 500)
    # Standing still: run ≈ 1 per step, energy = 5 per step.
    assert abs(total[0] - 500) < 5 and total[1] == pytest.approx(2500)


@pytest.mark.parametrize("env_id", sorted(TABLE))
def test_same_seed_gives_an_identical_episode(env_id: str) -> None:
    actions = np.random.default_rng(7).uniform(-1, 1, (60, TABLE[env_id][1])).astype(np.float32)

    def episode(seed: int) -> tuple[np.ndarray, np.ndarray]:
        env = _env(env_id)
        obs, _ = env.reset(seed=seed)
        observations, rewards = [obs], []
        for action in actions:
            obs, reward, terminated, _, _ = env.step(action * env.action_space.high)
            observations.append(obs)
            rewards.append(reward)
            if terminated:
                break
        return np.array(observations), np.array(rewards)

    first, second = episode(11), episode(11)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(episode(12)[0][0], first[0][0])


@pytest.mark.parametrize("env_id", sorted(TABLE))
def test_reset_noise_follows_the_documented_recipe(env_id: str) -> None:
    """qpos + U(±1e-3) (Hopper: height exact), then qvel + U(±1e-3) or 1e-3·N(0,1)."""
    env = _env(env_id)
    env.reset(seed=5)
    qpos0 = get_qpos0(env_id)
    nq, nv = qpos0.size, env.model.nv
    rng, _ = seeding.np_random(5)
    expected_qpos = qpos0 + rng.uniform(-1e-3, 1e-3, nq)
    if "Hopper" in env_id:
        expected_qpos[1] = HOPPER_INIT_HEIGHT
    if env_id in ("MO-HalfCheetah-v2", "MO-Ant-v2"):
        expected_qvel = 1e-3 * rng.standard_normal(nv)
    else:
        expected_qvel = rng.uniform(-1e-3, 1e-3, nv)
    np.testing.assert_array_equal(env.data.qpos, expected_qpos)
    np.testing.assert_array_equal(env.data.qvel, expected_qvel)
    assert np.all(np.abs(env.data.qpos - qpos0) <= 1e-3) and np.all(env.data.qvel != 0)


def test_hopper_physics_edits_in_the_compiled_model() -> None:
    original = _unedited_model("MO-Hopper-v3")
    model = load_physics("MO-Hopper-v3").model
    np.testing.assert_array_equal(original.dof_damping, [0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(model.dof_damping, [0, 0, 0, 40, 40, 40])
    assert original.jnt_limited[3:].all() and not model.jnt_limited.any()
    np.testing.assert_array_equal(model.actuator_gear[:, 0], [200, 200, 300])
    np.testing.assert_array_equal(model.actuator_ctrlrange, [[-2, 2], [-2, 2], [-4, 4]])
    assert model.actuator_ctrllimited.all()
    np.testing.assert_array_equal(model.body_mass, original.body_mass)
    assert math.isclose(model.opt.timestep, 0.002)


def test_walker_physics_edits_in_the_compiled_model() -> None:
    original = _unedited_model("MO-Walker2d-v2")
    model = load_physics("MO-Walker2d-v2").model
    np.testing.assert_array_equal(model.dof_damping, [0, 0, 0] + [3.0] * 6)
    np.testing.assert_allclose(model.body_mass, 1.5 * original.body_mass, rtol=1e-12)
    np.testing.assert_allclose(model.body_inertia, 1.5 * original.body_inertia, rtol=1e-12)
    right_foot = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "foot_geom")
    left_foot = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "foot_left_geom")
    assert original.geom_friction[right_foot, 0] == 1.9
    assert model.geom_friction[right_foot, 0] == 0.9
    assert model.geom_friction[left_foot, 0] == 1.9
    others = np.ones(model.ngeom, dtype=bool)
    others[right_foot] = False
    np.testing.assert_array_equal(model.geom_friction[others], original.geom_friction[others])
    np.testing.assert_array_equal(model.jnt_limited, original.jnt_limited)
    np.testing.assert_array_equal(model.actuator_gear, original.actuator_gear)


def test_ant_physics_edits_in_the_compiled_model() -> None:
    original = _unedited_model("MO-Ant-v2")
    model = load_physics("MO-Ant-v2").model
    np.testing.assert_array_equal(original.actuator_gear[:, 0], [150] * 8)
    np.testing.assert_array_equal(model.actuator_gear[:, 0], [100] * 8)
    np.testing.assert_array_equal(model.dof_damping, original.dof_damping)
    np.testing.assert_array_equal(model.body_mass, original.body_mass)


def test_swimmer_physics_edits_in_the_compiled_model() -> None:
    original = _unedited_model("MO-Swimmer-v2")
    model = load_physics("MO-Swimmer-v2").model
    np.testing.assert_array_equal(original.actuator_gear[:, 0], [150, 150])
    np.testing.assert_array_equal(model.actuator_gear[:, 0], [300, 300])
    np.testing.assert_array_equal(model.body_mass, original.body_mass)
    np.testing.assert_array_equal(model.dof_damping, original.dof_damping)


def test_half_cheetah_model_equals_gymnasium_one() -> None:
    env_id = "MO-HalfCheetah-v2"
    original = _unedited_model(env_id)
    model = load_physics(env_id).model
    for name in (
        "body_mass",
        "body_inertia",
        "dof_damping",
        "dof_armature",
        "jnt_stiffness",
        "jnt_range",
        "jnt_limited",
        "actuator_gear",
        "actuator_ctrlrange",
        "geom_friction",
        "geom_size",
        "qpos0",
    ):
        np.testing.assert_array_equal(getattr(model, name), getattr(original, name), name)
    assert model.body_mass.sum() == pytest.approx(14.0)  # settotalmass="14"


def test_batched_formulas_match_one_state_at_a_time() -> None:
    physics = load_physics("MO-Hopper-v3")
    rng = np.random.default_rng(0)
    qpos_before = rng.normal(size=(4, 6)) + [0, 1.25, 0, 0, 0, 0]
    qpos_after = qpos_before + rng.normal(scale=0.01, size=(4, 6))
    qvel = rng.normal(scale=20, size=(4, 6))
    actions = physics.clip_action(rng.normal(scale=3, size=(4, 3)))
    rewards = physics.rewards(qpos_before, qpos_after, actions)
    ends = physics.terminated(qpos_after, qvel)
    obs = physics.observation(qpos_after, qvel)
    assert rewards.shape == (4, 3) and ends.shape == (4,) and obs.shape == (4, 11)
    for i in range(4):
        np.testing.assert_array_equal(
            rewards[i], physics.rewards(qpos_before[i], qpos_after[i], actions[i])
        )
        assert ends[i] == physics.terminated(qpos_after[i], qvel[i])
        np.testing.assert_array_equal(obs[i], physics.observation(qpos_after[i], qvel[i]))


def test_bad_use_raises_a_clear_error() -> None:
    with pytest.raises(ParetoscopeError, match="width"):
        make_env("MO-HalfCheetah-v2", frame_skip=3)
    with pytest.raises(ParetoscopeError, match="render_mode"):
        make_env("MO-HalfCheetah-v2", render_mode="human")
    with pytest.raises(ParetoscopeError, match="not a D4MORL"):
        make_d4morl_env(get_spec("mo-halfcheetah-v5"))
    env = _env("MO-Hopper-v3")
    with pytest.raises(ParetoscopeError, match="reset"):
        env.step(np.zeros(3))
    env.reset(seed=0)
    with pytest.raises(ParetoscopeError, match="shape"):
        env.step(np.zeros(4))
    with pytest.raises(ParetoscopeError, match="NaN"):
        env.step(np.array([0.0, np.nan, 0.0]))
    with pytest.raises(ParetoscopeError, match="qpos"):
        env.set_state(np.zeros(5), np.zeros(6))


def test_rgb_array_render_from_the_tracking_camera() -> None:
    env = make_env("MO-HalfCheetah-v2", render_mode="rgb_array", width=64, height=48)
    env.reset(seed=0)
    try:
        # The suite sets MUJOCO_GL=egl and needs it working: a broken GL setup must show here.
        frame = env.render()
    finally:
        env.close()
    assert frame is not None and frame.shape == (48, 64, 3) and frame.dtype == np.uint8
    assert frame.std() > 0  # not a blank image
    assert make_env("MO-HalfCheetah-v2").render() is None


def test_a_diverged_swimmer_is_flagged_but_does_not_terminate() -> None:
    env = _env("MO-Swimmer-v2")
    nan_vel = np.zeros(5)
    nan_vel[2] = np.nan
    *_, (_, _, terminated, _, info) = _step_from(env, get_qpos0("MO-Swimmer-v2"), nan_vel, [0, 0])
    assert info["unstable"] and not terminated
