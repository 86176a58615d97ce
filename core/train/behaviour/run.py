"""The driver: `train_behaviour` resolves and checks its settings, creates or checks
``OUT/training/run.json`` (the settings that fix the outcome; a resumed run must use the same
ones, the budget aside), trains every member (round by round with transfer), then saves the
policy set and its snapshots."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from paretoscope.agents.policy_set import PolicySetAgent, save_policy_set
from paretoscope.atomic import write_bytes_atomically
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.folders import make_folder
from paretoscope.metrics.dominance import check_margin
from paretoscope.settings import BehaviourTrainingSettings
from paretoscope.text import changes
from paretoscope.train.ars import EpisodePool
from paretoscope.train.behaviour.member import IterationCallback, train_member
from paretoscope.train.behaviour.resolved import BehaviourRun, behaviour_run, member_budget
from paretoscope.train.behaviour.saving import kept_members, policy_set, write_snapshots
from paretoscope.train.behaviour.state import TRAINING_DIR, MemberState
from paretoscope.train.behaviour.transfer import round_budgets, transfer_policies

RUN_FILE = "run.json"


def prepare_run(out_dir: Path, run: BehaviourRun) -> None:
    """Create OUT/training/run.json, or check that an existing one has the same run."""
    training_dir = out_dir / TRAINING_DIR
    run_path = training_dir / RUN_FILE
    record = run.record()
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
            details = changes(previous, record, different)
            raise ParetoscopeError(
                f"{out_dir} holds a run with other settings ({details}); resume with the same "
                "settings or choose another output directory"
            )
        return
    make_folder(training_dir)
    write_bytes_atomically(run_path, json.dumps(record, indent=2).encode("utf-8"))


def train_behaviour(
    env_id: str,
    out_dir: str | os.PathLike[str],
    settings: BehaviourTrainingSettings | None = None,
    progress: bool = True,
    on_iteration: IterationCallback | None = None,
) -> PolicySetAgent:
    """Train (or resume) one ARS policy per preference and save the policy set into `out_dir`.

    `settings` (`paretoscope.settings.BehaviourTrainingSettings`; its defaults without it):
    the members are ``members`` preferences spread by `default_preferences`, or the given
    ``preferences``; each trains for ``iterations`` ARS iterations and/or ``budget_seconds``
    seconds (300 iterations when neither is given), its ± episodes on ``workers`` processes
    (default: all cores). ``transfer_every=K`` trains in rounds of K iterations with policy
    transfer between members after each round but the last (see
    `paretoscope.train.behaviour.transfer`; needs an iteration budget). ``survival_bonus`` (one
    value per objective) replaces the env's alive bonus table: each member's shift is then
    w·survival_bonus (e.g. (1, 1, 0) on MO-Hopper-v3 keeps the energy objective's per-step 5,
    so energy-heavy members learn to stay up cheaply). ``snapshot_every=N`` also writes the
    policy set after every N iterations (and the final one) into ``out_dir/snapshots/step=N/``
    (see `paretoscope.train.behaviour.saving`); it may change on a resume. ``train_on`` gives
    members (named by their preference) another training reward, weights·min(r_t, caps) (see
    `paretoscope.train.behaviour.rewards`). ``drop_dominated`` (a margin m in [0, 1)) leaves
    out of the saved set the members another member dominates on the evaluated mean returns by
    that margin (`non_dominated_by_margin`: m times each objective's range; 0: plain
    dominance). Their states stay in ``training/``; the set's ``training.dropped`` lists them.
    It is not a training setting: a finished run may be saved again with it.
    `on_iteration(member, iteration, mean_return)` is called after each saved iteration.
    Returns the policy set also written to `out_dir` (config.json + weights.safetensors).
    """
    settings = settings or BehaviourTrainingSettings()
    run = behaviour_run(env_id, settings)
    budget = member_budget(settings)
    if run.transfer_every is not None:
        if run.transfer_every < 1:
            raise ParetoscopeError(f"transfer_every must be at least 1, got {run.transfer_every}")
        if budget.iterations is None:
            raise ParetoscopeError("transfer_every needs an iteration budget (--iterations)")
    snapshot_every = settings.snapshot_every
    if snapshot_every is not None and snapshot_every < 1:
        raise ParetoscopeError(f"snapshot_every must be at least 1, got {snapshot_every}")
    if settings.drop_dominated is not None:
        check_margin(settings.drop_dominated)
    folder = Path(out_dir)
    prepare_run(folder, run)

    member_preferences = np.asarray(run.preferences, dtype=np.float64)
    states: list[MemberState] = []
    with EpisodePool(env_id, settings.workers) as pool:
        for round_budget in round_budgets(run, budget, folder):
            states = []
            for index, preference in enumerate(member_preferences):
                state = train_member(
                    folder,
                    run,
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
                horizon = run.horizon or get_spec(env_id).horizon
                transfer_policies(folder, run, states, pool, horizon)

    kept = kept_members(states, settings.drop_dominated)
    agent = policy_set(run, kept)
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
        write_snapshots(folder, run, agent, states)
    return agent
