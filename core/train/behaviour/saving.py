"""What a run saves: the members it keeps as a `policy_set` checkpoint, and its snapshots.

Snapshots (``snapshot_every=N``, off by default): at the end, every iteration that all members
have a saved copy of becomes a `policy_set` checkpoint in ``OUT/snapshots/step=N/``
(`paretoscope.runs.layout`), the members as they were after their N-th iteration (with their mean
returns where all were evaluated then, else none); the final set is also the snapshot at its
iteration count when all members share it. With transfer, a member at a round end is the one
before the transfer: the transfer belongs to the next round, as a run's last round has none.
So at a round end, and at every N when members start from zero (no warm start), the snapshot
is the set a run of exactly N iterations saves; a plain run with warm start differs from a
shorter one from its second member on (each starts from the previous member's final policy).
Existing snapshots are never rewritten. The frequency is not a setting of run.json: a resume
may change it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from paretoscope.agents.policy_set import PolicySetAgent
from paretoscope.envs import get_spec
from paretoscope.metrics import non_dominated_by_margin
from paretoscope.runs.layout import snapshot_dir
from paretoscope.train.behaviour.resolved import (
    METHOD,
    BehaviourRun,
    survival_shift_for,
    training_weights,
)
from paretoscope.train.behaviour.state import (
    MEMBER_SNAPSHOT_NAME,
    MEMBER_SNAPSHOTS_DIR,
    TRAINING_DIR,
    MemberState,
    load_member,
)
from paretoscope.train.snapshots import write_snapshot


def kept_members(states: list[MemberState], drop_dominated: float | None) -> list[MemberState]:
    """The members the saved set holds: all (None), or those no other member dominates by the
    margin `drop_dominated` on its evaluated mean return (ties all kept)."""
    if drop_dominated is None:
        return states
    means = np.stack([state.mean_return for state in states])
    mask = non_dominated_by_margin(means, drop_dominated)
    return [state for state, keep in zip(states, mask, strict=True) if keep]


def policy_set(run: BehaviourRun, states: Sequence[MemberState]) -> PolicySetAgent:
    """The members as a policy set, with their mean returns when all are evaluated as they are
    (always at the end of a run; at a snapshot, only where the members were evaluated)."""
    env = get_spec(run.env_id)
    evaluated = all(state.evaluated for state in states)
    return PolicySetAgent(
        run.env_id,
        np.stack([state.preference for state in states]),
        np.stack([state.matrix for state in states]),
        np.stack([state.stats.normaliser()[0] for state in states]),
        np.stack([state.stats.normaliser()[1] for state in states]),
        np.stack([state.mean_return for state in states]) if evaluated else None,
        training={
            "method": METHOD,
            **asdict(run.ars),
            "seed": run.seed,
            "horizon": run.horizon or env.horizon,
            "eval_episodes": run.eval_episodes,
            "warm_start": run.warm_start,
            "iterations": [state.iteration for state in states],
            "env_steps": [state.env_steps for state in states],
            "survival_shift": [
                survival_shift_for(run, training_weights(run, state.index, state.preference))
                for state in states
            ],
            **(
                {}
                if run.transfer_every is None
                else {
                    "transfer_every": run.transfer_every,
                    "transfers": [[list(pair) for pair in state.transfers] for state in states],
                }
            ),
            **(
                {}
                if run.member_rewards is None
                else {"member_rewards": run.record()["member_rewards"]}
            ),
        },
    )


def write_snapshots(
    folder: Path, run: BehaviourRun, final: PolicySetAgent, states: list[MemberState]
) -> None:
    """Publish, in order, every iteration that all members have a saved copy of, then the
    final set at its iteration count when the members share one; existing snapshots stay."""
    copies: dict[int, dict[int, Path]] = {}
    for path in (folder / TRAINING_DIR / MEMBER_SNAPSHOTS_DIR).glob("member-*.safetensors"):
        match = MEMBER_SNAPSHOT_NAME.fullmatch(path.name)
        if match is not None:
            copies.setdefault(int(match[2]), {})[int(match[1])] = path
    scratch = folder / TRAINING_DIR
    for iteration, paths in sorted(copies.items()):
        if (
            sorted(paths) == list(range(len(states)))
            and not snapshot_dir(folder, iteration).exists()
        ):
            members = [load_member(paths[index]) for index in range(len(states))]
            write_snapshot(folder, iteration, policy_set(run, members), scratch)
    final_iterations = {state.iteration for state in states}
    if len(final_iterations) == 1 and (last := final_iterations.pop()) > 0:
        write_snapshot(folder, last, final, scratch)
