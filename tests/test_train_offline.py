"""Offline trainers (MORvS, BC, MODT): batches built as agents act, learning, resuming, the CLI.

The dataset: a scripted Swimmer behaviour whose action size grows with the first preference
weight (a = p₀ · tanh(W o)), collected for 48 episodes of 100 steps. Its returns depend
clearly on the preference (energy from 30 at p₀ = 0 to about 3 at p₀ = 1), so an agent that
learned from it must act differently at different preferences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from paretoscope.agents.architecture import (
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
)
from paretoscope.agents.base import AgentSpec, Conditioning
from paretoscope.agents.checkpoint import load
from paretoscope.agents.conditioned import ConditionedAgent, ObservationNormalizer, create_agent
from paretoscope.agents.target_model import fit_linear_target_model
from paretoscope.cli import build_parser, main
from paretoscope.collect import collect
from paretoscope.data import (
    DatasetInfo,
    Trajectories,
    open_dataset,
    read_d4morl,
    write_d4morl,
)
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.rollout import rollout_batch
from paretoscope.runs.layout import SNAPSHOTS_DIR, snapshot_dir
from paretoscope.settings import OfflineTrainingSettings
from paretoscope.train.batches import (
    BATCH_BUILDERS,
    TrainingData,
    action_loss,
    modt_batch,
    observation_statistics,
    returns_to_go,
    sample_steps,
)
from paretoscope.train.offline import (
    RUN_FILE,
    STATE_FILE,
    TRAINING_DIR,
    dataset_fingerprint,
    learning_rate_at,
    train_offline,
)

SWIMMER = "MO-Swimmer-v2"
HORIZON = 100
# Tiny networks: the mechanics are the same as at PEDA's sizes, the tests stay fast.
TINY: dict[str, dict[str, object]] = {
    "morvs": {"hidden_sizes": (64, 64)},
    "bc": {"hidden_sizes": (64, 64)},
    "modt": {"hidden_size": 32, "n_layer": 1, "inner_size": 64, "max_timestep": HORIZON},
}


class ScriptedSwimmer:
    """a = p₀ · tanh(W o) · bound: a deterministic behaviour whose effort follows p₀."""

    def __init__(self) -> None:
        spec = get_spec(SWIMMER)
        rng = np.random.default_rng(0)
        self.weights = rng.normal(0.0, 3.0 / np.sqrt(spec.obs_dim), (spec.obs_dim, spec.act_dim))
        self.bound = np.asarray(spec.action_high)
        self.spec = AgentSpec(
            SWIMMER,
            spec.n_obj,
            spec.obs_dim,
            spec.act_dim,
            "policy_set",
            Conditioning(return_conditioned=False),
        )
        self.fingerprint = "scripted-swimmer-v1"

    def reset(self, batch_size: int) -> None:
        pass

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        effort = np.tanh((observations[:, :, None] * self.weights[None]).sum(axis=1))
        return preferences[:, :1] * effort * self.bound

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))


@pytest.fixture(scope="module")
def dataset_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("offline") / "swimmer-scripted"
    return collect(ScriptedSwimmer(), SWIMMER, 48, out, horizon=HORIZON, seed=0)


@pytest.fixture(scope="module")
def trajectories(dataset_path: Path) -> Trajectories:
    return open_dataset(dataset_path)


def tiny_agent(kind: str, trajectories: Trajectories, **changes: object) -> ConditionedAgent:
    """An untrained agent set up as the trainer sets it up, with a tiny network."""
    sizes = {**TINY[kind], **changes}
    architecture = {
        "morvs": lambda: MORvSArchitecture(horizon=HORIZON, **sizes),  # type: ignore[arg-type]
        "bc": lambda: BCArchitecture(**sizes),  # type: ignore[arg-type]
        "modt": lambda: TransformerArchitecture(**sizes),  # type: ignore[arg-type]
    }[kind]()
    mean, std = observation_statistics(trajectories.observations)
    target_model = None
    if kind != "bc":
        target_model = fit_linear_target_model(trajectories.preferences, trajectories.returns)
    return create_agent(
        kind,
        SWIMMER,
        architecture=architecture,
        normalizer=ObservationNormalizer(mean=tuple(mean), std=tuple(std)),
        target_model=target_model,
        seed=0,
    )


def config(steps: int, **changes: object) -> OfflineTrainingSettings:
    values: dict[str, object] = {"steps": steps, "learning_rate": 1e-3, "checkpoint_every": steps}
    values.update(changes)
    return OfflineTrainingSettings(**values)  # type: ignore[arg-type]


def weights(agent: ConditionedAgent) -> dict[str, torch.Tensor]:
    return {name: tensor.detach().clone() for name, tensor in agent.network.state_dict().items()}


def assert_same_weights(a: ConditionedAgent, b: ConditionedAgent) -> None:
    first, second = weights(a), weights(b)
    assert first.keys() == second.keys()
    for name in first:
        assert torch.equal(first[name], second[name]), name


# --- data preparation ---------------------------------------------------------------------------


def test_returns_to_go_are_the_rewards_still_to_come_in_each_trajectory() -> None:
    rng = np.random.default_rng(0)
    lengths = [3, 1, 5]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    rewards = rng.normal(size=(offsets[-1], 2))
    result = returns_to_go(rewards, offsets)
    for index in range(len(lengths)):
        start, stop = offsets[index], offsets[index + 1]
        for step in range(start, stop):
            expected = sum(rewards[later] for later in range(step, stop))
            np.testing.assert_allclose(result[step], expected, rtol=1e-12)


def test_observation_statistics_read_in_chunks_and_leave_constant_dims_unscaled() -> None:
    rng = np.random.default_rng(1)
    observations = np.column_stack([rng.normal(3.0, 2.0, 1001), np.full(1001, 7.0)])
    mean, std = observation_statistics(observations, chunk_rows=64)
    np.testing.assert_allclose(mean, observations.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(std[0], observations[:, 0].std(), rtol=1e-10)
    assert std[1] == 1.0  # a constant coordinate is centred, not divided by ~0


def test_sampling_picks_trajectories_in_proportion_to_their_length(
    trajectories: Trajectories,
) -> None:
    data = TrainingData.from_trajectories(trajectories)
    offsets = np.array([0, 10, 40, 100])  # lengths 10, 30, 60
    data = TrainingData(
        data.observations[:100], data.actions[:100], data.returns_to_go[:100], data.preferences[:3],
        offsets,
    )  # fmt: skip
    steps = sample_steps(data, np.random.default_rng(2), 60_000)
    frequency = np.bincount(data.trajectory_of(steps), minlength=3) / len(steps)
    np.testing.assert_allclose(frequency, [0.1, 0.3, 0.6], atol=0.01)
    # Within a trajectory, every step is equally likely (PEDA: a uniform start step).
    within = steps[data.trajectory_of(steps) == 1] - 10
    assert np.abs(np.bincount(within, minlength=30) / len(within) - 1 / 30).max() < 0.01


def test_learning_rate_warms_up_linearly_as_peda_does() -> None:
    resolved = OfflineTrainingSettings(steps=500, learning_rate=1e-4).resolved("modt")
    assert resolved.warmup_steps == 50  # a tenth of a short run
    assert OfflineTrainingSettings(steps=500_000).resolved("bc").warmup_steps == 10_000  # PEDA's
    assert learning_rate_at(resolved, 0) == pytest.approx(1e-4 / 50)
    assert learning_rate_at(resolved, 24) == pytest.approx(1e-4 / 2)
    assert learning_rate_at(resolved, 49) == learning_rate_at(resolved, 400) == 1e-4
    assert resolved.gradient_clip == 0.25
    assert OfflineTrainingSettings().resolved("morvs").gradient_clip == 0.0


# --- the batches are what the agents see when they act ----------------------------------------


def replay(
    agent: ConditionedAgent,
    trajectories: Trajectories,
    index: int,
    output: Callable[[int, torch.Tensor], torch.Tensor] | None = None,
) -> list[tuple[torch.Tensor, ...]]:
    """Drive `agent` through dataset trajectory `index` as a rollout does (the target starts at
    the trajectory's return and loses each reward); returns the network's inputs per step."""
    trajectory = trajectories.trajectory(index)
    recorded: list[tuple[torch.Tensor, ...]] = []

    def hook(module: torch.nn.Module, args: tuple[torch.Tensor, ...], result: torch.Tensor):  # type: ignore[no-untyped-def]
        recorded.append(tuple(argument.clone() for argument in args))
        return None if output is None else output(len(recorded) - 1, result)

    handle = agent.network.register_forward_hook(hook)
    try:
        agent.reset(1)
        target = trajectory.returns.copy()
        preference = np.array(trajectory.preference[None])  # copies out of the memory map
        for step in range(len(trajectory)):
            observation = np.array(trajectory.observations[step : step + 1])
            agent.act(observation, preference, target[None])
            target = target - trajectory.raw_rewards[step]
    finally:
        handle.remove()
    return recorded


@pytest.mark.parametrize("kind", ["morvs", "bc"])
def test_mlp_training_inputs_equal_what_act_builds_at_every_step(
    kind: str, trajectories: Trajectories
) -> None:
    agent = tiny_agent(kind, trajectories)
    data = TrainingData.from_trajectories(trajectories)
    index = 5
    start, stop = trajectories.offsets[index], trajectories.offsets[index + 1]
    acted = torch.cat([inputs[0] for inputs in replay(agent, trajectories, index)])
    batch = BATCH_BUILDERS[kind](agent, data, np.arange(start, stop))
    assert batch.inputs[0].shape == acted.shape
    torch.testing.assert_close(batch.inputs[0], acted, rtol=1e-5, atol=1e-6)
    bound = np.asarray(get_spec(SWIMMER).action_high)
    expected_targets = np.clip(trajectories.actions[start:stop] / bound, -1, 1)
    np.testing.assert_allclose(batch.targets.numpy(), expected_targets, rtol=1e-6)


def test_modt_training_window_equals_the_history_act_builds(trajectories: Trajectories) -> None:
    # Acting with a context as long as the training window makes the two comparable.
    agent = tiny_agent("modt", trajectories, context_length=20, train_context_length=20)
    data = TrainingData.from_trajectories(trajectories)
    index = 7
    start = int(trajectories.offsets[index])
    actions = torch.tensor(np.array(data.actions[start : start + HORIZON]), dtype=torch.float32)

    def dataset_action(step: int, result: torch.Tensor) -> torch.Tensor:
        # The agent keeps its own past outputs as actions; make them the dataset's.
        replaced = result.clone()
        replaced[:, -1] = actions[step]  # Swimmer's action bound is 1
        return replaced

    acted = replay(agent, trajectories, index, dataset_action)
    act_dim = agent.spec.act_dim
    for step in (19, 50, HORIZON - 1):
        batch = modt_batch(agent, data, np.array([start + step - 19]))
        states, actions_in, returns, timesteps, mask = batch.inputs
        acted_states, acted_actions, acted_returns, acted_timesteps, acted_mask = acted[step]
        torch.testing.assert_close(states, acted_states, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(returns, acted_returns, rtol=1e-5, atol=1e-6)
        assert torch.equal(timesteps, acted_timesteps) and torch.equal(mask, acted_mask)
        # Past actions are equal; the current step's own action slot is zeros when acting, the
        # dataset's in training (its preference part equal) ...
        torch.testing.assert_close(actions_in[:, :-1], acted_actions[:, :-1])
        torch.testing.assert_close(actions_in[:, -1, act_dim:], acted_actions[:, -1, act_dim:])
        # ... which the prediction at that step cannot see (causal attention).
        agent.network.eval()
        with torch.no_grad():
            blanked = actions_in.clone()
            blanked[:, -1, :act_dim] = 0.0
            original = agent.network(states, actions_in, returns, timesteps, mask)[:, -1]
            without = agent.network(states, blanked, returns, timesteps, mask)[:, -1]
        torch.testing.assert_close(original, without, rtol=0, atol=1e-6)


def test_modt_window_cut_by_the_trajectory_end_is_left_padded_and_masked(
    trajectories: Trajectories,
) -> None:
    agent = tiny_agent("modt", trajectories)
    data = TrainingData.from_trajectories(trajectories)
    last = int(trajectories.offsets[1]) - 1  # final step of trajectory 0
    batch = modt_batch(agent, data, np.array([last - 2]))  # 3 real steps of 20
    states, actions, returns, timesteps, mask = batch.inputs
    assert mask.tolist() == [[0.0] * 17 + [1.0] * 3]
    assert timesteps[0, :17].eq(0).all() and timesteps[0, 17:].tolist() == [97, 98, 99]
    for tensor in (states, actions, returns, batch.targets):
        assert tensor[0, :17].eq(0).all() and tensor[0, 17:].ne(0).any()
    # The last step's return-to-go is its own reward (weighted by p, over 1000).
    preference = trajectories.preferences[0]
    expected = preference * trajectories.raw_rewards[last] / 1000.0
    np.testing.assert_allclose(returns[0, -1, :2].numpy(), expected, rtol=1e-5, atol=1e-9)
    # The loss counts the three real steps only.
    agent.network.eval()
    with torch.no_grad():
        predicted = agent.network(*batch.inputs)[0, 17:]
        expected_loss = ((predicted - batch.targets[0, 17:]) ** 2).mean()
        assert float(action_loss(agent.network, batch)) == pytest.approx(float(expected_loss))


# --- training ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["morvs", "bc", "modt"])
def test_training_lowers_the_loss(kind: str, dataset_path: Path, tmp_path: Path) -> None:
    trajectories = open_dataset(dataset_path)
    untrained = tiny_agent(kind, trajectories)
    steps = 120 if kind == "modt" else 200
    trained = train_offline(
        kind, dataset_path, tmp_path / kind, config(steps), architecture=TINY[kind], progress=False
    )
    data = TrainingData.from_trajectories(trajectories)
    held_out = BATCH_BUILDERS[kind](
        trained, data, sample_steps(data, np.random.default_rng(9), 256)
    )
    with torch.no_grad():
        untrained.network.eval()
        trained.network.eval()
        before = float(action_loss(untrained.network, held_out))
        after = float(action_loss(trained.network, held_out))
    assert after < 0.5 * before, (before, after)
    history = trained.training["loss_history"]
    assert history[-1][0] == steps and history[-1][1] < before


def test_trained_morvs_follows_preferences_better_than_an_untrained_one(
    dataset_path: Path, trajectories: Trajectories, tmp_path: Path
) -> None:
    trained = train_offline(
        "morvs", dataset_path, tmp_path / "morvs", config(400), architecture=TINY["morvs"],
        progress=False,
    )  # fmt: skip
    untrained = tiny_agent("morvs", trajectories)
    first_weight = np.linspace(0.0, 1.0, 9)
    preferences = np.repeat(np.column_stack([first_weight, 1.0 - first_weight]), 3, axis=0)
    seeds = np.arange(100, 100 + len(preferences))

    def returns(agent: object) -> np.ndarray:
        """Mean return over 3 episodes at each of the 9 preferences."""
        rollout = rollout_batch(agent, SWIMMER, preferences, seeds, horizon=HORIZON)  # type: ignore[arg-type]
        return rollout.returns.reshape(9, 3, -1).mean(axis=1)

    behaviour = returns(ScriptedSwimmer())
    scale = behaviour.max(axis=0) - behaviour.min(axis=0)

    def gap(achieved: np.ndarray) -> float:
        """Mean distance to the behaviour's return at the same preference, per-objective range."""
        return float(np.linalg.norm((achieved - behaviour) / scale, axis=1).mean())

    trained_returns, untrained_returns = returns(trained), returns(untrained)
    # Measured here: 0.72 against 3.29.
    assert gap(trained_returns) < 0.4 * gap(untrained_returns)
    # Energy falls as the effort weight p₀ grows, as in the data (the behaviour's energy spans
    # 26 over the grid, the trained agent's 20, the untrained one's 0.15).
    energy = trained_returns[:, 1]
    assert np.corrcoef(first_weight, energy)[0, 1] < -0.8
    assert np.ptp(energy) > 0.5 * np.ptp(behaviour[:, 1])
    assert np.ptp(energy) > 20 * np.ptp(untrained_returns[:, 1])


@pytest.mark.parametrize("kind", ["morvs", "bc", "modt"])
def test_an_interrupted_run_resumes_bit_identically(
    kind: str, dataset_path: Path, tmp_path: Path
) -> None:
    settings = config(40, checkpoint_every=10)
    straight = train_offline(
        kind, dataset_path, tmp_path / "straight", settings, architecture=TINY[kind],
        progress=False,
    )  # fmt: skip

    def interrupt(step: int, loss: float) -> None:
        if step == 27:
            raise KeyboardInterrupt

    out = tmp_path / "interrupted"
    with pytest.raises(KeyboardInterrupt):
        train_offline(
            kind, dataset_path, out, settings, architecture=TINY[kind], progress=False,
            on_step=interrupt,
        )  # fmt: skip
    assert load(out).training["steps"] == 20  # type: ignore[attr-defined]
    losses: list[tuple[int, float]] = []
    resumed = train_offline(
        kind, dataset_path, out, settings, architecture=TINY[kind], resume=True, progress=False,
        on_step=lambda step, loss: losses.append((step, loss)),
    )  # fmt: skip
    assert losses[0][0] == 21 and losses[-1][0] == 40  # continued from the checkpoint at 20
    assert_same_weights(straight, resumed)
    assert resumed.training["loss_history"] == straight.training["loss_history"]
    assert_same_weights(straight, load(out))  # type: ignore[arg-type]
    # The saved checkpoints are the same files (the loss history's steps stay whole numbers).
    for name in ("config.json", "weights.safetensors"):
        assert (out / name).read_bytes() == (tmp_path / "straight" / name).read_bytes()


def test_half_then_resume_for_the_rest_equals_one_run(dataset_path: Path, tmp_path: Path) -> None:
    # With an explicit warm-up (an automatic one is fixed by the first run's length).
    straight = train_offline(
        "modt", dataset_path, tmp_path / "a", config(30, warmup_steps=8), architecture=TINY["modt"],
        progress=False,
    )  # fmt: skip
    train_offline(
        "modt", dataset_path, tmp_path / "b", config(15, warmup_steps=8), architecture=TINY["modt"],
        progress=False,
    )  # fmt: skip
    resumed = train_offline(
        "modt", dataset_path, tmp_path / "b", config(30, warmup_steps=8), architecture=TINY["modt"],
        resume=True, progress=False,
    )  # fmt: skip
    assert_same_weights(straight, resumed)


def test_same_seed_same_agent_other_seed_another(dataset_path: Path, tmp_path: Path) -> None:
    runs = [
        train_offline(
            "bc",
            dataset_path,
            tmp_path / name,
            config(25, seed=seed),
            architecture=TINY["bc"],
            progress=False,
        )  # fmt: skip
        for name, seed in (("a", 3), ("b", 3), ("c", 4))
    ]
    assert_same_weights(runs[0], runs[1])
    assert not torch.equal(runs[0].network.output.weight, runs[2].network.output.weight)
    # The caller's RNG and flags are left as they were.
    assert not torch.are_deterministic_algorithms_enabled()


def test_saved_agent_round_trips_with_the_data_it_learned_from(
    dataset_path: Path, trajectories: Trajectories, tmp_path: Path
) -> None:
    out = tmp_path / "modt"
    trained = train_offline(
        "modt", dataset_path, out, config(10), architecture=TINY["modt"], progress=False
    )
    loaded = load(out)
    assert isinstance(loaded, ConditionedAgent)
    assert_same_weights(trained, loaded)
    # Normalisation and initial targets come from the data.
    mean, std = observation_statistics(trajectories.observations)
    np.testing.assert_allclose(loaded.normalizer.mean, trajectories.observations.mean(axis=0))
    np.testing.assert_allclose(loaded.normalizer.std, std)
    fitted = fit_linear_target_model(trajectories.preferences, trajectories.returns)
    assert loaded.target_model is not None
    np.testing.assert_allclose(loaded.target_model.corner_returns, fitted.corner_returns)
    dataset = loaded.training["dataset"]
    assert dataset["sha256"] == dataset_fingerprint(trajectories)
    assert dataset["n_trajectories"] == 48 and dataset["env_id"] == SWIMMER
    assert loaded.training["steps"] == 10
    # Both act the same.
    preferences = np.array([[0.2, 0.8], [0.9, 0.1]])
    first = rollout_batch(trained, SWIMMER, preferences, [1, 2], horizon=20).returns
    second = rollout_batch(loaded, SWIMMER, preferences, [1, 2], horizon=20).returns
    np.testing.assert_array_equal(first, second)


def test_fingerprint_is_the_same_in_every_format_and_changes_with_the_data(
    dataset_path: Path, trajectories: Trajectories, tmp_path: Path
) -> None:
    pickle_path = write_d4morl(trajectories, tmp_path / f"{SWIMMER}_48_expert_uniform.pkl")
    from_pickle = read_d4morl(pickle_path)
    assert dataset_fingerprint(from_pickle) == dataset_fingerprint(trajectories)
    changed = [from_pickle.trajectory(index) for index in range(from_pickle.n_trajectories)]
    changed[5].raw_rewards = changed[5].raw_rewards.copy()
    changed[5].raw_rewards[3, 0] += 1e-9
    changed_data = Trajectories.from_trajectories(changed, from_pickle.info)
    assert dataset_fingerprint(changed_data) != dataset_fingerprint(trajectories)
    # A D4MORL file named for one env, trained as another.
    with pytest.raises(ParetoscopeError, match="file name says MO-Swimmer-v2"):
        train_offline("bc", pickle_path, tmp_path / "x", config(5), env_id="MO-HalfCheetah-v2")


# --- snapshots -----------------------------------------------------------------------------------


def snapshot_steps(out: Path) -> list[int]:
    """The steps of the snapshot folders (named exactly step=N, nothing else there)."""
    return sorted(int(path.name.removeprefix("step=")) for path in (out / SNAPSHOTS_DIR).iterdir())


def checkpoint_files(folder: Path) -> tuple[bytes, bytes]:
    return (folder / "config.json").read_bytes(), (folder / "weights.safetensors").read_bytes()


def test_each_snapshot_is_the_agent_a_run_of_exactly_that_many_steps_saves(
    dataset_path: Path, tmp_path: Path
) -> None:
    # A fixed warm-up: an automatic one depends on the run's length. Steps 2 and 6 are not
    # checkpoints (every 4), step 6 is the end.
    settings = config(6, checkpoint_every=4, warmup_steps=2, snapshot_every=2)
    out = tmp_path / "run"
    final = train_offline(
        "morvs", dataset_path, out, settings, architecture=TINY["morvs"], progress=False
    )
    assert snapshot_steps(out) == [2, 4, 6]
    for step in (2, 4, 6):
        exact = train_offline(
            "morvs", dataset_path, tmp_path / f"exact-{step}",
            replace(settings, steps=step, snapshot_every=None), architecture=TINY["morvs"],
            progress=False,
        )  # fmt: skip
        snapshot = load(snapshot_dir(out, step))
        assert isinstance(snapshot, ConditionedAgent)
        assert snapshot.training["steps"] == step
        assert_same_weights(snapshot, exact)
        # Byte for byte the checkpoint that run saved, training record and loss history included.
        assert checkpoint_files(snapshot_dir(out, step)) == checkpoint_files(
            tmp_path / f"exact-{step}"
        )
    assert checkpoint_files(snapshot_dir(out, 6)) == checkpoint_files(out)
    assert final.training["steps"] == 6
    assert not (out / TRAINING_DIR / "snapshot.partial").exists()


def test_a_resumed_run_keeps_its_snapshots_and_ends_with_the_uninterrupted_ones(
    dataset_path: Path, tmp_path: Path
) -> None:
    # Snapshots every 3 steps, checkpoints every 4: interrupted at step 7, the run resumes from
    # step 4 and recomputes steps 5 and 6, whose snapshot at 6 is already there.
    settings = config(12, checkpoint_every=4, warmup_steps=2, snapshot_every=3)
    tiny = TINY["bc"]
    straight = tmp_path / "straight"
    train_offline("bc", dataset_path, straight, settings, architecture=tiny, progress=False)
    assert snapshot_steps(straight) == [3, 6, 9, 12]

    def interrupt(step: int, loss: float) -> None:
        if step == 7:
            raise KeyboardInterrupt

    out = tmp_path / "interrupted"
    with pytest.raises(KeyboardInterrupt):
        train_offline(
            "bc", dataset_path, out, settings, architecture=tiny, progress=False,
            on_step=interrupt,
        )  # fmt: skip
    assert snapshot_steps(out) == [3, 6]
    before = {step: (snapshot_dir(out, step) / "weights.safetensors").stat() for step in (3, 6)}
    steps: list[int] = []
    train_offline(
        "bc", dataset_path, out, settings, architecture=tiny, resume=True, progress=False,
        on_step=lambda step, loss: steps.append(step),
    )  # fmt: skip
    assert steps[0] == 5  # from the checkpoint at 4, through the snapshot at 6 again
    assert snapshot_steps(out) == [3, 6, 9, 12]
    for step in (3, 6, 9, 12):
        assert checkpoint_files(snapshot_dir(out, step)) == checkpoint_files(
            snapshot_dir(straight, step)
        )
    for step, stat in before.items():  # kept, not rewritten
        after = (snapshot_dir(out, step) / "weights.safetensors").stat()
        assert (after.st_ino, after.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)


def test_snapshots_can_start_on_a_resume_of_a_run_made_without_them(
    dataset_path: Path, tmp_path: Path
) -> None:
    import json

    settings = config(4, checkpoint_every=2, warmup_steps=2)
    tiny = TINY["morvs"]
    out = tmp_path / "run"
    train_offline("morvs", dataset_path, out, settings, architecture=tiny, progress=False)
    assert not (out / SNAPSHOTS_DIR).exists()
    # run.json as written before the option existed.
    run_path = out / TRAINING_DIR / RUN_FILE
    record = json.loads(run_path.read_text())
    del record["snapshot_every"]
    run_path.write_text(json.dumps(record))
    longer = replace(settings, steps=8, snapshot_every=2)
    train_offline(
        "morvs", dataset_path, out, longer, architecture=tiny, resume=True, progress=False
    )
    # The checkpoint it resumed from (step 4) is snapshotted too; step 2 is gone.
    assert snapshot_steps(out) == [4, 6, 8]
    # Another frequency on the next resume: it goes on, the earlier snapshots stay.
    train_offline(
        "morvs", dataset_path, out, replace(longer, steps=9, snapshot_every=5),
        architecture=tiny, resume=True, progress=False,
    )  # fmt: skip
    assert snapshot_steps(out) == [4, 6, 8, 9]
    straight = tmp_path / "straight"
    train_offline(
        "morvs", dataset_path, straight, replace(longer, steps=9), architecture=tiny,
        progress=False,
    )  # fmt: skip
    for step in (4, 6, 8, 9):
        assert checkpoint_files(snapshot_dir(out, step)) == checkpoint_files(
            snapshot_dir(straight, step)
        )


# --- refusals ------------------------------------------------------------------------------------


def test_bad_requests_raise_clear_errors(
    dataset_path: Path, trajectories: Trajectories, tmp_path: Path
) -> None:
    with pytest.raises(ParetoscopeError, match="kind: 'ppo'"):
        train_offline("ppo", dataset_path, tmp_path / "a", config(5))
    for steps in (0, -3):
        with pytest.raises(ParetoscopeError, match="steps: expected >= 1"):
            OfflineTrainingSettings(steps=steps)
        with pytest.raises(ParetoscopeError, match="snapshot-every: expected >= 1"):
            OfflineTrainingSettings(snapshot_every=steps)
    with pytest.raises(ParetoscopeError, match="dataset is for MO-Swimmer-v2, not MO-Ant-v2"):
        train_offline("morvs", dataset_path, tmp_path / "b", config(5), env_id="MO-Ant-v2")
    spec = get_spec(SWIMMER)
    empty = Trajectories(
        DatasetInfo.for_env(SWIMMER),
        np.zeros((0, spec.obs_dim)),
        np.zeros((0, spec.act_dim)),
        np.zeros((0, spec.n_obj)),
        np.zeros(0, dtype=bool),
        np.zeros((0, spec.n_obj)),
        np.array([0]),
        np.zeros((0, spec.obs_dim)),
    )
    with pytest.raises(ParetoscopeError, match="holds no trajectories"):
        train_offline("bc", empty, tmp_path / "c", config(5))
    one = Trajectories.from_trajectories([trajectories.trajectory(0)], trajectories.info)
    with pytest.raises(ParetoscopeError, match="at least 2 trajectories"):
        train_offline("morvs", one, tmp_path / "d", config(5))
    assert not (tmp_path / "d").exists()  # refused before anything was written
    if not torch.cuda.is_available():
        with pytest.raises(ParetoscopeError, match="CUDA is not available"):
            train_offline("bc", dataset_path, tmp_path / "g", config(5), device="cuda")
        assert not (tmp_path / "g").exists()
    with pytest.raises(ParetoscopeError, match="architecture"):
        train_offline("bc", dataset_path, tmp_path / "e", config(5), architecture={"width": 3})
    not_a_run = tmp_path / "f"
    not_a_run.mkdir()
    (not_a_run / "notes.txt").write_text("mine")
    with pytest.raises(ParetoscopeError, match="not an offline training run"):
        train_offline("bc", dataset_path, not_a_run, config(5))


def test_an_existing_run_is_only_continued_on_purpose_and_with_its_settings(
    dataset_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    tiny = TINY["morvs"]
    train_offline("morvs", dataset_path, out, config(5), architecture=tiny, progress=False)
    with pytest.raises(ParetoscopeError, match="pass --resume"):
        train_offline("morvs", dataset_path, out, config(5), architecture=tiny, progress=False)
    with pytest.raises(ParetoscopeError, match="seed: was 0, now 1"):
        train_offline(
            "morvs", dataset_path, out, config(9, seed=1), architecture=tiny, resume=True,
            progress=False,
        )  # fmt: skip
    with pytest.raises(ParetoscopeError, match="kind: was 'morvs', now 'bc'"):
        train_offline("bc", dataset_path, out, config(9), resume=True, progress=False)
    (out / TRAINING_DIR / STATE_FILE).write_bytes(b"not a torch file")
    with pytest.raises(ParetoscopeError, match="training state.*delete it to start the run again"):
        train_offline(
            "morvs", dataset_path, out, config(9), architecture=tiny, resume=True, progress=False
        )


# --- the command ---------------------------------------------------------------------------------


def test_cli_trains_refuses_to_overwrite_and_resumes(
    dataset_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    common = ["--data", str(dataset_path), "--out", str(out), "--hidden", "16", "--layers", "1"]
    assert main(["train", "morvs", *common, "--steps", "12", "--quiet"]) == 0
    assert "saved morvs agent" in capsys.readouterr().out
    agent = load(out)
    assert isinstance(agent, ConditionedAgent)
    assert agent.architecture.hidden_sizes == (16,)  # type: ignore[union-attr]
    assert main(["train", "morvs", *common, "--steps", "12", "--quiet"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(["train", "morvs", *common, "--steps", "20", "--quiet", "--resume"]) == 0
    assert load(out).training["steps"] == 20  # type: ignore[attr-defined]
    assert main(["train", "bc", *common, "--steps", "0"]) == 2
    assert "steps: expected >= 1" in capsys.readouterr().err
    snapshots = ["--data", str(dataset_path), "--out", str(tmp_path / "s"), "--hidden", "16"]
    for bad in ("0", "-2"):
        assert main(["train", "bc", *snapshots, "--steps", "4", "--snapshot-every", bad]) == 2
        assert "snapshot-every: expected >= 1, got " + bad in capsys.readouterr().err
    assert not (tmp_path / "s").exists()  # refused before anything was written
    assert (
        main(["train", "bc", *snapshots, "--steps", "5", "--snapshot-every", "2", "--quiet"]) == 0
    )
    assert snapshot_steps(tmp_path / "s") == [2, 4, 5]
    capsys.readouterr()
    assert main(["train", "modt", "--data", str(dataset_path), "--out", str(tmp_path / "m"),
                 "--env", "MO-HalfCheetah-v2", "--steps", "3", "--quiet"]) == 2  # fmt: skip
    assert "not MO-HalfCheetah-v2" in capsys.readouterr().err
    # The behaviour trainer is still wired next to the offline ones.
    args = build_parser().parse_args(["train", "behaviour", "--env", SWIMMER, "--out", "x"])
    assert args.func.__name__ == "run_behaviour"
    args = build_parser().parse_args(["train", "modt", "--data", "d", "--out", "o", "--heads", "2"])
    assert args.kind == "modt" and args.heads == 2 and args.func.__name__ == "run_offline"
    assert args.snapshot_every is None
