"""Training one member: resumed from its saved state (or started fresh, from the nearest
already trained member's policy with warm start), ARS iterations until the budget, then its
evaluation. Randomness is drawn from (seed, member, iteration)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm

from paretoscope.agents.policy_set import FloatArray
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.train.ars import EpisodePool, ObservationStats, ars_iteration, evaluate_policy
from paretoscope.train.behaviour.resolved import (
    BehaviourRun,
    Budget,
    survival_shift_for,
    training_weights,
)
from paretoscope.train.behaviour.state import (
    MemberState,
    load_member,
    member_path,
    save_member_state,
)

IterationCallback = Callable[[int, int, float], None]


# Progress bar of a time budget: whole seconds instead of tqdm's raw float counts.
_SECONDS_BAR = "{l_bar}{bar}| {n:.0f}/{total:.0f} s [{elapsed}<{remaining}{postfix}]"


def eval_seeds(seed: int, index: int, count: int) -> list[int]:
    """The episode seeds member `index` is evaluated on (the same at every evaluation)."""
    rng = np.random.default_rng([seed, 1_000_000 + index])
    return [int(value) for value in rng.integers(0, 2**31 - 1, size=count)]


def _format_preference(preference: FloatArray) -> str:
    return "(" + ", ".join(f"{value:.2f}" for value in preference) + ")"


def new_member(
    run: BehaviourRun, index: int, preference: FloatArray, trained: list[MemberState]
) -> MemberState:
    """A fresh member: zero policy, or a copy of the nearest trained member's policy."""
    env = get_spec(run.env_id)
    if run.warm_start and trained:
        distances = [float(np.linalg.norm(other.preference - preference)) for other in trained]
        source = trained[int(np.argmin(distances))]
        return MemberState(
            index=index,
            preference=preference.copy(),
            matrix=source.matrix.copy(),
            stats=source.stats,
            warm_started_from=source.index,
        )
    return MemberState(
        index=index,
        preference=preference.copy(),
        matrix=np.zeros((env.act_dim, env.obs_dim)),
        stats=ObservationStats.empty(env.obs_dim),
    )


def train_member(
    folder: Path,
    run: BehaviourRun,
    budget: Budget,
    index: int,
    preference: FloatArray,
    trained: list[MemberState],
    pool: EpisodePool,
    progress: bool,
    on_iteration: IterationCallback | None,
    snapshot_every: int | None,
) -> MemberState:
    """Train member `index` until the budget is reached (resuming its saved state), evaluate."""
    env = get_spec(run.env_id)
    horizon = run.horizon or env.horizon
    path = member_path(folder, index)
    if path.is_file():
        state = load_member(path)
        if state.index != index or not np.array_equal(state.preference, preference):
            raise ParetoscopeError(f"{path}: belongs to another member; delete it to retrain")
    else:
        state = new_member(run, index, preference, trained)
    reward = run.reward_of(index)
    weights = training_weights(run, index, preference)
    caps = None if reward is None else reward.cap_array()
    shift = survival_shift_for(run, weights)
    count = len(run.preferences)
    bar = tqdm(
        total=budget.iterations if budget.iterations is not None else budget.seconds,
        initial=state.iteration if budget.iterations is not None else state.elapsed_seconds,
        desc=f"member {index + 1}/{count} w={_format_preference(preference)}",
        unit="it" if budget.iterations is not None else "s",
        bar_format=None if budget.iterations is not None else _SECONDS_BAR,
        disable=not progress,
        dynamic_ncols=True,
    )
    try:
        while not budget.reached(state):
            started = time.perf_counter()
            rng = np.random.default_rng([run.seed, index, state.iteration])
            result = ars_iteration(
                state.matrix, state.stats, weights, rng, pool, run.ars, horizon, shift, caps
            )
            seconds = time.perf_counter() - started
            state.matrix, state.stats = result.matrix, result.stats
            state.iteration += 1
            state.env_steps += result.env_steps
            state.elapsed_seconds += seconds
            state.history.append(result.mean_return)
            save_member_state(folder, state, snapshot_every)
            bar.update(1 if budget.iterations is not None else seconds)
            bar.set_postfix(
                {
                    "return": f"{result.mean_return:.1f}",
                    "steps/s": f"{result.env_steps / seconds:.0f}",
                }
            )
            if on_iteration is not None:
                on_iteration(index, state.iteration, result.mean_return)
        if not state.evaluated:
            seeds = eval_seeds(run.seed, index, run.eval_episodes)
            state.eval_returns = evaluate_policy(state.matrix, state.stats, seeds, pool, horizon)
            state.evaluated_iteration = state.iteration
            save_member_state(folder, state, snapshot_every)
        mean_return = state.mean_return
        bar.set_postfix(
            {
                "eval": "(" + ", ".join(f"{value:.0f}" for value in mean_return) + ")",
                "w·R": f"{float(weights @ mean_return):.1f}",
            }
        )
    finally:
        bar.close()
    return state
