"""The driver: `train_behaviour` checks its arguments, creates or checks ``OUT/training/run.json``
(the settings that fix the outcome; a resumed run must use the same ones, the budget aside),
trains every member (round by round with transfer), then saves the policy set and its
snapshots."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paretoscope.agents.policy_set import PolicySetAgent, save_policy_set
from paretoscope.atomic import write_bytes_atomically
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics.dominance import check_margin
from paretoscope.train.ars import ARSConfig, EpisodePool
from paretoscope.train.behaviour.member import IterationCallback, train_member
from paretoscope.train.behaviour.preferences import check_member_preferences, default_preferences
from paretoscope.train.behaviour.rewards import MemberReward
from paretoscope.train.behaviour.saving import kept_members, policy_set, write_snapshots
from paretoscope.train.behaviour.settings import BehaviourSettings, Budget
from paretoscope.train.behaviour.state import TRAINING_DIR, MemberState
from paretoscope.train.behaviour.transfer import round_budgets, transfer_policies

RUN_FILE = "run.json"


def prepare_run(out_dir: Path, settings: BehaviourSettings) -> None:
    """Create OUT/training/run.json, or check that an existing one has the same settings."""
    training_dir = out_dir / TRAINING_DIR
    run_path = training_dir / RUN_FILE
    record = settings.record()
    if run_path.is_file():
        try:
            previous = json.loads(run_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ParetoscopeError(f"{run_path}: not valid JSON ({error})") from None
        if not isinstance(previous, dict):
            raise ParetoscopeError(f"{run_path}: expected a JSON object")
        keys = set(record) | set(previous)
        different = sorted(key for key in keys if previous.get(key) != record.get(key))
        if different:
            details = "; ".join(
                f"{key}: was {previous.get(key)!r}, now {record.get(key)!r}" for key in different
            )
            raise ParetoscopeError(
                f"{out_dir} holds a run with other settings ({details}); resume with the same "
                "settings or choose another output directory"
            )
        return
    training_dir.mkdir(parents=True, exist_ok=True)
    write_bytes_atomically(run_path, json.dumps(record, indent=2).encode("utf-8"))


def train_behaviour(
    env_id: str,
    out_dir: str | os.PathLike[str],
    preferences: int | Sequence[Sequence[float]] | np.ndarray,
    iterations: int | None = None,
    budget_seconds: float | None = None,
    workers: int | None = None,
    seed: int = 0,
    ars: ARSConfig | None = None,
    horizon: int | None = None,
    survival_shift: float | None = None,
    warm_start: bool = True,
    eval_episodes: int = 5,
    progress: bool = True,
    on_iteration: IterationCallback | None = None,
    transfer_every: int | None = None,
    survival_bonus: Sequence[float] | None = None,
    snapshot_every: int | None = None,
    member_rewards: Sequence[MemberReward | None] | None = None,
    drop_dominated: float | None = None,
) -> PolicySetAgent:
    """Train (or resume) one ARS policy per preference and save the policy set into `out_dir`.

    `preferences` is a member count K (spread by `default_preferences`) or the (K, n_obj)
    preferences themselves. Each member trains for `iterations` ARS iterations and/or
    `budget_seconds` seconds. `workers` processes run the ± episodes (default: all cores).
    `on_iteration(member, iteration, mean_return)` is called after each saved iteration.
    `transfer_every=K` trains in rounds of K iterations with policy transfer between members
    after each round but the last (see `paretoscope.train.behaviour.transfer`; needs an
    iteration budget).
    `survival_bonus` (one value per objective) replaces the env's alive bonus table: each
    member's shift is then w·survival_bonus (e.g. (1, 1, 0) on MO-Hopper-v3 keeps the energy
    objective's per-step 5, so energy-heavy members learn to stay up cheaply).
    `snapshot_every=N` also writes the policy set after every N iterations (and the final one)
    into ``out_dir/snapshots/step=N/`` (see `paretoscope.train.behaviour.saving`); it may change
    on a resume.
    `member_rewards` (one entry per member, None for a member that trains on its preference)
    gives members another training reward, weights·min(r_t, caps) (see
    `paretoscope.train.behaviour.rewards`).
    `drop_dominated` (a margin m in [0, 1)) leaves out of the saved set the members another
    member dominates on the evaluated mean returns by that margin (`non_dominated_by_margin`:
    m times each objective's range; 0: plain dominance). Their states stay in ``training/``;
    the set's ``training.dropped`` lists them. It is not a training setting: a finished run may
    be saved again with it.
    Returns the policy set also written to `out_dir` (config.json + weights.safetensors).
    """
    env = get_spec(env_id)
    if isinstance(preferences, (int, np.integer)) and not isinstance(preferences, bool):
        member_preferences = default_preferences(env.n_obj, int(preferences))
    else:
        member_preferences = check_member_preferences(preferences, env.n_obj)
    if horizon is not None and not 1 <= horizon <= env.horizon:
        raise ParetoscopeError(f"horizon must be between 1 and {env.horizon}, got {horizon}")
    if eval_episodes < 1:
        raise ParetoscopeError(f"eval_episodes must be at least 1, got {eval_episodes}")
    if seed < 0:
        raise ParetoscopeError(f"seed must be non-negative, got {seed}")
    if survival_shift is not None and not math.isfinite(survival_shift):
        raise ParetoscopeError(f"survival shift must be finite, got {survival_shift}")
    if transfer_every is not None:
        if transfer_every < 1:
            raise ParetoscopeError(f"transfer_every must be at least 1, got {transfer_every}")
        if iterations is None:
            raise ParetoscopeError("transfer_every needs an iteration budget (--iterations)")
    if snapshot_every is not None and snapshot_every < 1:
        raise ParetoscopeError(f"snapshot_every must be at least 1, got {snapshot_every}")
    bonus: tuple[float, ...] | None = None
    if survival_bonus is not None:
        if survival_shift is not None:
            raise ParetoscopeError("give a survival shift or a survival bonus, not both")
        bonus = tuple(float(value) for value in survival_bonus)
        if len(bonus) != env.n_obj or not all(math.isfinite(value) for value in bonus):
            raise ParetoscopeError(
                f"survival bonus: expected {env.n_obj} finite numbers (one per objective of "
                f"{env_id}), got {list(survival_bonus)}"
            )
    if drop_dominated is not None:
        check_margin(drop_dominated)
    rewards: tuple[MemberReward | None, ...] | None = None
    if member_rewards is not None:
        rewards = tuple(member_rewards)
        if len(rewards) != len(member_preferences):
            raise ParetoscopeError(
                f"member rewards: expected one entry per member ({len(member_preferences)}), "
                f"got {len(rewards)}"
            )
        for index, reward in enumerate(rewards):
            if reward is not None:
                reward.check(env.n_obj, f"member {index}'s reward")
        if all(reward is None for reward in rewards):
            rewards = None
    budget = Budget(iterations, budget_seconds)
    settings = BehaviourSettings(
        env_id=env_id,
        preferences=tuple(tuple(float(v) for v in row) for row in member_preferences),
        ars=ars or ARSConfig(),
        seed=int(seed),
        horizon=horizon,
        survival_shift=survival_shift,
        warm_start=warm_start,
        eval_episodes=int(eval_episodes),
        transfer_every=None if transfer_every is None else int(transfer_every),
        survival_bonus=bonus,
        member_rewards=rewards,
    )
    folder = Path(out_dir)
    prepare_run(folder, settings)

    states: list[MemberState] = []
    with EpisodePool(env_id, workers) as pool:
        for round_budget in round_budgets(settings, budget, folder):
            states = []
            for index, preference in enumerate(member_preferences):
                state = train_member(
                    folder,
                    settings,
                    round_budget,
                    index,
                    preference,
                    states,
                    pool,
                    progress,
                    on_iteration,
                    snapshot_every,
                )
                states.append(state)
            if round_budget is not budget:
                transfer_policies(folder, settings, states, pool, settings.horizon or env.horizon)

    kept = kept_members(states, drop_dominated)
    agent = policy_set(settings, kept)
    kept_indices = {state.index for state in kept}
    if len(kept) < len(states):
        agent.training["dropped"] = [
            {
                "index": state.index,
                "preference": [float(value) for value in state.preference],
                "mean_return": [float(value) for value in state.mean_return],
            }
            for state in states
            if state.index not in kept_indices
        ]
    save_policy_set(agent, folder)
    if snapshot_every is not None:
        write_snapshots(folder, settings, agent, states)
    return agent
