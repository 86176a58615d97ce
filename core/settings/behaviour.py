"""The settings of a behaviour training run: one ARS linear policy per preference, saved as a
policy set (`paretoscope.train.train_behaviour`, `paretoscope train behaviour`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from paretoscope.errors import ParetoscopeError
from paretoscope.settings.fields import check_bounds, frozen, setting
from paretoscope.settings.forms import format_numbers, parse_auto_or_number, parse_numbers
from paretoscope.settings.limits import EPISODES, HORIZONS, MEMBERS, SEEDS

Rows = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class ARSConfig:
    """ARS hyper-parameters: N directions, top b, step size α and exploration noise ν."""

    directions: int = setting(32, "directions N per iteration (default 32)")
    top_directions: int = setting(8, "best directions b used (default 8)")
    step_size: float = setting(0.02, "step size α (default 0.02)")
    noise: float = setting(0.03, "exploration noise ν (default 0.03)")

    def __post_init__(self) -> None:
        if self.directions < 1:
            raise ParetoscopeError(f"directions must be at least 1, got {self.directions}")
        if not 1 <= self.top_directions <= self.directions:
            raise ParetoscopeError(
                f"top_directions must be between 1 and directions ({self.directions}), "
                f"got {self.top_directions}"
            )
        for name in ("step_size", "noise"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ParetoscopeError(f"{name} must be a positive number, got {value}")


@dataclass(frozen=True)
class MemberTraining:
    """A member (named by its preference) that trains on weights·min(r_t, caps) instead of its
    preference's w·r_t (`paretoscope.train.MemberReward`)."""

    preference: tuple[float, ...]
    weights: tuple[float, ...]
    caps: tuple[float | None, ...]  # per objective; None: no cap

    def __post_init__(self) -> None:
        for name in ("preference", "weights", "caps"):
            object.__setattr__(self, name, frozen(getattr(self, name)))

    @classmethod
    def parse(cls, text: str) -> MemberTraining:
        """``PREFERENCE:WEIGHTS:CAPS`` such as ``0.2,0.8:0.5,0.5:2.5,inf`` (inf: no cap)."""
        parts = text.replace(" ", "").split(":")
        if len(parts) != 3:
            raise ValueError(
                f"expected PREFERENCE:WEIGHTS:CAPS such as 0.2,0.8:0.5,0.5:2.5,inf, got {text!r}"
            )
        preference, weights, caps = (parse_numbers(part) for part in parts)
        return cls(preference, weights, tuple(None if cap == math.inf else cap for cap in caps))

    def option(self) -> str:
        """The text `parse` reads back."""
        return ":".join(format_numbers(part) for part in (self.preference, self.weights, self.caps))


@dataclass(frozen=True)
class BehaviourTrainingSettings:
    """A behaviour run: its members, their budget, ARS, and the rewards they train on."""

    members: int = setting(
        5,
        "number of members, spread evenly over the preference simplex (default 5)",
        option="--preferences",
        metavar="K",
        bounds=MEMBERS,
    )
    preferences: Rows | None = setting(
        None,
        "an explicit member preference such as 0.8,0.2 (repeat; replaces --preferences)",
        option="--preference",
        metavar="W",
        parse=parse_numbers,
        repeat=True,
    )
    iterations: int | None = setting(
        None, "ARS iterations per member (default 300 unless --budget-seconds is given)"
    )
    budget_seconds: float | None = setting(
        None, "training seconds per member (with --iterations: whichever is reached first)"
    )
    workers: int | None = setting(None, "worker processes (default: all cores)")
    seed: int = setting(0, "random seed (default 0)", bounds=SEEDS)
    ars: ARSConfig = setting(default_factory=ARSConfig, help="ARS hyper-parameters")
    horizon: int | None = setting(
        None, "episode length (default: the env's horizon)", bounds=HORIZONS
    )
    eval_episodes: int = setting(
        5, "episodes that measure each member's mean return (default 5)", bounds=EPISODES
    )
    survival_shift: float | None = setting(
        None,
        "per-step constant subtracted from the training reward only; 'auto' (default) "
        "removes the alive bonus on tasks that end when the robot falls",
        metavar="auto|X",
        parse=parse_auto_or_number,
    )
    survival_bonus: tuple[float, ...] | None = setting(
        None,
        "per-objective alive bonus such as 1,1,0 replacing the env's table: each member's "
        "shift is then w·B (not with --survival-shift)",
        metavar="B",
        parse=parse_numbers,
    )
    warm_start: bool = setting(
        True,
        "warm start: each member starts from the nearest trained one (--no-warm-start: from zero)",
    )
    transfer_every: int | None = setting(
        None,
        "train all members in rounds of K iterations; after each round but the last, every "
        "member adopts the policy of whichever member scores best on its own preference "
        "(default: no transfer)",
        metavar="K",
    )
    snapshot_every: int | None = setting(
        None,
        "also keep the policy set after every N iterations (and the final one) in "
        "OUT/snapshots/step=N/ (default: no snapshots)",
        metavar="N",
    )
    train_on: tuple[MemberTraining, ...] = setting(
        (),
        "the member of preference W trains on W2·min(r, CAPS) instead of W·r, e.g. "
        "0.2,0.8:0.5,0.5:2.5,inf caps the first objective's reward per step at 2.5 (a target "
        "speed); inf: no cap (repeat; needs --preference)",
        metavar="W:W2:CAPS",
        parse=MemberTraining.parse,
        repeat=True,
    )
    drop_dominated: float | None = setting(
        None,
        "leave out of the saved set the members another member dominates on their evaluated "
        "returns, by MARGIN times each objective's range (default 0: plain dominance); their "
        "training state stays, and a finished run may be saved again with it",
        metavar="MARGIN",
        bare=0.0,
    )

    def __post_init__(self) -> None:
        for name in ("preferences", "survival_bonus", "train_on"):
            object.__setattr__(self, name, frozen(getattr(self, name)))
        check_bounds(self)
