"""A run's settings (`paretoscope.settings.BehaviourTrainingSettings`) resolved and checked:
what fixes its outcome (`BehaviourRun`, kept in run.json), the budget each member trains for,
and the weights and survival shift each member trains on."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.agents.policy_set import FloatArray
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import ARSConfig, BehaviourTrainingSettings
from paretoscope.train.behaviour.preferences import check_member_preferences, default_preferences
from paretoscope.train.behaviour.rewards import MemberReward, auto_survival_shift, member_rewards

if TYPE_CHECKING:
    from paretoscope.train.behaviour.state import MemberState


RUN_FORMAT = "paretoscope-behaviour-run"
RUN_FORMAT_VERSION = 1


METHOD = "ars-v2t"

# Iterations per member when the settings give no budget.
DEFAULT_ITERATIONS = 300


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


def training_weights(run: BehaviourRun, index: int, preference: FloatArray) -> FloatArray:
    """The weights member `index` trains on: its own reward's, else its preference."""
    reward = run.reward_of(index)
    return preference if reward is None else np.asarray(reward.weights, dtype=np.float64)


def survival_shift_for(run: BehaviourRun, preference: FloatArray) -> float:
    """The survival shift a member training on the weights `preference` pays: the run's
    fixed shift, else w·bonus with the run's bonus or the env's own (`SURVIVAL_BONUS`)."""
    if run.survival_shift is not None:
        return float(run.survival_shift)
    if run.survival_bonus is not None:
        return float(np.dot(preference, run.survival_bonus))
    return auto_survival_shift(run.env_id, preference)
