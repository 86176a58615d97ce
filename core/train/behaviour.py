"""Behaviour policies: one ARS linear policy per preference, saved together as a policy set.

`train_behaviour(env_id, out_dir, settings)` trains the members one after another on the
scalarised reward w·r (`paretoscope.train.ars`), with a `BehaviourTrainingSettings`
(`paretoscope.settings`), then writes a `policy_set` checkpoint into the output directory, with
each member's preference and its evaluated mean return vector. Everything it needs to resume lives
under ``OUT/training/``:

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
Member rewards (``train_on``, off by default; run.json keeps them per member as
``member_rewards``): a member may train on another reward than
its own preference's w·r_t, namely w'·min(r_t, c) with its own weights w' and per-objective caps
c (None: no cap). Capping the run reward at a target speed asks for that speed at the least cost
of the other objectives: that reaches the points of a non-convex part of the front, which no
linear scalarisation has as its optimum (HalfCheetah between standing still and running at full
speed). The member keeps its preference as its place in the set (the preference that picks it);
evaluation reports its true, uncapped returns. In a transfer its capped score cannot be read
from the evaluations, so every member's policy is rolled out again on its evaluation seeds
with its caps and scored on its weights; it adopts the best as the others do.

On tasks whose episode ends when the robot falls, a per-step survival shift (the scalarised
constant that every objective pays just for staying alive) is subtracted from the training
reward only, so that standing still is no longer a local optimum (Mania et al. 2018).

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

import json
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from paretoscope.agents.policy_set import FloatArray, PolicySetAgent, save_policy_set
from paretoscope.atomic import write_bytes_atomically
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import non_dominated_by_margin, preference_grid
from paretoscope.metrics.dominance import check_margin
from paretoscope.runs.layout import snapshot_dir
from paretoscope.settings import ARSConfig, BehaviourTrainingSettings
from paretoscope.train.ars import (
    EpisodePool,
    ObservationStats,
    ars_iteration,
    evaluate_policy,
)
from paretoscope.train.snapshots import write_snapshot

RUN_FORMAT = "paretoscope-behaviour-run"
RUN_FORMAT_VERSION = 1
TRAINING_DIR = "training"
RUN_FILE = "run.json"
METHOD = "ars-v2t"
# OUT/training/snapshots/: the members' states at the snapshot iterations.
MEMBER_SNAPSHOTS_DIR = "snapshots"
_MEMBER_SNAPSHOT = re.compile(r"member-(\d+)-iteration-(\d+)\.safetensors")

# Per-step constant each objective pays for staying alive, on tasks that end when the robot
# falls (docs/reference.md, D4MORL environments and MO-Gymnasium). HalfCheetah and Swimmer have
# no such bonus to remove.
SURVIVAL_BONUS: dict[str, tuple[float, ...]] = {
    "MO-Hopper-v2": (1.0, 1.0),
    "MO-Hopper-v3": (1.0, 1.0, 5.0),
    "MO-Walker2d-v2": (1.0, 5.0),
    "MO-Ant-v2": (1.0, 1.0),
    "mo-hopper-v5": (1.0, 1.0, 1.0),
    "mo-hopper-2obj-v5": (1.0, 1.0),
    "mo-walker2d-v5": (1.0, 1.0),
    "mo-ant-v5": (1.0, 1.0, 1.0),
    "mo-ant-2obj-v5": (1.0, 1.0),
}

IterationCallback = Callable[[int, int, float], None]

# Iterations per member when the settings give no budget.
DEFAULT_ITERATIONS = 300

# Progress bar of a time budget: whole seconds instead of tqdm's raw float counts.
_SECONDS_BAR = "{l_bar}{bar}| {n:.0f}/{total:.0f} s [{elapsed}<{remaining}{postfix}]"


# --- preferences -----------------------------------------------------------------------------


def default_preferences(n_obj: int, count: int) -> FloatArray:
    """`count` preferences spread evenly over the simplex, first-objective-heavy first.

    Two objectives: w₀ = 1, …, 0 evenly spaced. More: the coarsest `preference_grid` with at
    least `count` points, thinned by farthest-point selection from the corners when it has
    more. One preference: the centre (1/n, …, 1/n).
    """
    if count < 1:
        raise ParetoscopeError(f"preferences: need at least 1 member, got {count}")
    if n_obj < 2:
        raise ParetoscopeError(f"preferences: need at least 2 objectives, got {n_obj}")
    if count == 1:
        return np.full((1, n_obj), 1.0 / n_obj)
    if n_obj == 2:
        first = np.linspace(1.0, 0.0, count)
        return np.stack([first, 1.0 - first], axis=1)
    granularity = 1
    while math.comb(granularity + n_obj - 1, n_obj - 1) < count:
        granularity += 1
    grid = preference_grid(n_obj, granularity)
    if grid.shape[0] > count:
        grid = _farthest_points(grid, count)
    order = np.lexsort(grid.T[::-1])[::-1]  # descending in w₀, then w₁, ...
    return grid[order]


def _farthest_points(points: FloatArray, count: int) -> FloatArray:
    """`count` rows of `points`: the corners first, then each time the row farthest from all
    chosen so far (ties to the earlier row)."""
    corners = [int(i) for i in np.flatnonzero(np.isclose(points.max(axis=1), 1.0))]
    chosen = corners[:count]
    distance = np.full(points.shape[0], np.inf)
    for index in chosen:
        distance = np.minimum(distance, np.linalg.norm(points - points[index], axis=1))
    while len(chosen) < count:
        index = int(np.argmax(distance))
        chosen.append(index)
        distance = np.minimum(distance, np.linalg.norm(points - points[index], axis=1))
    return points[sorted(chosen)]


def check_member_preferences(preferences: object, n_obj: int) -> FloatArray:
    """A (K, n_obj) array of distinct non-negative rows summing to 1, or a ParetoscopeError."""
    try:
        array = np.array(preferences, dtype=np.float64, ndmin=2)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"preferences: expected numbers of shape (K, {n_obj})") from None
    if array.ndim != 2 or array.shape[1] != n_obj or array.shape[0] == 0:
        raise ParetoscopeError(f"preferences: expected shape (K, {n_obj}), got {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any():
        raise ParetoscopeError("preferences: entries must be finite and non-negative")
    sums = array.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ParetoscopeError(f"preferences: row {bad} sums to {sums[bad]:.6g}, expected 1")
    if len({tuple(row) for row in array.tolist()}) != array.shape[0]:
        raise ParetoscopeError("preferences: every member needs a different preference")
    return array


def auto_survival_shift(env_id: str, preference: FloatArray) -> float:
    """The automatic training-only shift w·bonus for `env_id` (0 where it has no bonus)."""
    bonus = SURVIVAL_BONUS.get(env_id)
    return 0.0 if bonus is None else float(np.dot(preference, bonus))


# --- settings, budget and member state -------------------------------------------------------


@dataclass(frozen=True)
class MemberReward:
    """A member's training reward when it is not its preference's: weights·min(r_t, caps)."""

    weights: tuple[float, ...]
    caps: tuple[float | None, ...]  # per objective; None: no cap

    def cap_array(self) -> FloatArray:
        return np.array([np.inf if cap is None else cap for cap in self.caps], dtype=np.float64)

    def check(self, n_obj: int, where: str) -> None:
        if len(self.weights) != n_obj or len(self.caps) != n_obj:
            raise ParetoscopeError(
                f"{where}: expected {n_obj} weights and {n_obj} caps (one per objective), got "
                f"{list(self.weights)} and {list(self.caps)}"
            )
        weights = np.asarray(self.weights, dtype=np.float64)
        if not (np.all(np.isfinite(weights)) and np.all(weights >= 0) and weights.sum() > 0):
            raise ParetoscopeError(
                f"{where}: weights must be non-negative finite numbers, not all zero, got "
                f"{list(self.weights)}"
            )
        if any(cap is not None and not math.isfinite(cap) for cap in self.caps):
            raise ParetoscopeError(f"{where}: caps must be finite numbers or none, got {self.caps}")


def rewards_by_member(
    preferences: Sequence[Sequence[float]],
    rewards: Sequence[tuple[Sequence[float], MemberReward]],
) -> list[MemberReward | None]:
    """One training reward (None: its preference's own) per member, each of `rewards` given to
    the one member whose preference it names."""
    by_member: list[MemberReward | None] = [None] * len(preferences)
    for preference, reward in rewards:
        matches = [i for i, row in enumerate(preferences) if np.allclose(row, preference)]
        if len(matches) != 1:
            named = ",".join(f"{value:g}" for value in preference)
            raise ParetoscopeError(
                f"member reward for preference {named}: "
                + ("no member has that preference" if not matches else "several members match")
            )
        by_member[matches[0]] = reward
    return by_member


@dataclass(frozen=True)
class BehaviourRun:
    """Everything that fixes a training run's outcome (the budget aside), resolved from its
    settings (`behaviour_run`): what run.json holds."""

    env_id: str
    preferences: tuple[tuple[float, ...], ...]
    ars: ARSConfig = field(default_factory=ARSConfig)
    seed: int = 0
    horizon: int | None = None  # None: the environment's horizon
    survival_shift: float | None = None  # None: automatic (see SURVIVAL_BONUS)
    warm_start: bool = True
    eval_episodes: int = 5
    transfer_every: int | None = None  # None: no policy transfer between members
    survival_bonus: tuple[float, ...] | None = None  # None: SURVIVAL_BONUS (shift = w·bonus)
    # One entry per member (None: it trains on its own preference); None: all of them do.
    member_rewards: tuple[MemberReward | None, ...] | None = None

    def reward_of(self, index: int) -> MemberReward | None:
        return None if self.member_rewards is None else self.member_rewards[index]

    def record(self) -> dict[str, Any]:
        """The JSON form kept in run.json (``transfer_every``, ``survival_bonus`` and
        ``member_rewards`` only when set, so run.json files written before these options
        existed stay valid)."""
        record = {
            "format": RUN_FORMAT,
            "format_version": RUN_FORMAT_VERSION,
            "method": METHOD,
            **asdict(self),
            "preferences": [list(row) for row in self.preferences],
        }
        for optional in ("transfer_every", "survival_bonus", "member_rewards"):
            if record[optional] is None:
                del record[optional]
            elif optional == "survival_bonus":
                record[optional] = list(record[optional])
            elif optional == "member_rewards":
                record[optional] = [
                    None if reward is None else {key: list(value) for key, value in reward.items()}
                    for reward in record[optional]
                ]
        return record


@dataclass(frozen=True)
class Budget:
    """How long each member trains: an iteration count, seconds, or both (first reached)."""

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ParetoscopeError("budget: give an iteration count, seconds, or both")
        if self.iterations is not None and self.iterations < 0:
            raise ParetoscopeError(f"iterations must be non-negative, got {self.iterations}")
        if self.seconds is not None and not (self.seconds >= 0 and math.isfinite(self.seconds)):
            raise ParetoscopeError(f"budget seconds must be non-negative, got {self.seconds}")

    def reached(self, state: MemberState) -> bool:
        if self.iterations is not None and state.iteration >= self.iterations:
            return True
        return self.seconds is not None and state.elapsed_seconds >= self.seconds


@dataclass
class MemberState:
    """One member's training state, as saved after every iteration."""

    index: int
    preference: FloatArray
    matrix: FloatArray
    stats: ObservationStats
    iteration: int = 0
    env_steps: int = 0
    elapsed_seconds: float = 0.0
    history: list[float] = field(default_factory=list)  # mean scalarised return per iteration
    warm_started_from: int | None = None
    evaluated_iteration: int | None = None
    eval_returns: FloatArray | None = None  # (E, n_obj) noise-free episodes, no shift
    transfers: list[tuple[int, int]] = field(default_factory=list)  # (iteration, source member)

    @property
    def mean_return(self) -> FloatArray:
        """The mean of its evaluation episodes' return vectors."""
        return np.asarray(self.eval_returns).mean(axis=0)

    @property
    def evaluated(self) -> bool:
        return self.eval_returns is not None and self.evaluated_iteration == self.iteration


def member_path(out_dir: Path, index: int) -> Path:
    return out_dir / TRAINING_DIR / f"member-{index:03d}.safetensors"


def member_snapshot_path(out_dir: Path, index: int, iteration: int) -> Path:
    """Where member `index`'s state after `iteration` is kept for the snapshot there."""
    name = f"member-{index:03d}-iteration-{iteration}.safetensors"
    return out_dir / TRAINING_DIR / MEMBER_SNAPSHOTS_DIR / name


def save_member(path: Path, state: MemberState) -> None:
    """Write `state` atomically: the tensors plus a JSON header entry."""
    from safetensors.numpy import save as save_tensors

    tensors = {
        "matrix": np.ascontiguousarray(state.matrix),
        "obs_mean": np.ascontiguousarray(state.stats.mean),
        "obs_m2": np.ascontiguousarray(state.stats.m2),
        "preference": np.ascontiguousarray(state.preference),
    }
    if state.eval_returns is not None:
        tensors["eval_returns"] = np.ascontiguousarray(state.eval_returns)
    header = {
        "index": state.index,
        "obs_count": state.stats.count,
        "iteration": state.iteration,
        "env_steps": state.env_steps,
        "elapsed_seconds": state.elapsed_seconds,
        "history": state.history,
        "warm_started_from": state.warm_started_from,
        "evaluated_iteration": state.evaluated_iteration,
        "transfers": [list(pair) for pair in state.transfers],
    }
    write_bytes_atomically(path, save_tensors(tensors, metadata={"state": json.dumps(header)}))


def load_member(path: Path) -> MemberState:
    """Read a member state written by `save_member`; a damaged file raises with its path."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="numpy") as handle:
            header = json.loads((handle.metadata() or {})["state"])
            tensors = {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118
        stats = ObservationStats(int(header["obs_count"]), tensors["obs_mean"], tensors["obs_m2"])
        return MemberState(
            index=int(header["index"]),
            preference=tensors["preference"],
            matrix=tensors["matrix"],
            stats=stats,
            iteration=int(header["iteration"]),
            env_steps=int(header["env_steps"]),
            elapsed_seconds=float(header["elapsed_seconds"]),
            history=[float(value) for value in header["history"]],
            warm_started_from=header["warm_started_from"],
            evaluated_iteration=header["evaluated_iteration"],
            eval_returns=tensors.get("eval_returns"),
            transfers=[(int(it), int(src)) for it, src in header.get("transfers", [])],
        )
    except (SafetensorError, OSError, KeyError, TypeError, ValueError) as error:
        raise ParetoscopeError(
            f"{path}: damaged training state ({error}); delete it to retrain that member"
        ) from None


def _save_member_state(folder: Path, state: MemberState, snapshot_every: int | None) -> None:
    """Save a member's state; at a snapshot iteration, first a copy for that snapshot (so a
    member file at that iteration always has its copy, whenever the run was interrupted)."""
    if snapshot_every is not None and state.iteration > 0 and state.iteration % snapshot_every == 0:
        copy = member_snapshot_path(folder, state.index, state.iteration)
        copy.parent.mkdir(parents=True, exist_ok=True)
        save_member(copy, state)
    save_member(member_path(folder, state.index), state)


# --- the driver ------------------------------------------------------------------------------


def _prepare_run(out_dir: Path, run: BehaviourRun) -> None:
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


def _eval_seeds(seed: int, index: int, count: int) -> list[int]:
    rng = np.random.default_rng([seed, 1_000_000 + index])
    return [int(value) for value in rng.integers(0, 2**31 - 1, size=count)]


def _format_preference(preference: FloatArray) -> str:
    return "(" + ", ".join(f"{value:.2f}" for value in preference) + ")"


def behaviour_run(env_id: str, settings: BehaviourTrainingSettings) -> BehaviourRun:
    """What fixes the outcome of a run of `settings` on `env_id`, resolved (the members'
    preferences, each member's reward) and checked: what run.json holds."""
    env = get_spec(env_id)
    if settings.preferences is None:
        member_preferences = default_preferences(env.n_obj, settings.members)
    else:
        member_preferences = check_member_preferences(settings.preferences, env.n_obj)
    horizon, eval_episodes, seed = settings.horizon, settings.eval_episodes, settings.seed
    if horizon is not None and not 1 <= horizon <= env.horizon:
        raise ParetoscopeError(f"horizon must be between 1 and {env.horizon}, got {horizon}")
    if eval_episodes < 1:
        raise ParetoscopeError(f"eval_episodes must be at least 1, got {eval_episodes}")
    if seed < 0:
        raise ParetoscopeError(f"seed must be non-negative, got {seed}")
    shift = settings.survival_shift
    if shift is not None and not math.isfinite(shift):
        raise ParetoscopeError(f"survival shift must be finite, got {shift}")
    bonus: tuple[float, ...] | None = None
    if settings.survival_bonus is not None:
        if shift is not None:
            raise ParetoscopeError("give a survival shift or a survival bonus, not both")
        bonus = tuple(float(value) for value in settings.survival_bonus)
        if len(bonus) != env.n_obj or not all(math.isfinite(value) for value in bonus):
            raise ParetoscopeError(
                f"survival bonus: expected {env.n_obj} finite numbers (one per objective of "
                f"{env_id}), got {list(settings.survival_bonus)}"
            )
    rewards = member_rewards(settings, member_preferences)
    if rewards is not None:
        for index, reward in enumerate(rewards):
            if reward is not None:
                reward.check(env.n_obj, f"member {index}'s reward")
    return BehaviourRun(
        env_id=env_id,
        preferences=tuple(tuple(float(v) for v in row) for row in member_preferences),
        ars=settings.ars,
        seed=int(seed),
        horizon=horizon,
        survival_shift=shift,
        warm_start=settings.warm_start,
        eval_episodes=int(eval_episodes),
        transfer_every=None if settings.transfer_every is None else int(settings.transfer_every),
        survival_bonus=bonus,
        member_rewards=None if rewards is None else tuple(rewards),
    )


def member_budget(settings: BehaviourTrainingSettings) -> Budget:
    """How long each member trains: the settings' iterations and/or seconds, or
    `DEFAULT_ITERATIONS` when they give neither."""
    if settings.iterations is None and settings.budget_seconds is None:
        return Budget(DEFAULT_ITERATIONS)
    return Budget(settings.iterations, settings.budget_seconds)


def member_rewards(
    settings: BehaviourTrainingSettings, preferences: Sequence[Sequence[float]] | FloatArray
) -> list[MemberReward | None] | None:
    """The training reward of each member of `preferences` (None: its own preference's) from
    `settings.train_on`, which names members by their preference; None when no member has
    its own."""
    if not settings.train_on:
        return None
    if settings.preferences is None:
        raise ParetoscopeError(
            "train_on names members by their preference (--train-on by --preference): give those"
        )
    return rewards_by_member(
        [list(row) for row in preferences],
        [(m.preference, MemberReward(m.weights, m.caps)) for m in settings.train_on],
    )


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
    transfer between members after each round but the last (see the module docstring; needs
    an iteration budget). ``survival_bonus`` (one value per objective) replaces the env's alive
    bonus table: each member's shift is then w·survival_bonus (e.g. (1, 1, 0) on MO-Hopper-v3
    keeps the energy objective's per-step 5, so energy-heavy members learn to stay up
    cheaply). ``snapshot_every=N`` also writes the policy set after every N iterations (and the
    final one) into ``out_dir/snapshots/step=N/`` (see the module docstring); it may change on a
    resume. ``train_on`` gives members (named by their preference) another training reward,
    weights·min(r_t, caps) (see the module docstring). ``drop_dominated`` (a margin m in
    [0, 1)) leaves out of the saved set the members another member dominates on the evaluated
    mean returns by that margin (`non_dominated_by_margin`: m times each objective's range; 0:
    plain dominance). Their states stay in ``training/``; the set's ``training.dropped`` lists
    them. It is not a training setting: a finished run may be saved again with it.
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
    _prepare_run(folder, run)

    member_preferences = np.asarray(run.preferences, dtype=np.float64)
    states: list[MemberState] = []
    with EpisodePool(env_id, settings.workers) as pool:
        for round_budget in _round_budgets(run, budget, folder):
            states = []
            for index, preference in enumerate(member_preferences):
                state = _train_member(
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
                _transfer_policies(folder, run, states, pool, horizon)

    kept = kept_members(states, settings.drop_dominated)
    agent = _policy_set(run, kept)
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
        _write_snapshots(folder, run, agent, states)
    return agent


def kept_members(states: list[MemberState], drop_dominated: float | None) -> list[MemberState]:
    """The members the saved set holds: all (None), or those no other member dominates by the
    margin `drop_dominated` on its evaluated mean return (ties all kept)."""
    if drop_dominated is None:
        return states
    means = np.stack([state.mean_return for state in states])
    mask = non_dominated_by_margin(means, drop_dominated)
    return [state for state, keep in zip(states, mask, strict=True) if keep]


def _policy_set(run: BehaviourRun, states: Sequence[MemberState]) -> PolicySetAgent:
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
                _shift_for(run, _training_weights(run, state.index, state.preference))
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


def _write_snapshots(
    folder: Path, run: BehaviourRun, final: PolicySetAgent, states: list[MemberState]
) -> None:
    """Publish, in order, every iteration that all members have a saved copy of, then the
    final set at its iteration count when the members share one; existing snapshots stay."""
    copies: dict[int, dict[int, Path]] = {}
    for path in (folder / TRAINING_DIR / MEMBER_SNAPSHOTS_DIR).glob("member-*.safetensors"):
        match = _MEMBER_SNAPSHOT.fullmatch(path.name)
        if match is not None:
            copies.setdefault(int(match[2]), {})[int(match[1])] = path
    scratch = folder / TRAINING_DIR
    for iteration, paths in sorted(copies.items()):
        if (
            sorted(paths) == list(range(len(states)))
            and not snapshot_dir(folder, iteration).exists()
        ):
            members = [load_member(paths[index]) for index in range(len(states))]
            write_snapshot(folder, iteration, _policy_set(run, members), scratch)
    final_iterations = {state.iteration for state in states}
    if len(final_iterations) == 1 and (last := final_iterations.pop()) > 0:
        write_snapshot(folder, last, final, scratch)


def _round_budgets(run: BehaviourRun, budget: Budget, folder: Path) -> list[Budget]:
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


def _transfer_policies(
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
    seeds = _eval_seeds(run.seed, index, run.eval_episodes)
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


def _training_weights(run: BehaviourRun, index: int, preference: FloatArray) -> FloatArray:
    """The weights member `index` trains on: its own reward's, else its preference."""
    reward = run.reward_of(index)
    return preference if reward is None else np.asarray(reward.weights, dtype=np.float64)


def _shift_for(run: BehaviourRun, preference: FloatArray) -> float:
    if run.survival_shift is not None:
        return float(run.survival_shift)
    if run.survival_bonus is not None:
        return float(np.dot(preference, run.survival_bonus))
    return auto_survival_shift(run.env_id, preference)


def _new_member(
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


def _train_member(
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
        state = _new_member(run, index, preference, trained)
    reward = run.reward_of(index)
    weights = _training_weights(run, index, preference)
    caps = None if reward is None else reward.cap_array()
    shift = _shift_for(run, weights)
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
            _save_member_state(folder, state, snapshot_every)
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
            seeds = _eval_seeds(run.seed, index, run.eval_episodes)
            state.eval_returns = evaluate_policy(state.matrix, state.stats, seeds, pool, horizon)
            state.evaluated_iteration = state.iteration
            _save_member_state(folder, state, snapshot_every)
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
