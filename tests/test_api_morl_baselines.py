"""`paretoscope.from_morl_baselines`: live MORL-Baselines agents act as their own ``eval(obs, w)``.

The comparisons train real MORL-Baselines agents (the ``demo`` extra, ``morl-baselines==1.3.0``)
and are skipped where it is not installed; the refusals and the import check run everywhere.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paretoscope
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from tests.conftest import REPO_DIR

DST = "deep-sea-treasure-v0"
CONTINUOUS = "mo-mountaincarcontinuous-v0"  # small: 2 observations, 1 action, 2 objectives
EPISODE_LIMIT = 40


# --- without MORL-Baselines ---------------------------------------------------------------


class _NotAnAgent:
    pass


def test_an_object_from_elsewhere_is_refused_naming_the_supported_algorithms() -> None:
    with pytest.raises(ParetoscopeError, match="Envelope, GPI-LS, GPI-PD.*CAPQL, MORL/D.*PCN"):
        paretoscope.from_morl_baselines(_NotAnAgent())


def test_an_unsupported_morl_baselines_class_is_refused() -> None:
    pql = type("PQL", (), {"__module__": "morl_baselines.multi_policy.pareto_q_learning.pql"})
    with pytest.raises(ParetoscopeError, match=r"pql\.PQL is not a MORL-Baselines agent"):
        paretoscope.from_morl_baselines(pql())


def test_importing_the_module_does_not_import_morl_baselines_or_torch() -> None:
    code = (
        "import sys, paretoscope.api.morl_baselines, paretoscope\n"
        "paretoscope.from_morl_baselines\n"
        "print(sorted(m for m in ('morl_baselines', 'torch') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "[]"


# --- against MORL-Baselines itself ----------------------------------------------------------


@pytest.fixture(scope="module")
def morlb() -> Iterator[None]:
    pytest.importorskip("morl_baselines")
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # seeded trainings repeat exactly on one thread
    yield
    torch.set_num_threads(threads)


def _make(env_id: str, seed: int = 0) -> Any:
    import gymnasium
    import mo_gymnasium

    env = gymnasium.wrappers.TimeLimit(mo_gymnasium.make(env_id), EPISODE_LIMIT)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def _observations(env_id: str, count: int, seed: int = 7) -> np.ndarray:
    """`count` observations met in random rollouts of the env (the states an agent sees)."""
    env = _make(env_id, seed)
    found = []
    obs, _ = env.reset(seed=seed)
    while len(found) < count:
        found.append(np.asarray(obs, dtype=np.float64))
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            obs, _ = env.reset()
    return np.array(found)


def _weights(n_obj: int) -> np.ndarray:
    """Corners, the centre and a few in between."""
    rng = np.random.default_rng(5)
    return np.vstack([np.eye(n_obj), np.full(n_obj, 1 / n_obj), rng.dirichlet(np.ones(n_obj), 4)])


def _quiet(call: Callable[[], Any]) -> Any:
    """MORL-Baselines prints its training steps; the test output stays readable."""
    with contextlib.redirect_stdout(io.StringIO()):
        return call()


def _seeded(build: Callable[[], Any]) -> Any:
    from morl_baselines.common.evaluation import seed_everything

    seed_everything(0)
    return _quiet(build)


def _converted_actions(agent: Any, obs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The converted agent's actions for every (observation, weight) pair, one batch."""
    rows_obs = np.repeat(obs, len(weights), axis=0)
    rows_w = np.tile(weights, (len(obs), 1))
    agent.reset(len(rows_obs))
    actions = agent.act(rows_obs, rows_w, np.zeros_like(rows_w))
    return np.asarray(actions).reshape(len(obs), len(weights), -1)


def _own_actions(live: Any, obs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """MORL-Baselines' own ``eval(obs, w)`` for the same pairs, one call each."""
    return np.array(
        [
            [
                np.asarray(live.eval(o.astype(np.float32), w.astype(np.float32))).reshape(-1)
                for w in weights
            ]
            for o in obs
        ],
        dtype=np.float64,
    )


def _check_follows_training(
    live: Any, train: Callable[[int], None], env_id: str, exact: bool
) -> None:
    """Converted now, then after more training: each conversion acts as eval at its time, and
    the first one keeps the weights it was converted with."""
    obs, weights = _observations(env_id, 120), _weights(get_spec(env_id).n_obj)
    first = paretoscope.from_morl_baselines(live)
    assert first.spec.env_id == env_id  # taken from the object's own env
    before = _own_actions(live, obs, weights)
    _compare(_converted_actions(first, obs, weights), before, exact)

    train(200)
    second = paretoscope.from_morl_baselines(live)
    after = _own_actions(live, obs, weights)
    _compare(_converted_actions(second, obs, weights), after, exact)
    # The first conversion is a copy: more training did not move it.
    _compare(_converted_actions(first, obs, weights), before, exact)
    assert first.fingerprint() != second.fingerprint()  # type: ignore[attr-defined]
    if not exact:  # continuous actions move with any weight change
        assert not np.allclose(_converted_actions(first, obs, weights), after, atol=1e-5)


def _compare(converted: np.ndarray, own: np.ndarray, exact: bool) -> None:
    assert converted.shape == own.shape
    if exact:
        np.testing.assert_array_equal(converted, own)
    else:
        np.testing.assert_allclose(converted, own, rtol=0, atol=1e-5)


@pytest.fixture
def no_files_no_pickles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in an empty folder, with torch.save and pickling refused."""
    import pickle

    import torch

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the conversion saved or pickled something")

    monkeypatch.chdir(tmp_path)
    for module, name in ((torch, "save"), (pickle, "dump"), (pickle, "dumps")):
        monkeypatch.setattr(module, name, refused)
    return tmp_path


def _trainer(
    live: Any, env_id: str, ref_point: list[float], **options: Any
) -> Callable[[int], None]:
    """A function that trains `live` for N more steps with its own train(), quietly and without
    evaluations of its own."""

    def train(steps: int) -> None:
        _quiet(
            lambda: live.train(
                total_timesteps=live.global_step + steps,
                eval_env=_make(env_id, 1),
                ref_point=np.array(ref_point),
                eval_freq=10**9,
                **options,
            )
        )

    return train


def test_live_envelope_acts_as_its_eval_and_follows_training(
    morlb: None, no_files_no_pickles: Path
) -> None:
    from morl_baselines.multi_policy.envelope.envelope import Envelope

    env = _make(DST)
    live = _seeded(
        lambda: Envelope(
            env,
            net_arch=[16, 16],
            batch_size=16,
            learning_starts=50,
            log=False,
            seed=0,
            device="cpu",
        )
    )

    train = _trainer(live, DST, [0.0, -25.0])

    train(300)
    _check_follows_training(live, train, DST, exact=True)
    assert list(no_files_no_pickles.iterdir()) == []  # nothing written


def test_live_gpi_ls_acts_as_its_eval_with_and_without_gpi(morlb: None) -> None:
    from morl_baselines.multi_policy.gpi_pd.gpi_pd import GPILS

    env = _make(DST)
    live = _seeded(
        lambda: GPILS(
            env,
            net_arch=[16, 16],
            batch_size=16,
            learning_starts=50,
            log=False,
            seed=0,
            device="cpu",
        )
    )

    train = _trainer(
        live,
        DST,
        [0.0, -25.0],
        weight_selection_algo="gpi-ls",
        timesteps_per_iter=100,
        checkpoints=False,
    )

    train(300)
    assert len(live.weight_support) > 1  # GPI has several weights to improve over
    _check_follows_training(live, train, DST, exact=True)

    obs, weights = _observations(DST, 60, seed=11), _weights(2)
    live.use_gpi = False  # the object's own setting is the default ...
    _compare(
        _converted_actions(paretoscope.from_morl_baselines(live), obs, weights),
        _own_actions(live, obs, weights),
        exact=True,
    )
    live.use_gpi = True  # ... and the keyword overrides it (its eval then without GPI)
    without = paretoscope.from_morl_baselines(live, use_gpi=False)
    live.use_gpi = False
    _compare(_converted_actions(without, obs, weights), _own_actions(live, obs, weights), True)
    with pytest.raises(ParetoscopeError, match="use_gpi='yes': expected True or False"):
        paretoscope.from_morl_baselines(live, use_gpi="yes")


def test_live_gpi_pd_acts_as_its_eval(morlb: None) -> None:
    from morl_baselines.multi_policy.gpi_pd.gpi_pd import GPIPD

    live = _seeded(
        lambda: GPIPD(
            _make(DST),
            net_arch=[16, 16],
            batch_size=16,
            learning_starts=50,
            log=False,
            seed=0,
            device="cpu",
            dynamics_net_arch=[16, 16],
            dynamics_ensemble_size=2,
            dynamics_num_elites=1,
            # Its model rollouts on deep-sea-treasure fail in MORL-Baselines 1.3.0 with
            # mo-gymnasium 1.3 (a moved module): none start here; the psi nets are GPI-PD's.
            dynamics_rollout_starts=10**9,
        )
    )
    _quiet(
        lambda: live.train(
            total_timesteps=300,
            eval_env=_make(DST, 1),
            ref_point=np.array([0.0, -25.0]),
            timesteps_per_iter=100,
            eval_freq=10**9,
            eval_mo_freq=10**9,
            checkpoints=False,
        )
    )
    converted = paretoscope.from_morl_baselines(live)
    assert converted.training["algorithm"] == "gpi-pd"  # type: ignore[attr-defined]
    obs, weights = _observations(DST, 120), _weights(2)
    _compare(_converted_actions(converted, obs, weights), _own_actions(live, obs, weights), True)


def test_live_capql_acts_as_its_eval_within_1e_5(morlb: None) -> None:
    from morl_baselines.multi_policy.capql.capql import CAPQL

    env = _make(CONTINUOUS)
    live = _seeded(
        lambda: CAPQL(
            env,
            net_arch=[32, 32],
            batch_size=16,
            learning_starts=50,
            log=False,
            seed=0,
            device="cpu",
        )
    )

    train = _trainer(live, CONTINUOUS, [-100.0, -100.0], checkpoints=False)

    train(300)
    _check_follows_training(live, train, CONTINUOUS, exact=False)


def test_live_morld_acts_as_its_members_eval(morlb: None) -> None:
    import torch
    from morl_baselines.multi_policy.morld.morld import MORLD

    env = _make(CONTINUOUS)
    live = _seeded(
        lambda: MORLD(
            env,
            pop_size=2,
            exchange_every=150,
            policy_args={"net_arch": [32, 32], "batch_size": 16, "learning_starts": 50},
            log=False,
            seed=0,
            device="cpu",
        )
    )
    _quiet(
        lambda: live.train(
            total_timesteps=300,
            eval_env=_make(CONTINUOUS, 1),
            ref_point=np.array([-100.0, -100.0]),
            num_eval_episodes_for_front=1,
            num_eval_weights_for_eval=3,
            checkpoints=False,
        )
    )
    assert live.archive.individuals  # the archive the conversion reads by default
    everyone = paretoscope.from_morl_baselines(live, members="all")
    assert len(everyone.members) == len(live.archive.individuals) + len(live.population)  # type: ignore[attr-defined]
    obs = _observations(CONTINUOUS, 80)
    converted = paretoscope.from_morl_baselines(live)
    members = [policy.wrapped for policy in live.archive.individuals]
    member_weights = np.array([np.asarray(member.weights) for member in members])
    for weight in _weights(2):
        index = int(converted.member_for(weight[None])[0])  # type: ignore[attr-defined]
        distances = ((member_weights - weight) ** 2).sum(axis=1)
        assert distances[index] == pytest.approx(distances.min())  # the nearest member serves
        actor = members[index].actor
        with torch.no_grad():  # MOSAC's deterministic action: its squashed mean
            means = actor.get_action(torch.as_tensor(obs, dtype=torch.float32))[2].numpy()
        rows = np.tile(weight, (len(obs), 1))
        converted.reset(len(obs))
        _compare(converted.act(obs, rows, np.zeros_like(rows)), means, exact=False)

    # Sampling as MOSAC's own eval does: right after torch.manual_seed(s), episode seed s.
    sampling = paretoscope.from_morl_baselines(live, sample=True)
    weight = member_weights[0]
    index = int(sampling.member_for(weight[None])[0])  # type: ignore[attr-defined]
    for seed, observation in enumerate(obs[:10]):
        torch.manual_seed(seed)
        own = members[index].eval(observation.astype(np.float32))
        sampling.reset(1)
        sampling.seed_rows(np.array([seed]))  # type: ignore[attr-defined]
        mine = sampling.act(observation[None], weight[None], np.zeros((1, 2)))
        _compare(mine[0], np.asarray(own, dtype=np.float64), exact=False)


def test_live_pcn_acts_as_its_eval_for_the_command(
    morlb: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from morl_baselines.multi_policy.pcn.pcn import PCN

    monkeypatch.chdir(tmp_path)  # PCN's train() saves its model into ./weights

    env = _make(DST)
    live = _seeded(
        lambda: PCN(
            env,
            scaling_factor=np.array([0.1, 0.1, 0.01]),
            hidden_dim=16,
            batch_size=16,
            log=False,
            seed=0,
            device="cpu",
        )
    )
    _quiet(
        lambda: live.train(
            total_timesteps=300,
            eval_env=_make(DST, 1),
            ref_point=np.array([0.0, -25.0]),
            num_er_episodes=10,
            num_step_episodes=2,
            max_buffer_size=20,
            num_model_updates=5,
            max_return=np.array([125.0, 0.0]),
        )
    )
    with pytest.raises(ParetoscopeError, match="PCN needs horizon="):
        paretoscope.from_morl_baselines(live)
    with pytest.raises(ParetoscopeError, match=r"desired_return=\(1.0,\): expected 2 finite"):
        paretoscope.from_morl_baselines(live, desired_return=(1.0,), horizon=3)
    with pytest.raises(ParetoscopeError, match="horizon=0: expected a number of steps"):
        paretoscope.from_morl_baselines(live, desired_return=(1.0, -1.0), horizon=0)
    obs = _observations(DST, 60)
    for desired, horizon in (((8.2, -3.0), 3), ((124.0, -19.0), 19)):
        live.set_desired_return_and_horizon(np.float32(desired), np.float32(horizon))
        own = np.array([live.eval(o) for o in obs])
        for converted in (
            paretoscope.from_morl_baselines(live),  # the object's own command
            paretoscope.from_morl_baselines(live, desired_return=desired, horizon=horizon),
        ):
            prefs = np.full((len(obs), 2), 0.5)
            converted.reset(len(obs))
            start = converted.initial_target(prefs)
            np.testing.assert_allclose(start, np.tile(desired, (len(obs), 1)), atol=1e-6)
            np.testing.assert_array_equal(converted.act(obs, prefs, start), own)


def test_wrong_options_name_the_ones_the_algorithm_takes(morlb: None) -> None:
    from morl_baselines.multi_policy.envelope.envelope import Envelope
    from morl_baselines.multi_policy.gpi_pd.gpi_pd import GPILS

    envelope = _seeded(lambda: Envelope(_make(DST), net_arch=[8], log=False, device="cpu"))
    with pytest.raises(ParetoscopeError, match="Envelope Q-learning takes no options"):
        paretoscope.from_morl_baselines(envelope, use_gpi=True)
    with pytest.raises(ParetoscopeError, match="unknown environment id 'nope-v0'"):
        paretoscope.from_morl_baselines(envelope, env="nope-v0")
    with pytest.raises(
        ParetoscopeError, match="net.0.weight' takes 4 inputs"
    ):  # minecart's sizes differ
        paretoscope.from_morl_baselines(envelope, env="minecart-v0")
    gpi = _seeded(lambda: GPILS(_make(DST), net_arch=[8, 8], log=False, device="cpu"))
    with pytest.raises(ParetoscopeError, match="GPILS has no weight support yet: train it"):
        paretoscope.from_morl_baselines(gpi)


def _own_episode(live: Any, env_id: str, weight: np.ndarray, seed: int, horizon: int) -> np.ndarray:
    """The undiscounted return of one episode played with the object's own eval(obs, w)."""
    import mo_gymnasium

    env = mo_gymnasium.make(env_id)
    obs, _ = env.reset(seed=seed)
    total = np.zeros(len(weight))
    for _ in range(horizon):
        obs, reward, terminated, truncated, _ = env.step(live.eval(obs, weight))
        total += reward
        if terminated or truncated:
            break
    return total


def test_a_converted_agent_sweeps_and_rolls_out_as_its_own_episodes(morlb: None) -> None:
    from morl_baselines.multi_policy.envelope.envelope import Envelope

    from paretoscope.evaluate import sweep
    from paretoscope.results_store import objective_columns
    from paretoscope.rollout import rollout_batch
    from paretoscope.settings import SweepSettings

    live = _seeded(
        lambda: Envelope(
            _make(DST),
            net_arch=[16, 16],
            batch_size=16,
            learning_starts=50,
            log=False,
            seed=0,
            device="cpu",
        )
    )
    _quiet(
        lambda: live.train(
            total_timesteps=300,
            eval_env=_make(DST, 1),
            ref_point=np.array([0.0, -25.0]),
            eval_freq=10**9,
        )
    )
    agent = paretoscope.from_morl_baselines(live)
    spec = get_spec(DST)
    settings = SweepSettings(granularity=3, episodes=1, seed=0, workers=1)
    table = sweep(agent, DST, settings, progress=False)
    assert len(table) == 4  # preferences 0, 1/3, 2/3, 1 of the first objective
    preferences = table[objective_columns("preference", spec)].to_numpy()
    returns = table[objective_columns("return", spec)].to_numpy()
    own = np.array([_own_episode(live, DST, w, 0, spec.horizon) for w in preferences])
    np.testing.assert_array_equal(returns, own)

    batch = rollout_batch(agent, DST, preferences, [0] * len(preferences))
    np.testing.assert_array_equal(np.asarray(batch.returns), own)


MORL_BASELINES_NOTEBOOK = REPO_DIR / "docs" / "examples" / "morl_baselines.ipynb"


# Run in the notebook's kernel after its last cell: the returns the trained object's own
# eval(obs, w) collects at each preference of the last sweep (seed 0), beside the sweep's.
_OWN_EVAL_PROBE = """
import mo_gymnasium as mo_gym
last = ps.sweep(later, granularity=10, episodes=1, progress=False).table
probe = []
for _, row in last.iterrows():
    w = np.array([row["preference_treasure"], row["preference_time"]])
    play = mo_gym.make("deep-sea-treasure-v0")
    obs, _ = play.reset(seed=int(row["seed"]))
    total, done = np.zeros(2), False
    while not done:
        obs, reward, terminated, truncated, _ = play.step(trained.eval(obs, w))
        total, done = total + reward, terminated or truncated
    probe.append([list(total), [row["return_treasure"], row["return_time"]]])
"""


@pytest.mark.slow
def test_the_morl_baselines_notebook_runs_on_a_real_kernel(morlb: None, tmp_path: Path) -> None:
    """docs/examples/morl_baselines.ipynb on a real kernel: a live Envelope trained there,
    converted, swept, plotted and recorded; after more training the new conversion's sweep
    returns are the ones the object's own eval() collects at the same preferences and seed."""
    from tests.notebooks import mime_data, outputs_of, run_notebook

    environment = dict(os.environ, SDL_VIDEODRIVER="dummy", MUJOCO_GL="egl")
    book, pairs = run_notebook(
        MORL_BASELINES_NOTEBOOK, tmp_path / "examples", environment, probe=_OWN_EVAL_PROBE
    )
    assert pairs is not None and len(pairs) == 11
    for own, swept in pairs:
        assert swept == pytest.approx(own)
    assert mime_data(outputs_of(book, "ps.plot.front(result)"), "application/vnd.plotly.v1+json")
    recorded = 'ps.record(agent, "deep-sea-treasure-v0", preference=[0.6, 0.4])'
    video = mime_data(outputs_of(book, recorded), "text/html")
    assert video is not None and "data:video/mp4;base64," in video
