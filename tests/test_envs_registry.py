"""The registry: every id builds, and the spec agrees with the environment it builds."""

from __future__ import annotations

import numpy as np
import pytest

from core.envs import get_spec, list_specs, make_env
from core.errors import ParetoscopeError

MO_GYMNASIUM_IDS = [spec.id for spec in list_specs() if spec.family == "mo-gymnasium"]
D4MORL_IDS = [spec.id for spec in list_specs() if spec.family == "d4morl"]


def test_both_families_are_registered_with_the_required_ids() -> None:
    assert set(D4MORL_IDS) == {
        "MO-HalfCheetah-v2",
        "MO-Hopper-v2",
        "MO-Hopper-v3",
        "MO-Walker2d-v2",
        "MO-Ant-v2",
        "MO-Swimmer-v2",
    }
    required = {
        "mo-halfcheetah-v5",
        "mo-hopper-v5",
        "mo-hopper-2obj-v5",
        "mo-walker2d-v5",
        "mo-ant-2obj-v5",
        "mo-swimmer-v5",
    }
    assert required <= set(MO_GYMNASIUM_IDS)


def test_unknown_id_names_the_known_ids() -> None:
    with pytest.raises(ParetoscopeError) as error:
        get_spec("MO-Cheetah-v9")
    message = str(error.value)
    assert "MO-Cheetah-v9" in message
    assert "MO-HalfCheetah-v2" in message and "mo-hopper-v5" in message
    with pytest.raises(ParetoscopeError):
        make_env("not-an-env")


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
        assert observation.shape == (spec.obs_dim,)
        assert env.action_space.shape == (spec.act_dim,)
        np.testing.assert_allclose(env.action_space.low, spec.action_low)
        np.testing.assert_allclose(env.action_space.high, spec.action_high)
        assert env.unwrapped.reward_space.shape == (spec.n_obj,)
        assert env.unwrapped.dt == pytest.approx(spec.dt)
        _, reward, *_ = env.step(np.zeros(spec.act_dim))
        assert reward.shape == (spec.n_obj,) and reward.dtype == np.float32
        # The tracking camera must name a real body of the model.
        model = env.unwrapped.model
        body_names = {model.body(i).name for i in range(model.nbody)}
        assert spec.camera.body in body_names
    finally:
        env.close()


@pytest.mark.parametrize("env_id", MO_GYMNASIUM_IDS)
def test_mo_gymnasium_horizon_is_the_registered_one(env_id: str) -> None:
    env = make_env(env_id)
    try:
        assert env.spec is not None and env.spec.max_episode_steps == get_spec(env_id).horizon
    finally:
        env.close()
