"""Behaviour policies: one ARS linear policy per preference, saved together as a policy set.

`train_behaviour(env_id, out_dir, settings)` trains the members one after another on the
scalarised reward w·r (`paretoscope.train.ars`), with a `BehaviourTrainingSettings`
(`paretoscope.settings`), then writes a `policy_set` checkpoint into the output directory, with
each member's preference and its evaluated mean return vector. Everything it needs to resume
lives under ``OUT/training/``:

- ``run.json``: the settings that fix the outcome (env, preferences, seed, ARS
  hyper-parameters, horizon, shift, warm start, evaluation episodes); a resumed run must use
  the same ones. The budget is not among them: it may grow from one run to the next.
- ``member-NNN.safetensors``: a member's matrix and observation statistics, with its
  iteration count, env steps, time spent, return history and evaluation in the header
  metadata; rewritten atomically after every iteration.
- ``snapshots/member-NNN-iteration-N.safetensors`` (with ``snapshot_every``): the same, as the
  member was after iteration N, for every multiple N of ``snapshot_every``.

A rerun skips members that reached the budget and continues the others from their last saved
iteration. Randomness is drawn from (seed, member, iteration), so an interrupted and resumed
run ends exactly where an uninterrupted one would (with an iteration budget; a time budget
depends on the machine's speed), whatever the number of workers.

A new member starts from the nearest already trained member (warm start) unless asked not to.

One module per part: the members' preferences (`preferences`), their training rewards and the
survival shift (`rewards`), the run's settings resolved into what fixes its outcome and its
budget (`resolved`), a member's state and its files (`state`), training one member (`member`),
policy transfer between members (`transfer`), the saved set and its snapshots (`saving`) and
the driver (`run`). Their public names are all importable from here.
"""

from paretoscope.train.behaviour.member import IterationCallback
from paretoscope.train.behaviour.preferences import check_member_preferences, default_preferences
from paretoscope.train.behaviour.resolved import (
    DEFAULT_ITERATIONS,
    METHOD,
    RUN_FORMAT,
    RUN_FORMAT_VERSION,
    BehaviourRun,
    Budget,
    behaviour_run,
    member_budget,
)
from paretoscope.train.behaviour.rewards import (
    SURVIVAL_BONUS,
    MemberReward,
    auto_survival_shift,
    member_rewards,
    rewards_by_member,
)
from paretoscope.train.behaviour.run import RUN_FILE, train_behaviour
from paretoscope.train.behaviour.saving import kept_members
from paretoscope.train.behaviour.state import (
    MEMBER_SNAPSHOTS_DIR,
    TRAINING_DIR,
    MemberState,
    load_member,
    member_path,
    member_snapshot_path,
    save_member,
)

__all__ = [
    "DEFAULT_ITERATIONS",
    "MEMBER_SNAPSHOTS_DIR",
    "METHOD",
    "RUN_FILE",
    "RUN_FORMAT",
    "RUN_FORMAT_VERSION",
    "SURVIVAL_BONUS",
    "TRAINING_DIR",
    "BehaviourRun",
    "Budget",
    "IterationCallback",
    "MemberReward",
    "MemberState",
    "auto_survival_shift",
    "behaviour_run",
    "check_member_preferences",
    "default_preferences",
    "kept_members",
    "load_member",
    "member_budget",
    "member_path",
    "member_rewards",
    "member_snapshot_path",
    "rewards_by_member",
    "save_member",
    "train_behaviour",
]
