"""`EnvSpec`: everything paretoscope needs to know about an environment without building it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from paretoscope.settings.limits import MAX_HORIZON

Family = Literal["d4morl", "mo-gymnasium"]
# Where a spec's horizon comes from: the env's registered time limit, or paretoscope's default
# for an env that registers none (the user may then ask for longer episodes, up to MAX_HORIZON).
HorizonSource = Literal["registry", "default"]
DEFAULT_HORIZON = 1000


@dataclass(frozen=True)
class Objective:
    """One reward component; `unit` is None where the quantity has no physical unit."""

    name: str
    unit: str | None = None
    description: str = ""

    @property
    def axis_title(self) -> str:
        """Its axis title: "run return (m/s), higher is better" (every objective is
        maximised; the unit is that of one step's reward, summed over the episode)."""
        unit = f" ({self.unit})" if self.unit else ""
        return f"{self.name} return{unit}, higher is better"

    @property
    def meaning(self) -> str:
        """What its reward is, in words: "run (m/s): forward speed (capped at 4) + 1"."""
        unit = f" ({self.unit})" if self.unit else ""
        return f"{self.name}{unit}: {self.description}" if self.description else self.name + unit


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
    # The tracking camera of a MuJoCo task drawn by paretoscope's own renderer; None: the env
    # draws itself (`env.render()`, rgb_array).
    camera: CameraSpec | None
    action_low: tuple[float, ...]
    action_high: tuple[float, ...]
    description: str = ""
    # Where the reference point comes from, shown next to hypervolume figures.
    reference_point_source: str = ""
    # Observation shape as agents receive it: () means (obs_dim,); images keep (H, W, C).
    obs_shape: tuple[int, ...] = ()
    # Discrete(n) action spaces: actions are (B,) integers in [0, n); act_dim is then 1.
    n_actions: int | None = None
    horizon_source: HorizonSource = "registry"
    extra: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def n_obj(self) -> int:
        return len(self.objectives)

    @property
    def objective_names(self) -> tuple[str, ...]:
        return tuple(objective.name for objective in self.objectives)

    @property
    def discrete(self) -> bool:
        return self.n_actions is not None

    @property
    def action_shape(self) -> tuple[int, ...]:
        """The shape of one row's action: () for a discrete action, (act_dim,) otherwise."""
        return () if self.discrete else (self.act_dim,)

    @property
    def max_horizon(self) -> int:
        """The longest episode a user may ask for: the registered limit, else MAX_HORIZON."""
        return self.horizon if self.horizon_source == "registry" else MAX_HORIZON

    def describe_actions(self) -> str:
        """The action space in words, for messages: 'Discrete(6)' or 'Box(6,) in [-1, 1]'."""
        if self.discrete:
            return f"Discrete({self.n_actions})"
        return f"Box({self.act_dim},)"

    def describe_observations(self) -> str:
        return f"shape {self.obs_shape}"

    def __post_init__(self) -> None:
        if not self.obs_shape:
            object.__setattr__(self, "obs_shape", (self.obs_dim,))
        # A malformed registry entry is a programming error, caught where it is registered.
        assert len(self.reference_point) == len(self.objectives), self.id
        assert len(self.action_low) == len(self.action_high) == self.act_dim, self.id
        assert self.n_actions is None or self.act_dim == 1, self.id
