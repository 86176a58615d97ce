"""Policy transfer between members.

Policy transfer (``transfer_every=K``, off by default): ARS on one preference can stall in a
local optimum that a neighbour escaped (a run-only member that never learns to hop while a
run-and-energy member runs far). With transfer, the members train in rounds of K iterations,
all of them round by round; at the end of each round but the last, every member is evaluated
and adopts the policy (matrix and observation statistics) of whichever member scores best on
ITS OWN scalarised objective w·R, if that is strictly better than its own score, then goes on
training on its own preference (PGMORL-like). The adopted member's evaluation is copied with it,
so the choice is the same however often a round's end is replayed (an interrupted run resumes to
the uninterrupted result). No transfer follows the last round: the final members are each
trained on their own preference.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paretoscope.agents.policy_set import FloatArray
from paretoscope.train.ars import EpisodePool, evaluate_policy
from paretoscope.train.behaviour.member import eval_seeds
from paretoscope.train.behaviour.resolved import BehaviourRun, Budget
from paretoscope.train.behaviour.rewards import MemberReward
from paretoscope.train.behaviour.state import MemberState, load_member, member_path, save_member


def round_budgets(run: BehaviourRun, budget: Budget, folder: Path) -> list[Budget]:
    """The budgets to train every member to, in turn: `budget` alone without transfer; with
    transfer, one per round end K, 2K, ... still ahead (a policy transfer follows each), then
    `budget` itself. A round end is behind when a saved member has trained past it (members
    only go past a round end once its transfer is done)."""
    every = run.transfer_every
    if every is None or budget.iterations is None:
        return [budget]
    reached = 0
    for index in range(len(run.preferences)):
        path = member_path(folder, index)
        if path.is_file():
            reached = max(reached, load_member(path).iteration)
    ends = range(every, budget.iterations, every)
    return [Budget(end, budget.seconds) for end in ends if end >= reached] + [budget]


def transfer_policies(
    folder: Path,
    run: BehaviourRun,
    states: list[MemberState],
    pool: EpisodePool | None = None,
    horizon: int | None = None,
) -> None:
    """Each member adopts the policy of the member that scores best on its own objective.

    Scores are w_i·R̄_j from the members' evaluations; a member keeps its own policy unless
    another one is strictly better. The adopted evaluation travels with the policy, so a
    replayed transfer sees the same candidates and decides the same way. A member with its own
    training reward scores every policy on that reward instead (its capped returns cannot be
    read from the evaluations): each is rolled out again on the member's evaluation seeds.
    """
    means = np.stack([state.mean_return for state in states])
    sources = []
    for state in states:
        reward = run.reward_of(state.index)
        if reward is None:
            scores = means @ state.preference
        else:
            if pool is None or horizon is None:
                raise ValueError("a member on its own reward needs a pool and a horizon to score")
            scores = _scores_on_own_reward(run, state.index, reward, states, pool, horizon)
        best = int(np.argmax(scores))
        sources.append(best if scores[best] > scores[state.index] else state.index)
    originals = [
        (state.matrix.copy(), state.stats, np.asarray(state.eval_returns).copy())
        for state in states
    ]
    for state, source in zip(states, sources, strict=True):
        if source == state.index:
            continue
        matrix, stats, eval_returns = originals[source]
        state.matrix, state.stats = matrix.copy(), stats
        state.eval_returns, state.evaluated_iteration = eval_returns.copy(), state.iteration
        state.transfers.append((state.iteration, source))
        save_member(member_path(folder, state.index), state)


def _scores_on_own_reward(
    run: BehaviourRun,
    index: int,
    reward: MemberReward,
    states: Sequence[MemberState],
    pool: EpisodePool,
    horizon: int,
) -> FloatArray:
    """Every member's policy scored on member `index`'s own reward: w'·mean Σ min(r_t, caps)."""
    seeds = eval_seeds(run.seed, index, run.eval_episodes)
    weights = np.asarray(reward.weights, dtype=np.float64)
    return np.array(
        [
            float(
                evaluate_policy(state.matrix, state.stats, seeds, pool, horizon, reward.cap_array())
                .mean(axis=0)
                .dot(weights)
            )
            for state in states
        ]
    )
