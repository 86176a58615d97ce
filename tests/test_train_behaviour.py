"""The behaviour-policy trainer: ARS pieces, the direct MuJoCo runner, learning, resuming, CLI."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.checkpoint import load
from paretoscope.agents.policy_set import PolicySetAgent, load_policy_set
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import preference_grid
from paretoscope.rollout import rollout_batch
from paretoscope.runs.layout import SNAPSHOTS_DIR, snapshot_dir
from paretoscope.settings import BehaviourTrainingSettings, MemberTraining
from paretoscope.train import ARSConfig, ObservationStats, auto_survival_shift, default_preferences
from paretoscope.train.ars import Episode, EpisodeTask, GymRunner, MujocoRunner, ars_iteration
from paretoscope.train.behaviour import (
    BehaviourRun,
    Budget,
    MemberReward,
    load_member,
    member_path,
    member_snapshot_path,
    train_behaviour,
)

SWIMMER = "MO-Swimmer-v2"
HOPPER = "MO-Hopper-v3"
# Tiny settings for the mechanics tests: a handful of short episodes per iteration.
TINY = ARSConfig(directions=4, top_directions=2, step_size=0.02, noise=0.03)
# Settings whose members all train on their own preference (for the transfer tests).
PLAIN = BehaviourRun(env_id=SWIMMER, preferences=())


# --- preferences and the survival shift -----------------------------------------------------------


def test_two_objective_preferences_are_evenly_spaced_first_objective_first() -> None:
    np.testing.assert_allclose(
        default_preferences(2, 5),
        [[1.0, 0.0], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0.0, 1.0]],
    )
    np.testing.assert_allclose(default_preferences(2, 1), [[0.5, 0.5]])
    np.testing.assert_allclose(default_preferences(3, 1), [[1 / 3, 1 / 3, 1 / 3]])


def test_three_objective_preferences_use_the_grid_and_thin_it_from_the_corners() -> None:
    six = default_preferences(3, 6)  # exactly the granularity-2 grid
    assert sorted(map(tuple, six.tolist())) == sorted(map(tuple, preference_grid(3, 2).tolist()))
    assert tuple(six[0]) == (1.0, 0.0, 0.0)
    # Four points: granularity 2 has six; the three corners, then the first of the three
    # equally far edge midpoints in grid order, (0, 0.5, 0.5). Sorted by descending w0, w1, ...
    np.testing.assert_allclose(
        default_preferences(3, 4),
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]],
    )
    many = default_preferences(3, 11)
    assert many.shape == (11, 3)
    np.testing.assert_allclose(many.sum(axis=1), 1.0)
    assert len({tuple(row) for row in many.tolist()}) == 11


def test_survival_shift_is_the_scalarised_alive_bonus() -> None:
    # docs/reference.md#behaviour-policies-trained-with-ars:
    # 0.6*1 + 0.2*1 + 0.2*5 = 1.8 for Hopper-v3 at (0.6, 0.2, 0.2).
    assert auto_survival_shift("MO-Hopper-v3", np.array([0.6, 0.2, 0.2])) == pytest.approx(1.8)
    assert auto_survival_shift("MO-HalfCheetah-v2", np.array([0.5, 0.5])) == 0.0
    assert auto_survival_shift(SWIMMER, np.array([1.0, 0.0])) == 0.0


# --- ARS pieces -----------------------------------------------------------------------------------


def test_observation_stats_merge_like_one_sample() -> None:
    rng = np.random.default_rng(0)
    blocks = [rng.normal(3.0, 2.0, size=(n, 5)) for n in (1, 7, 30, 2)]
    merged = ObservationStats.empty(5)
    for block in blocks:
        merged = merged.merged(ObservationStats.of(block))
    everything = np.concatenate(blocks)
    assert merged.count == len(everything)
    np.testing.assert_allclose(merged.mean, everything.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(merged.m2 / merged.count, everything.var(axis=0), rtol=1e-10)
    mean, std = merged.normaliser()
    np.testing.assert_allclose(std, everything.std(axis=0), rtol=1e-10)
    # Before two observations: identity normalisation; a constant coordinate is not scaled.
    np.testing.assert_array_equal(ObservationStats.empty(3).normaliser()[1], np.ones(3))
    constant = ObservationStats.of(np.column_stack([np.ones(4), np.arange(4.0)]))
    assert constant.normaliser()[1][0] == 1.0


class _LinearScorePool:
    """A stand-in for the episode pool: the 'return' of matrix M is (Σ M∘C, 0), length 10."""

    def __init__(self, coefficients: np.ndarray) -> None:
        self.coefficients = coefficients
        self.tasks: list[EpisodeTask] = []

    def run(self, tasks: Sequence[EpisodeTask]) -> list[Episode]:
        self.tasks.extend(tasks)
        observations = np.full((10, self.coefficients.shape[1]), 2.0)
        return [
            Episode(
                np.array([float((task[0] * self.coefficients).sum()), 0.0]),
                10,
                ObservationStats.of(observations),
            )
            for task in tasks
        ]


def test_an_ars_iteration_applies_the_v2t_update_by_hand() -> None:
    rng_coefficients = np.random.default_rng(1)
    coefficients = rng_coefficients.normal(size=(2, 3))
    pool = _LinearScorePool(coefficients)
    config = ARSConfig(directions=5, top_directions=2, step_size=0.1, noise=0.5)
    matrix = np.zeros((2, 3))
    shift = 0.25
    result = ars_iteration(
        matrix,
        ObservationStats.empty(3),
        np.array([1.0, 0.0]),
        np.random.default_rng(7),
        pool,
        config,
        horizon=10,
        shift=shift,
    )
    # Recompute: same draws, then the textbook update with the shift on every episode score.
    replay = np.random.default_rng(7)
    directions = replay.standard_normal((5, 2, 3))
    score = {
        sign: [
            float(((matrix + sign * 0.5 * d) * coefficients).sum()) - shift * 10 for d in directions
        ]
        for sign in (1, -1)
    }
    best = sorted(range(5), key=lambda k: -max(score[1][k], score[-1][k]))[:2]
    sigma = np.std([score[1][k] for k in best] + [score[-1][k] for k in best])
    expected = matrix + 0.1 / (2 * sigma) * sum(
        (score[1][k] - score[-1][k]) * directions[k] for k in best
    )
    np.testing.assert_allclose(result.matrix, expected, rtol=1e-12)
    assert result.env_steps == 100
    assert result.stats.count == 100
    # The reported return is the unshifted w·R, averaged over the 2N episodes.
    assert result.mean_return == pytest.approx(np.mean(score[1] + score[-1]) + shift * 10)
    # Every episode used the normaliser frozen at the start (identity here) and the horizon.
    assert all(task[4] == 10 and (task[2] == 1.0).all() for task in pool.tasks)


def test_the_direct_mujoco_runner_replays_the_gymnasium_env_exactly() -> None:
    for env_id, horizon in (("MO-Hopper-v2", 200), ("MO-HalfCheetah-v2", 60)):
        spec = get_spec(env_id)
        rng = np.random.default_rng(3)
        matrix = rng.normal(0.0, 0.5, size=(spec.act_dim, spec.obs_dim))
        mean, std = rng.normal(size=spec.obs_dim) * 0.1, rng.uniform(0.5, 2.0, spec.obs_dim)
        direct = MujocoRunner(env_id).run(matrix, mean, std, seed=11, horizon=horizon)
        through_env = GymRunner(env_id).run(matrix, mean, std, seed=11, horizon=horizon)
        assert direct.length == through_env.length
        np.testing.assert_array_equal(direct.stats.mean, through_env.stats.mean)
        np.testing.assert_array_equal(direct.stats.m2, through_env.stats.m2)
        # env.step hands out float32 rewards; the direct runner keeps float64.
        np.testing.assert_allclose(direct.returns, through_env.returns, rtol=1e-5, atol=1e-3)
    # The Hopper episode with this random policy falls before the horizon (termination works).
    hopper = MujocoRunner("MO-Hopper-v2").run(
        np.random.default_rng(3).normal(0.0, 0.5, size=(3, 11)),
        np.zeros(11),
        np.ones(11),
        seed=11,
        horizon=200,
    )
    assert hopper.length < 200, "pick a policy that falls, so termination is exercised"


# --- learning -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained_swimmer(tmp_path_factory: pytest.TempPathFactory) -> PolicySetAgent:
    """Two Swimmer members trained for 15 short iterations on 2 worker processes (~5 s)."""
    out = tmp_path_factory.mktemp("swimmer")
    settings = BehaviourTrainingSettings(
        preferences=[[1.0, 0.0], [0.6, 0.4]],
        iterations=15,
        workers=2,
        ars=ARSConfig(directions=8, top_directions=4),
        horizon=200,
        eval_episodes=2,
    )
    return train_behaviour(SWIMMER, out, settings, progress=False)


@pytest.mark.slow
def test_brief_training_beats_random_linear_policies(trained_swimmer: PolicySetAgent) -> None:
    """Evaluated through env.step (rollout_batch), each member beats the best of ten random
    Gaussian linear policies of its shape and the zero policy it started from."""
    spec = get_spec(SWIMMER)
    preferences = trained_swimmer.preferences
    seeds = [101, 102]
    rows = np.repeat(preferences, len(seeds), axis=0)
    row_seeds = np.tile(seeds, len(preferences))
    trained = rollout_batch(trained_swimmer, SWIMMER, rows, row_seeds, horizon=200)
    trained_utility = (trained.returns * rows).sum(axis=1).reshape(len(preferences), -1).mean(1)

    rng = np.random.default_rng(2024)
    random_utilities = []
    for _ in range(10):
        matrix = rng.normal(0.0, 1.0 / np.sqrt(spec.obs_dim), size=(1, spec.act_dim, spec.obs_dim))
        policy = PolicySetAgent(SWIMMER, [[0.5, 0.5]], matrix, np.zeros((1, 8)), np.ones((1, 8)))
        episodes = rollout_batch(policy, SWIMMER, rows, row_seeds, horizon=200)
        random_utilities.append((episodes.returns * rows).sum(axis=1).reshape(2, -1).mean(1))
    zero = PolicySetAgent(
        SWIMMER, [[0.5, 0.5]], np.zeros((1, 2, 8)), np.zeros((1, 8)), np.ones((1, 8))
    )
    zero_episodes = rollout_batch(zero, SWIMMER, rows, row_seeds, horizon=200)
    zero_utility = (zero_episodes.returns * rows).sum(axis=1).reshape(2, -1).mean(1)

    best_random = np.max(random_utilities, axis=0)
    assert (trained_utility > best_random).all(), (trained_utility, best_random)
    assert (trained_utility > zero_utility + 10.0).all(), (trained_utility, zero_utility)
    # The stored mean return is what the policy gets (other reset seeds, so approximately).
    assert trained_swimmer.mean_returns is not None
    stored = (trained_swimmer.mean_returns * preferences).sum(axis=1)
    np.testing.assert_allclose(stored, trained_utility, rtol=0.1)


@pytest.mark.slow
def test_the_saved_checkpoint_is_the_returned_policy_set(
    trained_swimmer: PolicySetAgent, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert trained_swimmer.training["iterations"] == [15, 15]
    assert trained_swimmer.training["method"] == "ars-v2t"
    assert trained_swimmer.training["env_steps"][0] == 15 * 2 * 8 * 200  # Swimmer never ends early


# --- resuming -------------------------------------------------------------------------------------


def _tiny_run(  # type: ignore[no-untyped-def]
    out: Path,
    iterations: int | None,
    env: str = SWIMMER,
    on_iteration=None,  # noqa: ANN001
    **overrides,
) -> PolicySetAgent:
    values = {
        "preferences": [[1.0, 0.0], [0.5, 0.5]],
        "iterations": iterations,
        "workers": 1,
        "ars": TINY,
        "horizon": 30,
        "eval_episodes": 1,
        "seed": 3,
    }
    settings = BehaviourTrainingSettings(**{**values, **overrides})
    return train_behaviour(env, out, settings, progress=False, on_iteration=on_iteration)


def _assert_same_set(first: PolicySetAgent, second: PolicySetAgent) -> None:
    np.testing.assert_array_equal(first.matrices, second.matrices)
    np.testing.assert_array_equal(first.obs_mean, second.obs_mean)
    np.testing.assert_array_equal(first.obs_std, second.obs_std)
    assert first.mean_returns is not None and second.mean_returns is not None
    np.testing.assert_array_equal(first.mean_returns, second.mean_returns)


def test_an_interrupted_run_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    uninterrupted = _tiny_run(tmp_path / "whole", iterations=4)

    def interrupt(member: int, iteration: int, mean_return: float) -> None:
        if (member, iteration) == (1, 2):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _tiny_run(tmp_path / "split", iterations=4, on_iteration=interrupt)
    assert not (tmp_path / "split" / "config.json").exists()  # no final checkpoint yet

    calls: list[tuple[int, int]] = []
    resumed = _tiny_run(
        tmp_path / "split", iterations=4, on_iteration=lambda m, i, r: calls.append((m, i))
    )
    assert calls == [(1, 3), (1, 4)]  # member 0 skipped, member 1 continued from iteration 2
    _assert_same_set(resumed, uninterrupted)
    _assert_same_set(load_policy_set(tmp_path / "split"), uninterrupted)


def test_a_larger_budget_continues_from_the_saved_iteration(tmp_path: Path) -> None:
    single = {"preferences": [[0.5, 0.5]]}
    _tiny_run(tmp_path / "grown", iterations=2, **single)
    calls: list[tuple[int, int]] = []
    grown = _tiny_run(
        tmp_path / "grown",
        iterations=5,
        on_iteration=lambda m, i, r: calls.append((m, i)),
        **single,
    )
    assert calls == [(0, 3), (0, 4), (0, 5)]
    _assert_same_set(grown, _tiny_run(tmp_path / "direct", iterations=5, **single))


def test_the_worker_count_does_not_change_the_result(tmp_path: Path) -> None:
    one = _tiny_run(tmp_path / "one", iterations=2, preferences=[[1.0, 0.0]])
    two = _tiny_run(tmp_path / "two", iterations=2, preferences=[[1.0, 0.0]], workers=2)
    _assert_same_set(one, two)


def test_members_warm_start_from_the_nearest_trained_member(tmp_path: Path) -> None:
    from paretoscope.train.behaviour import load_member

    _tiny_run(tmp_path / "warm", iterations=0, preferences=[[1.0, 0.0], [0.0, 1.0], [0.6, 0.4]])
    sources = [load_member(member_path(tmp_path / "warm", i)).warm_started_from for i in range(3)]
    assert sources == [None, 0, 0]
    cold = _tiny_run(tmp_path / "cold", iterations=1, warm_start=False)
    assert cold.training["warm_start"] is False


def test_a_time_budget_of_zero_saves_the_evaluated_zero_policy(tmp_path: Path) -> None:
    agent = _tiny_run(tmp_path / "zero", iterations=None, budget_seconds=0.0)
    assert agent.training["iterations"] == [0, 0]
    np.testing.assert_array_equal(agent.matrices, np.zeros((2, 2, 8)))


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    _tiny_run(tmp_path / "run", iterations=1)
    with pytest.raises(ParetoscopeError, match="seed"):
        _tiny_run(tmp_path / "run", iterations=1, seed=4)
    with pytest.raises(ParetoscopeError, match="preferences"):
        _tiny_run(tmp_path / "run", iterations=1, preferences=[[1.0, 0.0], [0.4, 0.6]])


def test_a_damaged_member_state_is_reported(tmp_path: Path) -> None:
    _tiny_run(tmp_path / "run", iterations=1)
    member_path(tmp_path / "run", 1).write_bytes(b"not safetensors")
    with pytest.raises(ParetoscopeError, match="member-001"):
        _tiny_run(tmp_path / "run", iterations=2)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"preferences": [[0.6, 0.6]]}, "sums to"),
        ({"preferences": [[1.0, 0.0], [1.0, 0.0]]}, "different preference"),
        ({"preferences": [[1.0, 0.0, 0.0]]}, "shape"),
        ({"preferences": None, "members": 0}, "members: expected a whole number from 1 to 1000"),
        ({"horizon": 501}, "horizon"),
        ({"eval_episodes": 0}, "eval_episodes"),
        ({"workers": 0}, "workers"),
    ],
)
def test_bad_settings_raise(tmp_path: Path, overrides: dict, message: str) -> None:  # type: ignore[type-arg]
    iterations = overrides.pop("iterations", 1)
    with pytest.raises(ParetoscopeError, match=message):
        _tiny_run(tmp_path / "bad", iterations=iterations, **overrides)


def test_a_run_without_a_budget_trains_300_iterations_per_member() -> None:
    from paretoscope.train.behaviour import member_budget

    assert member_budget(BehaviourTrainingSettings()) == Budget(300)
    assert member_budget(BehaviourTrainingSettings(budget_seconds=5.0)) == Budget(None, 5.0)
    assert member_budget(BehaviourTrainingSettings(iterations=7)) == Budget(7)
    with pytest.raises(ParetoscopeError, match="budget"):
        Budget(None, None)


def test_bad_ars_settings_raise() -> None:
    with pytest.raises(ParetoscopeError, match="top_directions"):
        ARSConfig(directions=4, top_directions=5)
    with pytest.raises(ParetoscopeError, match="step_size"):
        ARSConfig(step_size=0.0)


# --- the command line -----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from paretoscope.cli import train

    parser = argparse.ArgumentParser(prog="paretoscope")
    train.register(parser.add_subparsers(dest="command"))
    return parser


def test_the_cli_trains_and_resumes_a_policy_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    argv = [
        "train", "behaviour", "--env", SWIMMER, "--preferences", "2", "--out", str(out),
        "--iterations", "1", "--workers", "1", "--directions", "4", "--top-directions", "2",
        "--horizon", "20", "--eval-episodes", "1", "--quiet", "--snapshot-every", "1",
    ]  # fmt: skip
    args = _parser().parse_args(argv)
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "saved policy set (2 members)" in printed
    assert "(1.00, 0.00)" in printed and "(0.00, 1.00)" in printed
    first = load_policy_set(out)
    _assert_same_set(load_policy_set(snapshot_dir(out, 1)), first)
    args = _parser().parse_args(argv)  # a rerun finds everything done and rewrites the same set
    assert args.func(args) == 0
    _assert_same_set(load_policy_set(out), first)
    assert snapshot_steps(out) == [1]


def _cli_settings(*options: str) -> BehaviourTrainingSettings:
    """The settings `train behaviour` builds from `options`."""
    from paretoscope.cli.options import settings_from_args

    args = _parser().parse_args(["train", "behaviour", "--env", SWIMMER, "--out", "x", *options])
    return settings_from_args(BehaviourTrainingSettings, args)


def test_the_cli_takes_explicit_preferences_and_a_shift() -> None:
    settings = _cli_settings(
        "--preference", "0.8,0.2", "--preference", "0.3, 0.7", "--survival-shift", "1.5"
    )
    assert settings.preferences == ((0.8, 0.2), (0.3, 0.7))
    assert settings.survival_shift == 1.5
    auto = _cli_settings()
    assert auto.survival_shift is None and auto.preferences is None and auto.members == 5
    assert _cli_settings("--survival-shift", "auto").survival_shift is None
    with pytest.raises(ParetoscopeError, match="--preference: expected comma-separated"):
        _cli_settings("--preference", "a,b")


# --- snapshots ------------------------------------------------------------------------------------


def snapshot_steps(out: Path) -> list[int]:
    """The steps of the snapshot folders (named exactly step=N, nothing else there)."""
    return sorted(int(path.name.removeprefix("step=")) for path in (out / SNAPSHOTS_DIR).iterdir())


def checkpoint_files(folder: Path) -> tuple[bytes, bytes]:
    return (folder / "config.json").read_bytes(), (folder / "weights.safetensors").read_bytes()


def _assert_same_members(first: PolicySetAgent, second: PolicySetAgent) -> None:
    np.testing.assert_array_equal(first.preferences, second.preferences)
    np.testing.assert_array_equal(first.matrices, second.matrices)
    np.testing.assert_array_equal(first.obs_mean, second.obs_mean)
    np.testing.assert_array_equal(first.obs_std, second.obs_std)


def test_snapshots_hold_the_members_after_every_n_iterations(tmp_path: Path) -> None:
    import json

    # Cold starts: with a warm start, member 1 of a longer run starts from member 0's longer
    # training, so only cold members equal those of a shorter run at every iteration.
    out = tmp_path / "run"
    final = _tiny_run(out, iterations=4, warm_start=False, snapshot_every=2)
    assert snapshot_steps(out) == [2, 4]
    at_four = load(snapshot_dir(out, 4))
    assert isinstance(at_four, PolicySetAgent)
    _assert_same_set(at_four, final)
    assert checkpoint_files(snapshot_dir(out, 4)) == checkpoint_files(out)
    at_two = load(snapshot_dir(out, 2))
    assert isinstance(at_two, PolicySetAgent)
    _assert_same_members(at_two, _tiny_run(tmp_path / "two", iterations=2, warm_start=False))
    assert at_two.training["iterations"] == [2, 2]
    assert at_two.mean_returns is None  # not evaluated at iteration 2
    assert member_snapshot_path(out, 1, 2).is_file()
    # The frequency is no setting of the run: a resume may change it, and keeps the snapshots.
    assert "snapshot_every" not in json.loads((out / "training" / "run.json").read_text())
    before = {step: (snapshot_dir(out, step) / "config.json").stat() for step in (2, 4)}
    grown = _tiny_run(out, iterations=7, warm_start=False, snapshot_every=3)
    assert snapshot_steps(out) == [2, 4, 6, 7]  # 3 was behind the resume
    _assert_same_set(load_policy_set(snapshot_dir(out, 7)), grown)
    _assert_same_members(
        load_policy_set(snapshot_dir(out, 6)),
        _tiny_run(tmp_path / "six", iterations=6, warm_start=False),
    )
    for step, stat in before.items():
        after = (snapshot_dir(out, step) / "config.json").stat()
        assert (after.st_ino, after.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)


def test_transfer_snapshots_are_taken_before_the_round_end_transfer_and_resume_exactly(
    tmp_path: Path,
) -> None:
    preferences = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]  # these settings do transfer at 2
    rounds = {"preferences": preferences, "transfer_every": 2, "snapshot_every": 2}
    whole = tmp_path / "whole"
    final = _tiny_run(whole, iterations=4, **rounds)
    assert any(final.training["transfers"])
    assert snapshot_steps(whole) == [2, 4]
    # At iteration 2: the set a two-iteration run saves (its last round ends without a
    # transfer), evaluated members included.
    at_two = load_policy_set(snapshot_dir(whole, 2))
    _assert_same_set(at_two, _tiny_run(tmp_path / "two", iterations=2, **rounds))
    assert at_two.training["transfers"] == [[], [], []]
    _assert_same_set(load_policy_set(snapshot_dir(whole, 4)), final)

    def interrupt(member: int, iteration: int, mean_return: float) -> None:
        if (member, iteration) == (1, 3):
            raise KeyboardInterrupt

    split = tmp_path / "split"
    with pytest.raises(KeyboardInterrupt):
        _tiny_run(split, iterations=4, on_iteration=interrupt, **rounds)
    assert not (split / SNAPSHOTS_DIR).exists()  # published when the run ends
    _tiny_run(split, iterations=4, **rounds)
    for step in (2, 4):
        assert checkpoint_files(snapshot_dir(split, step)) == checkpoint_files(
            snapshot_dir(whole, step)
        )


def test_a_bad_snapshot_frequency_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paretoscope.cli import main

    for bad in ("0", "-3"):
        argv = ["train", "behaviour", "--env", SWIMMER, "--out", str(tmp_path / "bad"),
                "--iterations", "1", "--snapshot-every", bad]  # fmt: skip
        assert main(argv) == 2
        assert f"snapshot_every must be at least 1, got {bad}" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()
    plain = ["train", "behaviour", "--env", SWIMMER, "--out", "x"]
    assert _parser().parse_args([*plain, "--snapshot-every", "25"]).snapshot_every == 25
    assert _parser().parse_args(plain).snapshot_every is None


# --- policy transfer between members --------------------------------------------------------------


def _member(index: int, preference: Sequence[float], mean_return: Sequence[float]):  # type: ignore[no-untyped-def]
    """A member state whose policy is marked by its index and whose evaluation averages to
    `mean_return` (two episodes around it)."""
    from paretoscope.train.behaviour import MemberState

    spread = np.array([[1.0, -1.0], [-1.0, 1.0]])
    return MemberState(
        index=index,
        preference=np.asarray(preference, dtype=np.float64),
        matrix=np.full((2, 8), float(index)),
        stats=ObservationStats.of(np.full((3, 8), float(index))),
        iteration=10,
        evaluated_iteration=10,
        eval_returns=np.asarray(mean_return, dtype=np.float64) + spread,
    )


def test_each_member_adopts_the_best_policy_on_its_own_objective(tmp_path: Path) -> None:
    from paretoscope.train.behaviour import load_member
    from paretoscope.train.behaviour.transfer import transfer_policies

    (tmp_path / "training").mkdir()
    # Hand-computed scores w_i·R_j (rows: member i, columns: policy j); R = (100, 0), (60, 60),
    # (0, 90), (50, 50):
    #   w=(1, 0):    100, 60, 0, 50   -> keeps its own (0)
    #   w=(0.5,0.5):  50, 60, 45, 50  -> keeps its own (1)
    #   w=(0, 1):      0, 60, 90, 50  -> keeps its own (2)
    #   w=(0.7,0.3):  70, 60, 27, 50  -> adopts policy 0 (70 > its own 50)
    states = [
        _member(0, [1.0, 0.0], [100.0, 0.0]),
        _member(1, [0.5, 0.5], [60.0, 60.0]),
        _member(2, [0.0, 1.0], [0.0, 90.0]),
        _member(3, [0.7, 0.3], [50.0, 50.0]),
    ]
    transfer_policies(tmp_path, PLAIN, states)
    assert [state.transfers for state in states] == [[], [], [], [(10, 0)]]
    np.testing.assert_array_equal(states[3].matrix, np.zeros((2, 8)))
    np.testing.assert_array_equal(states[3].stats.mean, np.zeros(8))
    np.testing.assert_allclose(np.asarray(states[3].eval_returns).mean(axis=0), [100.0, 0.0])
    saved = load_member(member_path(tmp_path, 3))  # the adopted policy is saved at once
    np.testing.assert_array_equal(saved.matrix, states[3].matrix)
    assert saved.transfers == [(10, 0)] and saved.evaluated
    assert not member_path(tmp_path, 0).exists()  # members that keep their policy: untouched
    # Replaying the transfer (a resumed round end) changes nothing.
    transfer_policies(tmp_path, PLAIN, states)
    assert [state.transfers for state in states] == [[], [], [], [(10, 0)]]


def test_a_tie_keeps_the_members_own_policy(tmp_path: Path) -> None:
    from paretoscope.train.behaviour.transfer import transfer_policies

    (tmp_path / "training").mkdir()
    states = [_member(0, [1.0, 0.0], [80.0, 0.0]), _member(1, [0.5, 0.5], [80.0, 10.0])]
    transfer_policies(tmp_path, PLAIN, states)
    assert states[0].transfers == []  # 80 vs 80: not strictly better
    assert states[1].transfers == []


def test_transfer_rounds_start_like_a_plain_run_and_resume_exactly(tmp_path: Path) -> None:
    from paretoscope.train.behaviour import load_member

    preferences = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    _tiny_run(tmp_path / "plain", iterations=2, preferences=preferences)
    rounds = _tiny_run(tmp_path / "rounds", iterations=4, preferences=preferences, transfer_every=2)
    members = [load_member(member_path(tmp_path / "rounds", i)) for i in range(3)]
    plain_members = [load_member(member_path(tmp_path / "plain", i)) for i in range(3)]
    # The first round is the plain two-iteration run (same randomness, same warm starts).
    for member, reference in zip(members, plain_members, strict=True):
        assert member.history[:2] == reference.history
        assert member.iteration == 4
    # Every transfer happened at the round end, from a member scoring better on the adopter's
    # own objective in the plain run's evaluations.
    plain_means = np.stack([np.asarray(m.eval_returns).mean(axis=0) for m in plain_members])
    assert any(member.transfers for member in members)  # these settings do transfer
    for member in members:
        for iteration, source in member.transfers:
            assert iteration == 2 and source != member.index
            scores = plain_means @ member.preference
            assert scores[source] == scores.max() > scores[member.index]
    assert rounds.training["transfer_every"] == 2
    assert rounds.training["transfers"] == [[list(p) for p in m.transfers] for m in members]

    def interrupt(member: int, iteration: int, mean_return: float) -> None:
        if (member, iteration) == (1, 3):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _tiny_run(
            tmp_path / "split",
            iterations=4,
            preferences=preferences,
            transfer_every=2,
            on_iteration=interrupt,
        )
    resumed = _tiny_run(tmp_path / "split", iterations=4, preferences=preferences, transfer_every=2)
    _assert_same_set(resumed, rounds)


def test_a_larger_budget_makes_the_old_end_a_round_end(tmp_path: Path) -> None:
    preferences = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]
    _tiny_run(tmp_path / "grown", iterations=2, preferences=preferences, transfer_every=2)
    grown = _tiny_run(tmp_path / "grown", iterations=3, preferences=preferences, transfer_every=2)
    direct = _tiny_run(tmp_path / "direct", iterations=3, preferences=preferences, transfer_every=2)
    _assert_same_set(grown, direct)


def test_transfer_settings_are_checked_and_kept_in_run_json(tmp_path: Path) -> None:
    import json

    _tiny_run(tmp_path / "plain", iterations=1)
    record = json.loads((tmp_path / "plain" / "training" / "run.json").read_text())
    assert "transfer_every" not in record  # runs made before the option stay valid
    with pytest.raises(ParetoscopeError, match="transfer_every"):
        _tiny_run(tmp_path / "plain", iterations=1, transfer_every=1)
    _tiny_run(tmp_path / "rounds", iterations=1, transfer_every=1)
    record = json.loads((tmp_path / "rounds" / "training" / "run.json").read_text())
    assert record["transfer_every"] == 1
    with pytest.raises(ParetoscopeError, match="transfer_every"):
        _tiny_run(tmp_path / "rounds", iterations=1)
    with pytest.raises(ParetoscopeError, match="at least 1"):
        _tiny_run(tmp_path / "bad", iterations=1, transfer_every=0)
    with pytest.raises(ParetoscopeError, match="iteration budget"):
        _tiny_run(tmp_path / "bad", iterations=None, budget_seconds=1.0, transfer_every=2)


def test_the_cli_passes_transfer_every() -> None:
    args = _parser().parse_args(
        ["train", "behaviour", "--env", SWIMMER, "--out", "x", "--transfer-every", "50"]
    )
    assert args.transfer_every == 50
    plain = _parser().parse_args(["train", "behaviour", "--env", SWIMMER, "--out", "x"])
    assert plain.transfer_every is None


# --- a per-objective survival bonus ---------------------------------------------------------------


def test_a_survival_bonus_sets_each_members_shift_to_w_dot_bonus(tmp_path: Path) -> None:
    import json

    agent = _tiny_run(
        tmp_path / "bonus", iterations=1, preferences=[[1.0, 0.0], [0.25, 0.75]],
        survival_bonus=[2.0, 4.0],
    )  # fmt: skip
    # Hand-computed: 1*2 + 0*4 = 2; 0.25*2 + 0.75*4 = 3.5.
    assert agent.training["survival_shift"] == [2.0, 3.5]
    record = json.loads((tmp_path / "bonus" / "training" / "run.json").read_text())
    assert record["survival_bonus"] == [2.0, 4.0]
    with pytest.raises(ParetoscopeError, match="survival_bonus"):
        _tiny_run(
            tmp_path / "bonus", iterations=1, preferences=[[1.0, 0.0], [0.25, 0.75]],
            survival_bonus=[2.0, 5.0],
        )  # fmt: skip
    plain = _tiny_run(tmp_path / "plain", iterations=1)
    assert plain.training["survival_shift"] == [0.0, 0.0]  # Swimmer: no bonus in the table
    record = json.loads((tmp_path / "plain" / "training" / "run.json").read_text())
    assert "survival_bonus" not in record


def test_a_bonus_trains_like_the_equal_shift_and_unlike_another(tmp_path: Path) -> None:
    """On MO-Hopper-v3 (episodes end when it falls, so the per-step shift matters): the bonus
    (1, 1, 5) is the env's own table, so it trains exactly like the automatic shift; (1, 1, 0)
    at w = (0.2, 0.2, 0.6) is the constant shift 0.4, and differs from the automatic 3.4."""
    hopper = {
        "preferences": [[0.2, 0.2, 0.6]], "horizon": 150,
        "ars": ARSConfig(directions=4, top_directions=2, step_size=0.5, noise=0.5),
    }  # fmt: skip
    auto = _tiny_run(tmp_path / "auto", iterations=2, **hopper, env=HOPPER)
    table = _tiny_run(
        tmp_path / "table", iterations=2, survival_bonus=[1, 1, 5], **hopper, env=HOPPER
    )
    _assert_same_set(table, auto)
    kept = _tiny_run(
        tmp_path / "kept", iterations=2, survival_bonus=[1, 1, 0], **hopper, env=HOPPER
    )
    shift = _tiny_run(tmp_path / "shift", iterations=2, survival_shift=0.4, **hopper, env=HOPPER)
    _assert_same_set(kept, shift)
    assert kept.training["survival_shift"] == [pytest.approx(0.4)]
    assert not np.array_equal(kept.matrices, auto.matrices)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"survival_bonus": [1.0]}, "one per objective"),
        ({"survival_bonus": [1.0, float("nan")]}, "finite"),
        ({"survival_bonus": [1.0, 1.0], "survival_shift": 1.0}, "not both"),
    ],
)
def test_bad_survival_bonuses_raise(tmp_path: Path, overrides: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ParetoscopeError, match=message):
        _tiny_run(tmp_path / "bad", iterations=1, **overrides)


def test_the_cli_passes_a_survival_bonus() -> None:
    assert _cli_settings("--survival-bonus", "1,1,0").survival_bonus == (1.0, 1.0, 0.0)


# --- members with their own training reward (weights·min(r, caps)) -----------------------------


def _linear_policy(env_id: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    spec = get_spec(env_id)
    rng = np.random.default_rng(seed)
    matrix = rng.normal(0.0, 0.5, size=(spec.act_dim, spec.obs_dim))
    return matrix, rng.normal(size=spec.obs_dim) * 0.1, rng.uniform(0.5, 2.0, spec.obs_dim)


def _step_rewards(env_id: str, policy: tuple, seed: int, horizon: int) -> np.ndarray:  # type: ignore[type-arg]
    """Every step's reward vector of the linear policy, through the env's own step()."""
    from paretoscope.agents.policy_set import linear_actions
    from paretoscope.envs import make_env

    spec, (matrix, mean, std) = get_spec(env_id), policy
    env = make_env(env_id)
    observation, _ = env.reset(seed=seed)
    rewards = []
    for _ in range(horizon):
        action = linear_actions(
            matrix[None], mean[None], std[None], np.asarray(observation, dtype=np.float64)[None],
            np.asarray(spec.action_low), np.asarray(spec.action_high),
        )[0]  # fmt: skip
        observation, reward, terminated, truncated, _ = env.step(action)
        rewards.append(np.asarray(reward, dtype=np.float64))
        if terminated or truncated:
            break
    return np.array(rewards)


def test_capped_episodes_sum_the_per_step_minimum_in_both_runners() -> None:
    env_id, horizon = "MO-HalfCheetah-v2", 60
    policy = _linear_policy(env_id, 3)
    rewards = _step_rewards(env_id, policy, seed=11, horizon=horizon)
    # A cap between the run reward's smallest and largest step, so it binds on some steps only.
    caps = np.array([float(np.median(rewards[:, 0])), np.inf])
    assert (rewards[:, 0] > caps[0]).any() and (rewards[:, 0] < caps[0]).any()
    by_hand = np.minimum(rewards, caps).sum(axis=0)
    for runner in (MujocoRunner(env_id), GymRunner(env_id)):
        capped = runner.run(*policy, seed=11, horizon=horizon, caps=caps)
        np.testing.assert_allclose(capped.returns, by_hand, rtol=1e-5, atol=1e-3)
        assert capped.length == len(rewards)
        plain = runner.run(*policy, seed=11, horizon=horizon)
        assert capped.returns[0] < plain.returns[0] and capped.returns[1] == plain.returns[1]
        # No binding cap: exactly the plain episode.
        loose = runner.run(*policy, seed=11, horizon=horizon, caps=np.array([np.inf, np.inf]))
        np.testing.assert_array_equal(loose.returns, plain.returns)


def test_an_ars_iteration_hands_its_caps_to_every_episode() -> None:
    pool = _LinearScorePool(np.ones((2, 3)))
    caps = np.array([0.5, np.inf])
    ars_iteration(
        np.zeros((2, 3)), ObservationStats.empty(3), np.array([1.0, 0.0]),
        np.random.default_rng(0), pool, TINY, horizon=10, caps=caps,
    )  # fmt: skip
    assert len(pool.tasks) == 2 * TINY.directions
    assert all(task[5] is caps for task in pool.tasks)


def test_a_member_reward_trains_on_its_own_weights_and_caps(tmp_path: Path) -> None:
    import json

    from paretoscope.train.ars import InProcessEpisodes, evaluate_policy
    from paretoscope.train.behaviour.member import eval_seeds

    no_warm = {"warm_start": False, "iterations": 2}
    # Member 1 (preference 0.5, 0.5) on weights (1, 0) uncapped trains exactly like a member
    # whose preference is (1, 0) at the same place.
    own = _tiny_run(tmp_path / "own", preferences=[[0.0, 1.0], [1.0, 0.0]], **no_warm)
    reward = MemberTraining((0.5, 0.5), (1.0, 0.0), (None, None))
    other = _tiny_run(
        tmp_path / "other", preferences=[[0.0, 1.0], [0.5, 0.5]], train_on=[reward], **no_warm,
    )  # fmt: skip
    np.testing.assert_array_equal(other.matrices, own.matrices)
    np.testing.assert_array_equal(other.preferences[1], [0.5, 0.5])  # it keeps its place
    record = json.loads((tmp_path / "other" / "training" / "run.json").read_text())
    assert record["member_rewards"] == [None, {"weights": [1.0, 0.0], "caps": [None, None]}]
    assert other.training["member_rewards"] == record["member_rewards"]
    # A cap that binds (forward reward <= 0 per step) trains differently...
    capped = _tiny_run(
        tmp_path / "capped", preferences=[[0.0, 1.0], [0.5, 0.5]],
        train_on=[MemberTraining((0.5, 0.5), (1.0, 0.0), (0.0, None))], **no_warm,
    )  # fmt: skip
    assert not np.array_equal(capped.matrices[1], own.matrices[1])
    np.testing.assert_array_equal(capped.matrices[0], own.matrices[0])
    # ...and is evaluated on the true, uncapped returns (its forward return is positive, which
    # the cap at 0 per step would have cut).
    state = load_member(member_path(tmp_path / "capped", 1))
    evaluation = np.asarray(state.eval_returns)
    seeds = eval_seeds(3, 1, 1)
    pool = InProcessEpisodes(MujocoRunner(SWIMMER))
    np.testing.assert_array_equal(
        evaluation, evaluate_policy(state.matrix, state.stats, seeds, pool, 30)
    )
    assert evaluation[:, 0].max() > 0.0
    # Other settings: the rewards are part of run.json, so a resume with others is refused.
    with pytest.raises(ParetoscopeError, match="member_rewards"):
        _tiny_run(
            tmp_path / "capped", preferences=[[0.0, 1.0], [0.5, 0.5]],
            train_on=[MemberTraining((0.5, 0.5), (1.0, 0.0), (0.1, None))], **no_warm,
        )  # fmt: skip


@pytest.mark.parametrize(
    ("weights", "caps", "message"),
    [
        ((1.0,), (None,), "expected 2 weights"),
        ((1.0, -1.0), (None, None), "non-negative"),
        ((0.0, 0.0), (None, None), "not all zero"),
        ((1.0, 0.0), (float("nan"), None), "finite numbers or none"),
    ],
)
def test_bad_member_rewards_raise_before_training(
    tmp_path: Path,
    weights: tuple,
    caps: tuple,
    message: str,  # type: ignore[type-arg]
) -> None:
    reward = MemberTraining((1.0, 0.0), weights, caps)
    with pytest.raises(ParetoscopeError, match=message):
        _tiny_run(tmp_path / "bad", iterations=1, train_on=[reward])
    assert not (tmp_path / "bad").exists()


def test_a_member_reward_must_name_one_given_preference(tmp_path: Path) -> None:
    reward = MemberTraining((0.3, 0.7), (1.0, 0.0), (None, None))
    with pytest.raises(ParetoscopeError, match="0.3,0.7: no member has that preference"):
        _tiny_run(tmp_path / "bad", iterations=1, train_on=[reward])
    # Members spread by count have no preference to be named by.
    with pytest.raises(ParetoscopeError, match="give those"):
        _tiny_run(tmp_path / "bad", iterations=1, preferences=None, members=2, train_on=[reward])
    assert not (tmp_path / "bad").exists()


def test_a_member_with_its_own_reward_adopts_the_policy_best_on_that_reward(
    tmp_path: Path,
) -> None:
    """At a round end a capped member scores every member's policy on its capped reward,
    rolled out again on its evaluation seeds; the choice matches scores summed by hand from
    the env's own step() rewards, and differs from what its linear score would pick."""
    from paretoscope.train.ars import EpisodePool
    from paretoscope.train.behaviour import MemberState
    from paretoscope.train.behaviour.member import eval_seeds
    from paretoscope.train.behaviour.transfer import transfer_policies

    horizon = 40
    policies = [_linear_policy(SWIMMER, seed) for seed in (1, 2, 5)]

    def state(index: int, preference: list[float], mean_return: list[float]) -> MemberState:
        matrix, mean, std = policies[index]
        stats = ObservationStats.of(np.stack([mean - std, mean + std]))
        return MemberState(
            index=index,
            preference=np.asarray(preference, dtype=np.float64),
            matrix=matrix,
            stats=stats,
            iteration=10,
            evaluated_iteration=10,
            eval_returns=np.asarray([mean_return], dtype=np.float64),
        )

    def states() -> list[MemberState]:
        return [state(0, [1.0, 0.0], [9.0, 0.0]), state(1, [0.6, 0.4], [0.0, 20.0]),
                state(2, [0.5, 0.5], [1.0, 1.0])]  # fmt: skip

    settings = BehaviourRun(
        env_id=SWIMMER,
        preferences=((1.0, 0.0), (0.6, 0.4), (0.5, 0.5)),
        horizon=horizon,
        eval_episodes=2,
        member_rewards=(None, None, MemberReward((1.0, 0.0), (0.02, None))),
    )
    seeds = eval_seeds(settings.seed, 2, settings.eval_episodes)
    by_hand, uncapped = [], []
    for matrix, mean, std in policies:
        stats = ObservationStats.of(np.stack([mean - std, mean + std]))
        episodes = [
            _step_rewards(SWIMMER, (matrix, *stats.normaliser()), seed, horizon) for seed in seeds
        ]
        by_hand.append(np.mean([np.minimum(e[:, 0], 0.02).sum() for e in episodes]))
        uncapped.append(np.mean([e[:, 0].sum() for e in episodes]))
    expected = int(np.argmax(by_hand))
    assert expected != 2 and by_hand[expected] > by_hand[2]  # the case tests an adoption
    assert int(np.argmax(uncapped)) != expected  # ...that only the cap decides
    members = states()
    (tmp_path / "training").mkdir()
    with EpisodePool(SWIMMER, 1) as pool:
        transfer_policies(tmp_path, settings, members, pool, horizon)
    assert members[2].transfers == [(10, expected)]
    np.testing.assert_array_equal(members[2].matrix, policies[expected][0])
    # Members on their own preference still decide on the evaluations alone.
    assert members[0].transfers == [] and members[1].transfers == []


def test_the_cli_reads_train_on_and_matches_it_to_a_preference() -> None:
    from dataclasses import replace

    from paretoscope.train.behaviour import member_rewards

    settings = _cli_settings(
        "--preference", "0.9,0.1", "--preference", "0.2,0.8",
        "--train-on", "0.2,0.8:0.5,0.5:2.5,inf",
    )  # fmt: skip
    assert settings.train_on == (MemberTraining((0.2, 0.8), (0.5, 0.5), (2.5, None)),)
    rewards = member_rewards(settings, [[0.9, 0.1], [0.2, 0.8]])
    assert rewards == [None, MemberReward((0.5, 0.5), (2.5, None))]
    with pytest.raises(ParetoscopeError, match="no member has that preference"):
        member_rewards(settings, [[0.9, 0.1]])
    with pytest.raises(ParetoscopeError, match="give those"):
        member_rewards(replace(settings, preferences=None), [[0.9, 0.1], [0.2, 0.8]])
    assert member_rewards(replace(settings, train_on=()), [[0.9, 0.1]]) is None
    for bad in ("0.2,0.8:0.5,0.5", "0.2,0.8:a,b:1,1"):
        with pytest.raises(ParetoscopeError, match="--train-on: expected"):
            _cli_settings("--train-on", bad)


# --- dropping dominated members ------------------------------------------------------------------


def test_kept_members_are_the_non_dominated_ones_by_hand() -> None:
    from paretoscope.train.behaviour import kept_members

    # Mean returns (100, 0), (60, 60), (50, 50) (dominated by (60, 60)), (0, 90), (60, 60) again.
    states = [
        _member(0, [1.0, 0.0], [100.0, 0.0]),
        _member(1, [0.5, 0.5], [60.0, 60.0]),
        _member(2, [0.6, 0.4], [50.0, 50.0]),
        _member(3, [0.0, 1.0], [0.0, 90.0]),
        _member(4, [0.4, 0.6], [60.0, 60.0]),
    ]
    assert [state.index for state in kept_members(states, 0.0)] == [0, 1, 3, 4]  # ties stay
    assert kept_members(states, None) == states
    # Two members that run alike (100 and 99.5 of a range of 100): plain dominance keeps the
    # one 0.5 faster at 30 less energy; a margin of 1% of the range calls the run a tie.
    alike = [
        _member(0, [0.0, 1.0], [0.0, 100.0]),
        _member(1, [0.9, 0.1], [100.0, 50.0]),
        _member(2, [0.8, 0.2], [99.5, 80.0]),
    ]
    assert [state.index for state in kept_members(alike, 0.0)] == [0, 1, 2]
    assert [state.index for state in kept_members(alike, 0.01)] == [0, 2]


def test_a_set_saved_without_its_dominated_members_keeps_their_training(tmp_path: Path) -> None:
    settings = {"preferences": None, "members": 5, "iterations": 1}
    full = _tiny_run(tmp_path / "full", **settings)
    assert full.mean_returns is not None
    # Brute force over the full set's evaluated means: which member does another dominate?
    means = full.mean_returns
    dominated = [
        i
        for i, p in enumerate(means)
        if any((q >= p).all() and (q > p).any() for j, q in enumerate(means) if j != i)
    ]
    assert dominated, "pick settings that leave some member dominated"
    kept = [i for i in range(len(means)) if i not in dominated]
    # Saving the finished run again with the flag trains nothing (not a training setting).
    dropped = _tiny_run(tmp_path / "full", **settings, drop_dominated=0.0)
    np.testing.assert_array_equal(dropped.preferences, full.preferences[kept])
    np.testing.assert_array_equal(dropped.matrices, full.matrices[kept])
    assert [entry["index"] for entry in dropped.training["dropped"]] == dominated
    assert dropped.training["iterations"] == [1] * len(kept)
    assert all(member_path(tmp_path / "full", i).is_file() for i in dominated)
    _assert_same_set(load_policy_set(tmp_path / "full"), dropped)
    # The command line passes the flag.
    args = _parser().parse_args(
        ["train", "behaviour", "--env", SWIMMER, "--out", "x", "--drop-dominated"]
    )
    assert args.drop_dominated == 0.0
    args = _parser().parse_args(
        ["train", "behaviour", "--env", SWIMMER, "--out", "x", "--drop-dominated", "0.01"]
    )
    assert args.drop_dominated == 0.01
    with pytest.raises(ParetoscopeError, match="margin"):
        _tiny_run(tmp_path / "bad", **settings, drop_dominated=1.5)


def test_a_member_reward_goes_to_exactly_one_member() -> None:
    from paretoscope.train import MemberReward, rewards_by_member

    reward = MemberReward((0.8, 0.2), (2.0, None))
    assert rewards_by_member([[1, 0], [0.5, 0.5]], [((0.5, 0.5), reward)]) == [None, reward]
    with pytest.raises(ParetoscopeError, match="0.3,0.7: no member has that preference"):
        rewards_by_member([[1, 0], [0.5, 0.5]], [((0.3, 0.7), reward)])
    # Two members closer than np.allclose tells apart: the reward names neither alone.
    with pytest.raises(ParetoscopeError, match="several members match"):
        rewards_by_member([[0.5, 0.5], [0.5 + 1e-9, 0.5 - 1e-9]], [((0.5, 0.5), reward)])
