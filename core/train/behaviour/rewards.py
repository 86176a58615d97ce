"""What a member trains on when it is not plainly its preference's w·r_t.

Member rewards (``train_on``, off by default; run.json keeps them per member as ``member_rewards``):
a member may train on another reward than its own preference's w·r_t, namely w'·min(r_t, c) with its
own weights w' and per-objective caps c (None: no cap). Capping the run reward at a target speed
asks for that speed at the least cost of the other objectives: that reaches the points of a
non-convex part of the front, which no linear scalarisation has as its optimum (HalfCheetah between
standing still and running at full speed). The member keeps its preference as its place in the set
(the preference that picks it); evaluation reports its true, uncapped returns. In a transfer its
capped score cannot be read from the evaluations, so every member's policy is rolled out again on
its evaluation seeds with its caps and scored on its weights; it adopts the best as the others do.

On tasks whose episode ends when the robot falls, a per-step survival shift (the scalarised
constant that every objective pays just for staying alive) is subtracted from the training
reward only, so that standing still is no longer a local optimum (Mania et al. 2018).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paretoscope.agents.policy_set import FloatArray
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import BehaviourTrainingSettings

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


def auto_survival_shift(env_id: str, preference: FloatArray) -> float:
    """The automatic training-only shift w·bonus for `env_id` (0 where it has no bonus)."""
    bonus = SURVIVAL_BONUS.get(env_id)
    return 0.0 if bonus is None else float(np.dot(preference, bonus))


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
