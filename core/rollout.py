"""Rollouts: an agent driven across a batch of (preference, target, seed) rows in lockstep.

The agent is called once per env step for the whole batch; rows whose episode has ended keep
their last observation and their actions are ignored, so per-row agent state stays aligned.
D4MORL tasks are stepped on `mujoco.MjData` directly (`paretoscope.steppers`), with exactly the
numbers `make_env(...).step` gives; a row is the same episode whatever batch it runs in, as
long as the agent's own arithmetic does not depend on the batch size.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

import gymnasium as gym
import mujoco
import numpy as np

from paretoscope.agents.base import Agent, AgentSpec
from paretoscope.discount import check_gamma
from paretoscope.envs import EnvSpec, get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.steppers import make_batch_stepper


@dataclass
class BatchRollout:
    """The outcome of one episode per batch row."""

    env_id: str
    preferences: np.ndarray  # (B, n_obj)
    targets: np.ndarray  # (B, n_obj) initial targets the agent was asked for
    seeds: np.ndarray  # (B,)
    returns: np.ndarray  # (B, n_obj) return per objective, discounted by `gamma`
    lengths: np.ndarray  # (B,) env steps taken
    terminated: np.ndarray  # (B,) ended by the env's own rule (fell, flipped), not the horizon
    diverged: np.ndarray  # (B,) stopped because the state, reward or action was not finite
    # Per row, when recorded: observations, actions, next_observations, raw_rewards, terminals.
    trajectories: list[dict[str, np.ndarray]] | None = None
    gamma: float = 1.0  # the discount of `returns` (1: undiscounted)


def check_preferences(preferences: np.ndarray, n_obj: int, name: str = "preferences") -> np.ndarray:
    """A (B, n_obj) float64 array of non-negative rows summing to 1, or a ParetoscopeError."""
    array = np.asarray(preferences, dtype=np.float64)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != n_obj:
        raise ParetoscopeError(f"{name}: expected shape (B, {n_obj}), got {np.shape(preferences)}")
    if not np.isfinite(array).all() or (array < 0).any():
        raise ParetoscopeError(f"{name}: entries must be finite and non-negative")
    sums = array.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ParetoscopeError(f"{name}: row {bad} sums to {sums[bad]:.6g}, expected 1")
    return array


def check_agent_fits(agent: Agent, env_id: str) -> None:
    """Refuse, before any step, an agent whose spaces or objective count differ from the env's."""
    spec = get_spec(env_id)
    agent_spec = agent.spec
    made_for = f"agent made for {agent_spec.env_id}"
    if agent_spec.n_obj != spec.n_obj:
        raise ParetoscopeError(
            f"{made_for} has n_obj={agent_spec.n_obj}, but {env_id} has n_obj={spec.n_obj}"
        )
    agent_actions = agent_action_space(agent_spec)
    if agent_actions != spec.describe_actions():
        raise ParetoscopeError(
            f"{made_for} acts in {agent_actions}, but {env_id}'s action space is "
            f"{spec.describe_actions()}"
        )
    agent_shape = tuple(getattr(agent_spec, "obs_shape", None) or (agent_spec.obs_dim,))
    if agent_shape != spec.obs_shape:
        raise ParetoscopeError(
            f"{made_for} reads observations of shape {agent_shape}, but {env_id}'s are "
            f"{spec.obs_shape}"
        )


def agent_action_space(agent_spec: AgentSpec) -> str:
    """An agent's action space in the words `EnvSpec.describe_actions` uses."""
    n_actions = getattr(agent_spec, "n_actions", None)
    return f"Discrete({n_actions})" if n_actions is not None else f"Box({agent_spec.act_dim},)"


def check_actions(actions: np.ndarray, spec: EnvSpec, batch_size: int) -> np.ndarray:
    """The agent's actions as an array of the env's action shape; a wrong shape or a discrete
    action out of range is the agent's bug and raises (a non-finite continuous one does not:
    that row stops, marked diverged)."""
    array = np.asarray(actions)
    expected = (batch_size, *spec.action_shape)
    if spec.discrete and array.shape == (batch_size, 1):
        array = array[:, 0]  # (B, 1) is a common way to write B discrete actions
    if array.shape != expected:
        raise ParetoscopeError(
            f"agent returned actions of shape {array.shape}, expected {expected}"
        )
    if not spec.discrete:
        return array.astype(np.float64)
    if not np.issubdtype(array.dtype, np.integer):
        rounded = np.rint(array) if np.isfinite(array).all() else array
        if not np.array_equal(rounded, array):
            raise ParetoscopeError(
                f"agent returned non-integer discrete actions for {spec.id} "
                f"({spec.describe_actions()}): {np.array2string(array, threshold=8)}"
            )
        array = rounded
    n_actions = int(spec.n_actions or 0)
    bad = (array < 0) | (array >= n_actions)
    if bad.any():
        raise ParetoscopeError(
            f"agent returned action {array[bad][0]:g} for {spec.id}, whose actions are "
            f"0 to {n_actions - 1} ({spec.describe_actions()})"
        )
    return array.astype(np.int64)


def check_horizon(horizon: int | None, spec: EnvSpec) -> int:
    """The episode length to run: the env's horizon by default, at most `spec.max_horizon`."""
    steps = spec.horizon if horizon is None else int(horizon)
    if not 1 <= steps <= spec.max_horizon:
        raise ParetoscopeError(
            f"horizon: expected 1 to {spec.max_horizon} steps for {spec.id}, got {steps}"
        )
    return steps


def seed_agent_rows(agent: Agent, seeds: np.ndarray) -> None:
    """Hand each row's episode seed to an agent that draws random numbers (`seed_rows`), so a
    row's actions depend on its seed only, not on the batch it runs in."""
    seed_rows = getattr(agent, "seed_rows", None)
    if callable(seed_rows):
        seed_rows(np.asarray(seeds, dtype=np.int64))


def rollout_batch(
    agent: Agent,
    env_id: str,
    preferences: np.ndarray,
    seeds: np.ndarray | list[int],
    targets: np.ndarray | None = None,
    horizon: int | None = None,
    record: bool = False,
    threads: int = 1,
    gamma: float = 1.0,
) -> BatchRollout:
    """Run one episode per row; `targets` default to the agent's initial target per preference.

    `threads` > 1 steps the physics of D4MORL rows on that many threads (same results).
    `gamma` discounts the returns: the reward of step t (from 0) counts gamma**t. Targets stay
    undiscounted: they are what the agent is asked to collect.
    """
    spec = get_spec(env_id)
    check_agent_fits(agent, env_id)
    preferences = check_preferences(preferences, spec.n_obj)
    batch_size = preferences.shape[0]
    seeds_array = np.asarray(seeds, dtype=np.int64).reshape(-1)
    if seeds_array.shape[0] != batch_size:
        raise ParetoscopeError(f"seeds: expected {batch_size} seeds, got {seeds_array.shape[0]}")
    if targets is None:
        initial_targets = np.asarray(agent.initial_target(preferences), dtype=np.float64)
    else:
        initial_targets = np.asarray(targets, dtype=np.float64)
        if initial_targets.shape == (spec.n_obj,):  # one target for every episode
            initial_targets = np.broadcast_to(initial_targets, (batch_size, spec.n_obj)).copy()
        if (
            initial_targets.shape != (batch_size, spec.n_obj)
            or not np.isfinite(initial_targets).all()
        ):
            raise ParetoscopeError(
                f"targets: expected finite values of shape ({batch_size}, {spec.n_obj}), "
                f"got shape {initial_targets.shape}: "
                f"{np.array2string(initial_targets, threshold=8)}"
            )
    horizon = check_horizon(horizon, spec)
    gamma = check_gamma(gamma)

    stepper = make_batch_stepper(spec, batch_size, threads)
    try:
        observations = stepper.reset(seeds_array)
        agent.reset(batch_size)
        seed_agent_rows(agent, seeds_array)
        remaining = initial_targets.copy()
        returns = np.zeros((batch_size, spec.n_obj))
        lengths = np.zeros(batch_size, dtype=np.int64)
        terminated = np.zeros(batch_size, dtype=bool)
        diverged = np.zeros(batch_size, dtype=bool)
        active = np.ones(batch_size, dtype=bool)
        buffers: list[dict[str, list[np.ndarray]]] = [
            {key: [] for key in _TRAJECTORY_KEYS} for _ in range(batch_size)
        ]

        for step_index in range(horizon):
            actions = check_actions(
                agent.act(observations, preferences, remaining), spec, batch_size
            )
            # A row whose action is not finite stops here, marked diverged; the others go on.
            bad_action = active & ~np.isfinite(actions.reshape(batch_size, -1)).all(axis=1)
            diverged |= bad_action
            active &= ~bad_action
            rows = np.flatnonzero(active)
            if len(rows) == 0:
                break
            step = stepper.step(actions, rows)
            ok = step.finite
            diverged[rows[~ok]] = True
            active[rows[~ok]] = False
            good_rows = rows[ok]
            rewards = step.rewards[ok].astype(np.float64)
            lengths[good_rows] += 1
            returns[good_rows] += rewards * gamma**step_index
            remaining[good_rows] -= rewards
            if record:
                for index, row in enumerate(rows):
                    if not ok[index]:
                        continue
                    buffer = buffers[row]
                    buffer["observations"].append(observations[row].copy())
                    buffer["actions"].append(step.actions[index])
                    buffer["next_observations"].append(step.observations[index])
                    buffer["raw_rewards"].append(step.rewards[index].astype(np.float64))
                    buffer["terminals"].append(np.asarray(step.terminated[index]))
            observations[good_rows] = step.observations[ok]
            ended = good_rows[step.terminated[ok]]
            terminated[ended] = True
            active[ended] = False
            if step.truncated is not None:  # the env's own time limit: over, but not "fell"
                active[good_rows[step.truncated[ok]]] = False
            if not active.any():
                break
        trajectories = None
        if record:
            trajectories = [_finish_trajectory(buffer, spec) for buffer in buffers]
    finally:
        stepper.close()

    return BatchRollout(
        env_id=env_id,
        preferences=preferences,
        targets=initial_targets,
        seeds=seeds_array,
        returns=returns,
        lengths=lengths,
        terminated=terminated,
        diverged=diverged,
        trajectories=trajectories,
        gamma=gamma,
    )


_TRAJECTORY_KEYS = ("observations", "actions", "next_observations", "raw_rewards", "terminals")


def _finish_trajectory(buffer: dict[str, list[np.ndarray]], spec: EnvSpec) -> dict[str, np.ndarray]:
    """Stack one row's steps; the last step is terminal, as in D4MORL (also at the horizon)."""
    widths = {
        "observations": spec.obs_shape,
        "actions": spec.action_shape,
        "next_observations": spec.obs_shape,
        "raw_rewards": (spec.n_obj,),
        "terminals": (),
    }
    trajectory: dict[str, np.ndarray] = {}
    for key, width in widths.items():
        dtype: type = bool if key == "terminals" else np.float64
        if key == "actions" and spec.discrete:
            dtype = np.int64
        steps = buffer[key]
        trajectory[key] = (
            np.stack(steps).astype(dtype) if steps else np.zeros((0, *width), dtype=dtype)
        )
    if len(trajectory["terminals"]):
        trajectory["terminals"][-1] = True
    return trajectory


@dataclass
class StepRecord:
    """One step of a streamed rollout, handed to the caller as soon as it is computed."""

    step: int  # 1-based index of this env step
    observation: np.ndarray  # the observation after the step
    action: np.ndarray  # the action applied (clipped to the bounds)
    reward: np.ndarray  # (n_obj,) this step's reward vector
    cumulative_return: np.ndarray  # (n_obj,) return so far
    remaining_target: np.ndarray  # (n_obj,) target minus return so far
    done: bool  # the episode ended at this step (any reason)
    terminated: bool  # ended by the env's own rule
    diverged: bool  # stopped because the action, state or reward was not finite
    # The live simulation after this step, for rendering: valid only until the next record.
    model: mujoco.MjModel | None = None
    data: mujoco.MjData | None = None
    # The live env, for an env that draws itself (`env.render()`): valid as long as `model`.
    env: gym.Env | None = None


def stream_rollout(
    agent: Agent,
    env_id: str,
    preference: np.ndarray,
    seed: int,
    target: np.ndarray | None = None,
    horizon: int | None = None,
    render: bool = False,
) -> Generator[StepRecord, None, None]:
    """One episode as a stream of `StepRecord`s; the same episode `rollout_batch` gives a row.

    `render`: the caller draws frames, so envs that draw themselves are made to (rgb_array).
    Returns are undiscounted here: a stream shows what the episode collects.
    """
    spec = get_spec(env_id)
    check_agent_fits(agent, env_id)
    preferences = check_preferences(preference, spec.n_obj)
    if preferences.shape[0] != 1:
        raise ParetoscopeError(f"preference: expected one vector, got {preferences.shape[0]}")
    if target is None:
        initial = np.asarray(agent.initial_target(preferences), dtype=np.float64).reshape(1, -1)
    else:
        initial = np.asarray(target, dtype=np.float64).reshape(1, -1)
        if initial.shape != (1, spec.n_obj) or not np.isfinite(initial).all():
            raise ParetoscopeError(
                f"target: expected {spec.n_obj} finite values, got "
                f"{np.array2string(initial.ravel(), threshold=8)}"
            )
    horizon = check_horizon(horizon, spec)
    stepper = make_batch_stepper(spec, 1, render=render)
    try:
        observations = stepper.reset(np.array([seed]))
        agent.reset(1)
        seed_agent_rows(agent, np.array([seed]))
        remaining = initial.copy()
        total = np.zeros(spec.n_obj)
        only_row = np.array([0])
        for step_index in range(1, horizon + 1):
            actions = check_actions(agent.act(observations, preferences, remaining), spec, 1)
            if not np.isfinite(actions).all():
                yield StepRecord(
                    step_index,
                    observations[0].copy(),
                    actions[0],
                    np.full(spec.n_obj, np.nan),
                    total.copy(),
                    remaining[0].copy(),
                    done=True,
                    terminated=False,
                    diverged=True,
                )
                return
            step = stepper.step(actions, only_row)
            reward = step.rewards[0].astype(np.float64)
            diverged = not bool(step.finite[0])
            if not diverged:
                total += reward
                remaining[0] -= reward
                observations[0] = step.observations[0]
            terminated = bool(step.terminated[0]) and not diverged
            truncated = step.truncated is not None and bool(step.truncated[0])
            done = diverged or terminated or truncated or step_index == horizon
            simulation = stepper.simulation(0)
            model, data = simulation if simulation is not None else (None, None)
            yield StepRecord(
                step_index,
                step.observations[0].copy(),
                step.actions[0].copy(),
                reward,
                total.copy(),
                remaining[0].copy(),
                done=done,
                terminated=terminated,
                diverged=diverged,
                model=model,
                data=data,
                env=stepper.live_env(0),
            )
            if done:
                return
    finally:
        stepper.close()
