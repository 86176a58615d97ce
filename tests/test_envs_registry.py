"""The registry: every id builds, steps and draws, and its spec agrees with the env it builds."""

from __future__ import annotations

import gymnasium as gym
import mo_gymnasium  # noqa: F401 - registers MO-Gymnasium's ids with gymnasium
import numpy as np
import pytest

from paretoscope.agents.random_agent import RandomAgent
from paretoscope.envs import EnvSpec, Objective, get_spec, list_ids, list_specs, make_env, register
from paretoscope.envs.registry import REGISTRY
from paretoscope.errors import ParetoscopeError
from paretoscope.render.frames import stream_frames
from paretoscope.rollout import rollout_batch

MO_GYMNASIUM_IDS = list_ids("mo-gymnasium")
D4MORL_IDS = list_ids("d4morl")
# What MO-Gymnasium 1.3.2 itself registers, read from gymnasium's registry: the truth the
# default registry is checked against (mo-supermario-v0 needs game ROMs no package installs).
UPSTREAM_IDS = sorted(
    env_id
    for env_id, entry in gym.registry.items()
    if "mo_gymnasium" in str(entry.entry_point) and env_id != "mo-supermario-v0"
)


def test_both_families_are_registered_with_the_required_ids() -> None:
    assert set(D4MORL_IDS) == {
        "MO-HalfCheetah-v2",
        "MO-Hopper-v2",
        "MO-Hopper-v3",
        "MO-Walker2d-v2",
        "MO-Ant-v2",
        "MO-Swimmer-v2",
    }
    assert sorted(MO_GYMNASIUM_IDS) == UPSTREAM_IDS
    assert len(UPSTREAM_IDS) == 39
    assert "mo-supermario-v0" not in REGISTRY


def test_unknown_id_names_the_closest_known_ids() -> None:
    with pytest.raises(ParetoscopeError) as error:
        get_spec("minecart")
    message = str(error.value)
    assert "'minecart'" in message and "closest: minecart-v0" in message
    with pytest.raises(ParetoscopeError, match="closest: mo-halfcheetah-v5"):
        get_spec("MO-halfcheetah-v5")
    with pytest.raises(ParetoscopeError, match="unknown environment id"):
        make_env("not-an-env")


def test_register_adds_an_env_and_refuses_a_second_time() -> None:
    base = get_spec("deep-sea-treasure-v0")
    spec = EnvSpec(
        id="my-dst-v0",
        family="mo-gymnasium",
        objectives=(Objective("treasure"), Objective("time")),
        obs_dim=2,
        act_dim=1,
        n_actions=4,
        horizon=50,
        dt=0.25,
        reference_point=(0.0, -25.0),
        camera=None,
        action_low=(0.0,),
        action_high=(3.0,),
    )
    register(
        "my-dst-v0", spec, make=lambda render_mode=None: gym.make(base.id, max_episode_steps=50)
    )
    try:
        assert get_spec("my-dst-v0") is spec and "my-dst-v0" in list_ids()
        rollout = rollout_batch(
            RandomAgent("my-dst-v0"), "my-dst-v0", np.array([[0.5, 0.5]]), seeds=[0]
        )
        assert rollout.lengths[0] <= 50
        with pytest.raises(ParetoscopeError, match="already registered"):
            register("my-dst-v0", spec)
        with pytest.raises(ParetoscopeError, match="lazy"):
            register("my-lazy-v0", lambda: spec)
    finally:
        REGISTRY._entries.pop("my-dst-v0", None)


def test_d4morl_reference_point_is_the_origin() -> None:
    for env_id in D4MORL_IDS:
        spec = get_spec(env_id)
        assert spec.reference_point == (0.0,) * spec.n_obj
        assert spec.horizon == 500


@pytest.mark.parametrize("env_id", [*MO_GYMNASIUM_IDS, *D4MORL_IDS])
def test_spec_matches_the_built_environment(env_id: str) -> None:
    spec = get_spec(env_id)
    env = make_env(env_id)
    try:
        observation, _ = env.reset(seed=0)
        space = env.observation_space
        flat = (
            gym.spaces.flatten(space, observation) if isinstance(space, gym.spaces.Dict) else None
        )
        shape = flat.shape if flat is not None else np.shape(observation)
        assert shape == spec.obs_shape and int(np.prod(shape)) == spec.obs_dim
        if isinstance(env.action_space, gym.spaces.Discrete):
            assert spec.n_actions == env.action_space.n and spec.action_shape == ()
            action: object = 0
        else:
            assert spec.n_actions is None and env.action_space.shape == (spec.act_dim,)
            np.testing.assert_allclose(env.action_space.low, spec.action_low)
            np.testing.assert_allclose(env.action_space.high, spec.action_high)
            action = np.zeros(spec.act_dim, dtype=env.action_space.dtype)
        assert env.unwrapped.reward_space.shape == (spec.n_obj,)
        assert len(spec.reference_point) == spec.n_obj and spec.reference_point_source
        _, reward, *_ = env.step(action)
        assert np.shape(reward) == (spec.n_obj,)
        if spec.camera is not None:  # the tracking camera must name a real body of the model
            model = env.unwrapped.model
            assert env.unwrapped.dt == pytest.approx(spec.dt)
            assert spec.camera.body in {model.body(i).name for i in range(model.nbody)}
    finally:
        env.close()


@pytest.mark.parametrize("env_id", MO_GYMNASIUM_IDS)
def test_horizon_is_the_registered_time_limit_or_the_documented_default(env_id: str) -> None:
    spec = get_spec(env_id)
    limit = gym.spec(env_id).max_episode_steps
    if limit is None:
        assert spec.horizon_source == "default" and spec.horizon == 1000
        assert spec.max_horizon > spec.horizon
    else:
        assert spec.horizon_source == "registry" and spec.horizon == limit == spec.max_horizon


@pytest.mark.parametrize("env_id", MO_GYMNASIUM_IDS)
def test_every_env_steps_and_draws_a_frame_with_the_random_agent(env_id: str) -> None:
    spec = get_spec(env_id)
    preference = np.full(spec.n_obj, 1.0 / spec.n_obj)
    frames = stream_frames(
        RandomAgent(env_id), env_id, preference, seed=0, size=(96, 64), horizon=2
    )
    try:
        first = next(frames)
    finally:
        frames.close()
    # The size asked for, or (an env that draws itself) its own picture's aspect ratio at about
    # that area (`paretoscope.render.env_frames.own_aspect_size`).
    height, width, channels = first.frame.shape
    assert channels == 3 and first.frame.dtype == np.uint8
    assert abs(height * width - 96 * 64) <= 0.1 * 96 * 64 and height % 2 == width % 2 == 0
    assert first.frame.std() > 0  # a picture (or the text card of an env that draws none)
    assert first.record.step >= 1


def test_list_specs_of_one_family_builds_only_that_family() -> None:
    assert [spec.id for spec in list_specs("d4morl")] == D4MORL_IDS
