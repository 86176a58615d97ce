"""`EnvSpec`: everything paretoscope needs to know about an environment without building it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Family = Literal["d4morl", "mo-gymnasium"]


@dataclass(frozen=True)
class Objective:
    """One reward component; `unit` is None where the quantity has no physical unit."""

    name: str
    unit: str | None = None
    description: str = ""


@dataclass(frozen=True)
class CameraSpec:
    """A tracking camera: follows `body` from `distance` metres, angles in degrees."""

    body: str
    distance: float
    elevation: float = -20.0
    azimuth: float = 90.0
    # Height of the look-at point above the tracked body's origin (tall robots look better centred).
    lookat_height: float = 0.0


@dataclass(frozen=True)
class EnvSpec:
    """Static description of one registered multi-objective environment."""

    id: str
    family: Family
    objectives: tuple[Objective, ...]
    obs_dim: int
    act_dim: int
    horizon: int
    dt: float
    reference_point: tuple[float, ...]
    camera: CameraSpec
    action_low: tuple[float, ...]
    action_high: tuple[float, ...]
    description: str = ""
    # Where the reference point comes from, shown next to hypervolume figures.
    reference_point_source: str = ""
    extra: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def n_obj(self) -> int:
        return len(self.objectives)

    @property
    def objective_names(self) -> tuple[str, ...]:
        return tuple(objective.name for objective in self.objectives)

    def __post_init__(self) -> None:
        # A malformed registry entry is a programming error, caught at import time.
        assert len(self.reference_point) == len(self.objectives), self.id
        assert len(self.action_low) == len(self.action_high) == self.act_dim, self.id
