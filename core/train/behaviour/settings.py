"""What fixes a training run's outcome (kept in run.json), the budget each member trains for,
and the weights and survival shift each member trains on."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.agents.policy_set import FloatArray
from paretoscope.errors import ParetoscopeError
from paretoscope.train.ars import ARSConfig
from paretoscope.train.behaviour.rewards import MemberReward, auto_survival_shift

if TYPE_CHECKING:
    from paretoscope.train.behaviour.state import MemberState


RUN_FORMAT = "paretoscope-behaviour-run"
RUN_FORMAT_VERSION = 1


METHOD = "ars-v2t"


@dataclass(frozen=True)
class BehaviourSettings:
    """Everything that fixes a training run's outcome (the budget aside)."""

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


def training_weights(settings: BehaviourSettings, index: int, preference: FloatArray) -> FloatArray:
    """The weights member `index` trains on: its own reward's, else its preference."""
    reward = settings.reward_of(index)
    return preference if reward is None else np.asarray(reward.weights, dtype=np.float64)


def survival_shift_for(settings: BehaviourSettings, preference: FloatArray) -> float:
    """The survival shift a member training on the weights `preference` pays: the settings'
    fixed shift, else w·bonus with the settings' bonus or the env's own (`SURVIVAL_BONUS`)."""
    if settings.survival_shift is not None:
        return float(settings.survival_shift)
    if settings.survival_bonus is not None:
        return float(np.dot(preference, settings.survival_bonus))
    return auto_survival_shift(settings.env_id, preference)
