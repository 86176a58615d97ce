"""From a dataset to the batches the offline trainers learn from, built exactly as agents act.

`TrainingData` lays a `Trajectories` dataset out for sampling (its columns stay memory-mapped
where they were) and adds one derived column: the return still to collect from every step to
the end of its trajectory, per objective. The batch builders turn sampled dataset steps into
the network inputs of each kind with the agent's own helpers (`normalize_states`,
`encode_returns`, `assemble_context`), so a network sees in training exactly the inputs it
gets from `act` at the same step of the same episode (a test replays episodes to check this):

- MORvS: concat(state, goal) at step t, goal = encoded return-to-go / (horizon − t);
- BC: the states of steps t − K + 1 … t, zero-padded on the left before the episode starts;
- MODT: K consecutive steps from t on (return, state, action, timestep), left-padded with
  zeros and masked where the trajectory ends first, as in Decision Transformer training.

Sampling (PEDA / Decision Transformer): a trajectory with probability proportional to its
length, then a step uniformly within it. That is the same as one step uniformly among all
steps of the dataset, which is how `sample_steps` draws it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from paretoscope.agents.conditioned import (
    BCAgent,
    ConditionedAgent,
    MODTAgent,
    MORvSAgent,
    assemble_context,
)
from paretoscope.data.trajectories import Trajectories
from paretoscope.errors import ParetoscopeError


@dataclass(frozen=True)
class TrainingData:
    """Dataset columns for sampling, plus the per-step return still to collect."""

    observations: np.ndarray  # (S, obs_dim) raw observations, possibly memory-mapped
    actions: np.ndarray  # (S, act_dim) env actions
    returns_to_go: np.ndarray  # (S, n_obj) float64: rewards of this step and all later ones
    preferences: np.ndarray  # (N, n_obj) one per trajectory
    offsets: np.ndarray  # (N + 1,) trajectory i spans offsets[i]:offsets[i + 1]

    @classmethod
    def from_trajectories(cls, trajectories: Trajectories) -> TrainingData:
        """Lay out `trajectories` for sampling; computes the returns-to-go (one pass)."""
        if trajectories.n_trajectories == 0:
            raise ParetoscopeError(f"dataset {trajectories.info.named}: it holds no trajectories")
        offsets = np.asarray(trajectories.offsets, dtype=np.int64)
        return cls(
            observations=trajectories.observations,
            actions=trajectories.actions,
            returns_to_go=returns_to_go(trajectories.raw_rewards, offsets),
            preferences=np.asarray(trajectories.preferences, dtype=np.float64),
            offsets=offsets,
        )

    @property
    def n_steps(self) -> int:
        return int(self.offsets[-1])

    @property
    def n_trajectories(self) -> int:
        return len(self.offsets) - 1

    def trajectory_of(self, steps: np.ndarray) -> np.ndarray:
        """Index of the trajectory that holds each dataset step."""
        return np.searchsorted(self.offsets, steps, side="right") - 1


def returns_to_go(raw_rewards: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(S, n_obj) float64: per step, the sum of its trajectory's rewards from that step on."""
    result = np.empty(raw_rewards.shape, dtype=np.float64)
    for start, stop in zip(offsets[:-1], offsets[1:], strict=True):
        rewards = np.asarray(raw_rewards[start:stop], dtype=np.float64)
        result[start:stop] = np.cumsum(rewards[::-1], axis=0)[::-1]
    return result


def observation_statistics(
    observations: np.ndarray, chunk_rows: int = 1 << 18, min_std: float = 1e-6
) -> tuple[np.ndarray, np.ndarray]:
    """Per-dimension mean and std of (S, obs_dim) observations, read in chunks.

    Chunks keep memory flat on memory-mapped datasets of millions of steps. A dimension whose
    std is below `min_std` (constant in the data) gets std 1: it is centred, not blown up.
    """
    rows = observations.shape[0]
    if rows == 0:
        raise ParetoscopeError("observation statistics: the dataset has no steps")
    total = np.zeros(observations.shape[1])
    for start in range(0, rows, chunk_rows):
        total += np.asarray(observations[start : start + chunk_rows], dtype=np.float64).sum(0)
    mean = total / rows
    squares = np.zeros_like(mean)
    for start in range(0, rows, chunk_rows):
        block = np.asarray(observations[start : start + chunk_rows], dtype=np.float64) - mean
        squares += (block * block).sum(0)
    std = np.sqrt(squares / rows)
    std[std < min_std] = 1.0
    return mean, std


def sample_steps(data: TrainingData, rng: np.random.Generator, batch_size: int) -> np.ndarray:
    """`batch_size` dataset steps, uniform over all steps (= length-weighted trajectory, then a
    uniform step within it)."""
    return rng.integers(0, data.n_steps, size=batch_size)


# --- batches -------------------------------------------------------------------------------------


@dataclass
class Batch:
    """What one training step consumes: `network(*inputs)` is compared with `targets`."""

    inputs: tuple[torch.Tensor, ...]
    # Dataset actions divided by the action bound, in [-1, 1]: (B, act_dim), or (B, K, act_dim).
    targets: torch.Tensor
    # (B, K) with 1 where a sequence position is a real step; None when every row counts.
    mask: torch.Tensor | None = None


def normalized_actions(agent: ConditionedAgent, actions: np.ndarray) -> np.ndarray:
    """Env actions as the network's tanh output should give them: action / bound, clipped."""
    return np.clip(np.asarray(actions, dtype=np.float64) / agent.action_bound, -1.0, 1.0)


def morvs_batch(agent: ConditionedAgent, data: TrainingData, steps: np.ndarray) -> Batch:
    """MORvS inputs at `steps`: concat(state, encoded return-to-go / steps left)."""
    assert isinstance(agent, MORvSAgent)
    trajectory = data.trajectory_of(steps)
    timestep = steps - data.offsets[trajectory]
    preferences = data.preferences[trajectory]
    tensor = _tensor_maker(agent)
    returns = agent.encode_returns(data.returns_to_go[steps], preferences)
    steps_left = np.maximum(agent.architecture.horizon - timestep, 1)
    goal = tensor(returns) / tensor(steps_left)[:, None]
    states = agent.normalize_states(tensor(data.observations[steps]), tensor(preferences))
    return Batch(
        inputs=(torch.cat((states, goal), dim=-1),),
        targets=tensor(normalized_actions(agent, data.actions[steps])),
    )


def bc_batch(agent: ConditionedAgent, data: TrainingData, steps: np.ndarray) -> Batch:
    """BC inputs at `steps`: the last K states up to each step, zero-padded before the start."""
    assert isinstance(agent, BCAgent)
    length = agent.architecture.context_length
    trajectory = data.trajectory_of(steps)
    start = data.offsets[trajectory]
    window = steps[:, None] - (length - 1) + np.arange(length)[None, :]  # (B, K) oldest first
    real = window >= start[:, None]
    window = np.where(real, window, steps[:, None])
    preferences = np.repeat(data.preferences[trajectory][:, None, :], length, axis=1)
    tensor = _tensor_maker(agent)
    states = agent.normalize_states(tensor(data.observations[window]), tensor(preferences))
    states = states * tensor(real)[..., None]
    return Batch(
        inputs=(states.reshape(len(steps), -1),),
        targets=tensor(normalized_actions(agent, data.actions[steps])),
    )


def modt_batch(agent: ConditionedAgent, data: TrainingData, steps: np.ndarray) -> Batch:
    """MODT inputs: K = train_context_length steps from each of `steps` on, within its
    trajectory; a window cut short by the trajectory's end is left-padded and masked."""
    assert isinstance(agent, MODTAgent)
    length = agent.architecture.train_context_length
    trajectory = data.trajectory_of(steps)
    start, stop = data.offsets[trajectory], data.offsets[trajectory + 1]
    padding = length - np.minimum(stop - steps, length)  # (B,)
    position = np.arange(length)[None, :]
    real = position >= padding[:, None]  # (B, K)
    window = np.where(real, steps[:, None] + position - padding[:, None], steps[:, None])
    timesteps = np.minimum(window - start[:, None], agent.network.max_timestep - 1)
    preferences = np.repeat(data.preferences[trajectory][:, None, :], length, axis=1)

    tensor = _tensor_maker(agent)
    mask = tensor(real)
    preference_tensor = tensor(preferences) * mask[..., None]
    states = agent.normalize_states(tensor(data.observations[window]), tensor(preferences))
    returns = tensor(agent.encode_returns(data.returns_to_go[window], preferences))
    actions = tensor(normalized_actions(agent, data.actions[window])) * mask[..., None]
    timestep_tensor = torch.as_tensor(np.where(real, timesteps, 0), device=agent.device)
    # Zeros at padded positions first, then the agent's own assembly appends the preference
    # where its conditioning says so: the same layout as `act` builds for a short history.
    states, actions_in, returns_in, timestep_tensor, _ = assemble_context(
        states * mask[..., None],
        actions,
        returns * mask[..., None],
        preference_tensor,
        timestep_tensor,
        agent.spec.conditioning,
        length,
    )
    return Batch(
        inputs=(states, actions_in, returns_in, timestep_tensor, mask),
        targets=actions,
        mask=mask,
    )


BatchBuilder = Callable[[ConditionedAgent, TrainingData, np.ndarray], Batch]

BATCH_BUILDERS: dict[str, BatchBuilder] = {
    "morvs": morvs_batch,
    "bc": bc_batch,
    "modt": modt_batch,
}


def action_loss(network: torch.nn.Module, batch: Batch) -> torch.Tensor:
    """Mean squared error between predicted and dataset actions (PEDA's only loss), over the
    real steps of the batch."""
    squared = (network(*batch.inputs) - batch.targets) ** 2
    if batch.mask is None:
        return squared.mean()
    weights = batch.mask[..., None].expand_as(squared)
    return (squared * weights).sum() / weights.sum()


def _tensor_maker(agent: ConditionedAgent) -> Callable[[np.ndarray], torch.Tensor]:
    def tensor(array: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(np.asarray(array), dtype=torch.float32, device=agent.device)

    return tensor
