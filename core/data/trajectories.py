"""`Trajectories`: multi-objective trajectories stored column-wise, the one in-memory data model.

Steps of all trajectories are concatenated (trajectory i spans ``offsets[i]:offsets[i + 1]``), so
the same object works for arrays in memory and for memory-mapped columns on disk. Returns and
lengths are derived from the rewards and offsets, never stored twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from paretoscope.envs import EnvSpec, get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import QUOTE_LIMIT, printable

# Preference rows must sum to 1 within this absolute tolerance.
PREFERENCE_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class DatasetInfo:
    """What a dataset is about: its environment, objectives and where it came from."""

    env_id: str
    objective_names: tuple[str, ...]
    # Where the data came from, e.g. "d4morl:/data/MO-Hopper-v2_50000_expert_uniform.pkl".
    source: str = ""
    # Behaviour quality ("expert", "amateur") and preference distribution ("uniform", "wide",
    # "narrow") as D4MORL names them; None when unknown.
    quality: str | None = None
    preference_distribution: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def for_env(cls, env_id: str, **fields: Any) -> DatasetInfo:
        """Info for a registered env, objective names taken from its spec."""
        spec = get_spec(env_id)
        return cls(env_id=env_id, objective_names=spec.objective_names, **fields)

    @property
    def named(self) -> str:
        """The dataset as a message names it: its source (else its env id), cut to a quote's
        length (a source is a file's text)."""
        return printable(self.source or self.env_id, QUOTE_LIMIT)

    @property
    def n_obj(self) -> int:
        return len(self.objective_names)

    @property
    def spec(self) -> EnvSpec:
        return get_spec(self.env_id)

    @property
    def horizon(self) -> int:
        """The episode cap the data were collected with: ``extra["horizon"]`` when recorded
        (a collection may cap episodes below the env's horizon), else the env's."""
        recorded = self.extra.get("horizon")
        return int(recorded) if isinstance(recorded, int) and recorded > 0 else self.spec.horizon

    @property
    def behaviour(self) -> str:
        """The quality in words: "expert behaviour", "amateur behaviour", "expert behaviour with
        action noise 0.05" (`paretoscope data collect --action-noise`), or "" when unknown."""
        if not self.quality:
            return ""
        noise = self.extra.get("action_noise")
        if isinstance(noise, int | float) and noise:
            return f"{self.quality} behaviour with action noise {noise:g}"
        return f"{self.quality} behaviour"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["objective_names"] = list(self.objective_names)
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "dataset info") -> DatasetInfo:
        """The info stored by `to_dict`; a `ParetoscopeError` naming `where` (the file) and
        the field when a file's copy is not such an object."""
        if not isinstance(data, Mapping):
            raise ParetoscopeError(f"{where}: 'info' is a {type(data).__name__}, not an object")
        names = data.get("objective_names")
        if not isinstance(data.get("env_id"), str):
            raise ParetoscopeError(f"{where}: 'info' names no env_id")
        if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
            raise ParetoscopeError(f"{where}: 'info' has no list of 'objective_names'")
        extra = data.get("extra") or {}
        if not isinstance(extra, Mapping):
            raise ParetoscopeError(f"{where}: 'info' field 'extra' is not an object")
        return cls(
            env_id=data["env_id"],
            objective_names=tuple(names),
            source=str(data.get("source", "")),
            quality=data.get("quality"),
            preference_distribution=data.get("preference_distribution"),
            extra=dict(extra),
        )


@dataclass
class Trajectory:
    """One trajectory: T steps of observations, actions, per-objective rewards and terminals.

    ``next_observations`` is None when it is simply the observations shifted by one step
    followed by ``final_observation`` (the usual case); `next_observations_or_derived` gives it.
    """

    observations: np.ndarray  # (T, obs_dim)
    actions: np.ndarray  # (T, act_dim)
    raw_rewards: np.ndarray  # (T, n_obj)
    terminals: np.ndarray  # (T,) bool
    preference: np.ndarray  # (n_obj,)
    final_observation: np.ndarray  # (obs_dim,) the observation after the last step
    next_observations: np.ndarray | None = None  # (T, obs_dim) only when not derivable

    def __len__(self) -> int:
        return int(self.observations.shape[0])

    @property
    def returns(self) -> np.ndarray:
        return trajectory_return(self.raw_rewards)

    def next_observations_or_derived(self) -> np.ndarray:
        if self.next_observations is not None:
            return np.asarray(self.next_observations)
        return np.concatenate([self.observations[1:], self.final_observation[None, :]], axis=0)

    @classmethod
    def from_step_arrays(
        cls,
        observations: np.ndarray,
        actions: np.ndarray,
        next_observations: np.ndarray,
        raw_rewards: np.ndarray,
        terminals: np.ndarray,
        preference: np.ndarray,
    ) -> Trajectory:
        """From D4MORL-style per-step arrays; keeps next_observations only when not derivable."""
        observations = np.asarray(observations)
        next_observations = np.asarray(next_observations)
        derivable = np.array_equal(observations[1:], next_observations[:-1])
        return cls(
            observations=observations,
            actions=np.asarray(actions),
            raw_rewards=np.asarray(raw_rewards),
            terminals=np.asarray(terminals, dtype=bool),
            preference=np.asarray(preference),
            final_observation=next_observations[-1].copy(),  # not a view keeping the rest alive
            next_observations=None if derivable else next_observations,
        )


def check_trajectory(trajectory: Trajectory, spec: EnvSpec, where: str) -> None:
    """Raise `ParetoscopeError` (message starting with `where`) unless shapes fit `spec`,
    values are finite and the preference is a probability vector."""
    length = len(trajectory)
    if length == 0:
        raise ParetoscopeError(f"{where}: the trajectory has no steps")
    expected = {
        "observations": (length, spec.obs_dim),
        "actions": (length, spec.act_dim),
        "raw_rewards": (length, spec.n_obj),
        "terminals": (length,),
        "preference": (spec.n_obj,),
        "final_observation": (spec.obs_dim,),
    }
    if trajectory.next_observations is not None:
        expected["next_observations"] = (length, spec.obs_dim)
    for name, shape in expected.items():
        actual = np.shape(getattr(trajectory, name))
        if actual != shape:
            raise ParetoscopeError(
                f"{where}: {name} has shape {actual}, expected {shape} for {spec.id} "
                f"(obs_dim={spec.obs_dim}, act_dim={spec.act_dim}, n_obj={spec.n_obj})"
            )
    for name in expected:
        values = np.asarray(getattr(trajectory, name))
        if values.dtype.kind not in "fiub":
            raise ParetoscopeError(f"{where}: {name} has dtype {values.dtype}, expected numbers")
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            position = np.argwhere(~np.isfinite(values))[0].tolist()
            raise ParetoscopeError(
                f"{where}: {name} contains NaN or inf (first at index {tuple(position)})"
            )
    check_preference(trajectory.preference, where)


def check_preference(preference: np.ndarray, where: str) -> None:
    """A preference is non-negative and sums to 1 (within `PREFERENCE_SUM_TOLERANCE`)."""
    preference = np.asarray(preference, dtype=np.float64)
    if (preference < 0).any():
        raise ParetoscopeError(f"{where}: preference {preference.tolist()} has a negative entry")
    total = float(preference.sum())
    if abs(total - 1.0) > PREFERENCE_SUM_TOLERANCE:
        raise ParetoscopeError(
            f"{where}: preference {preference.tolist()} sums to {total:.6g}, expected 1"
        )


class Trajectories:
    """A dataset of trajectories with vector rewards, column-wise (see module docstring).

    Columns: observations (S, obs_dim), actions (S, act_dim), raw_rewards (S, n_obj),
    terminals (S,), per trajectory preferences (N, n_obj), final_observations (N, obs_dim),
    offsets (N + 1,), and optionally next_observations (S, obs_dim) when they are not the
    shifted observations. `returns` may be given precomputed (the native format stores them).
    """

    def __init__(
        self,
        info: DatasetInfo,
        observations: np.ndarray,
        actions: np.ndarray,
        raw_rewards: np.ndarray,
        terminals: np.ndarray,
        preferences: np.ndarray,
        offsets: np.ndarray,
        final_observations: np.ndarray,
        next_observations: np.ndarray | None = None,
        returns: np.ndarray | None = None,
    ) -> None:
        self.info = info
        self.observations = observations
        self.actions = actions
        self.raw_rewards = raw_rewards
        self.terminals = terminals
        self.preferences = preferences
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.final_observations = final_observations
        self.next_observations = next_observations
        self._returns = returns
        self._check_layout()

    def _check_layout(self) -> None:
        """Cheap consistency checks (no pass over the step data)."""
        n, steps = self.n_trajectories, self.n_steps
        where = f"dataset {self.info.named}"
        if self.offsets.ndim != 1 or len(self.offsets) < 1 or self.offsets[0] != 0:
            raise ParetoscopeError(f"{where}: offsets must start at 0")
        if (np.diff(self.offsets) <= 0).any():
            raise ParetoscopeError(f"{where}: every trajectory needs at least one step")
        columns: dict[str, tuple[np.ndarray | None, tuple[int, ...]]] = {
            "observations": (self.observations, (steps, self.obs_dim)),
            "actions": (self.actions, (steps, self.actions.shape[-1])),
            "raw_rewards": (self.raw_rewards, (steps, self.n_obj)),
            "terminals": (self.terminals, (steps,)),
            "preferences": (self.preferences, (n, self.n_obj)),
            "final_observations": (self.final_observations, (n, self.obs_dim)),
            "next_observations": (self.next_observations, (steps, self.obs_dim)),
            "returns": (self._returns, (n, self.n_obj)),
        }
        for name, (column, shape) in columns.items():
            if column is not None and column.shape != shape:
                raise ParetoscopeError(
                    f"{where}: {name} has shape {column.shape}, expected {shape}"
                )
        if self.n_obj != self.info.n_obj:
            raise ParetoscopeError(
                f"{where}: rewards have {self.n_obj} objectives but the info names "
                f"{self.info.n_obj} ({', '.join(self.info.objective_names)})"
            )

    # --- sizes ---------------------------------------------------------------------------------
    @property
    def n_trajectories(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_steps(self) -> int:
        return int(self.offsets[-1])

    @property
    def n_obj(self) -> int:
        return int(self.raw_rewards.shape[1])

    @property
    def obs_dim(self) -> int:
        return int(self.observations.shape[1])

    @property
    def act_dim(self) -> int:
        return int(self.actions.shape[1])

    def __len__(self) -> int:
        return self.n_trajectories

    # --- derived per-trajectory values ---------------------------------------------------------
    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def returns(self) -> np.ndarray:
        """(N, n_obj) undiscounted return of each trajectory, float64."""
        if self._returns is None:
            self._returns = returns_from_rewards(self.raw_rewards, self.offsets)
        return self._returns

    def ended_early(self, horizon: int | None = None) -> np.ndarray:
        """(N,) whether each trajectory is shorter than the horizon (default: `info.horizon`)."""
        horizon = self.info.horizon if horizon is None else horizon
        return self.lengths < horizon

    # --- access --------------------------------------------------------------------------------
    def trajectory(self, index: int) -> Trajectory:
        """Trajectory `index` as views into the columns."""
        if not -self.n_trajectories <= index < self.n_trajectories:
            raise IndexError(
                f"trajectory {index} out of range ({self.n_trajectories} trajectories)"
            )
        index %= self.n_trajectories
        start, stop = int(self.offsets[index]), int(self.offsets[index + 1])
        return Trajectory(
            observations=self.observations[start:stop],
            actions=self.actions[start:stop],
            raw_rewards=self.raw_rewards[start:stop],
            terminals=self.terminals[start:stop],
            preference=self.preferences[index],
            final_observation=self.final_observations[index],
            next_observations=(
                None if self.next_observations is None else self.next_observations[start:stop]
            ),
        )

    def __iter__(self) -> Iterator[Trajectory]:
        for index in range(self.n_trajectories):
            yield self.trajectory(index)

    def next_observations_or_derived(self) -> np.ndarray:
        """(S, obs_dim) next observations, derived from observations where not stored."""
        if self.next_observations is not None:
            return np.asarray(self.next_observations)
        shifted = np.empty(self.observations.shape, dtype=self.observations.dtype)
        shifted[:-1] = self.observations[1:]
        shifted[self.offsets[1:] - 1] = self.final_observations
        return shifted

    # --- construction --------------------------------------------------------------------------
    @classmethod
    def from_trajectories(
        cls,
        trajectories: Iterable[Trajectory],
        info: DatasetInfo,
        validate: bool = True,
        where: str = "",
    ) -> Trajectories:
        """Concatenate trajectories into columns; validated against the env spec by default."""
        items: Sequence[Trajectory] = list(trajectories)
        label = where or (info.source or info.env_id)
        if not items:
            raise ParetoscopeError(f"{label}: the dataset holds no trajectories")
        spec = info.spec
        if validate:
            for index, item in enumerate(items):
                check_trajectory(item, spec, f"{label}: trajectory {index}")
        lengths = np.array([len(item) for item in items], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        keep_next = any(item.next_observations is not None for item in items)
        return cls(
            info=info,
            observations=np.concatenate([item.observations for item in items]).astype(np.float64),
            actions=np.concatenate([item.actions for item in items]).astype(np.float64),
            raw_rewards=np.concatenate([item.raw_rewards for item in items]).astype(np.float64),
            terminals=np.concatenate([item.terminals for item in items]).astype(bool),
            preferences=np.stack([item.preference for item in items]).astype(np.float64),
            offsets=offsets,
            final_observations=np.stack([item.final_observation for item in items]).astype(
                np.float64
            ),
            next_observations=(
                np.concatenate([item.next_observations_or_derived() for item in items]).astype(
                    np.float64
                )
                if keep_next
                else None
            ),
        )


def trajectory_return(raw_rewards: np.ndarray) -> np.ndarray:
    """(n_obj,) float64 sum of one trajectory's reward rows: the one way returns are summed, so
    every reader and writer gets bit-identical returns."""
    return np.asarray(raw_rewards, dtype=np.float64).sum(axis=0)


def returns_from_rewards(raw_rewards: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(N, n_obj) returns of the trajectories delimited by `offsets` (see `trajectory_return`)."""
    returns = np.zeros((len(offsets) - 1, raw_rewards.shape[1]), dtype=np.float64)
    for index in range(len(offsets) - 1):
        returns[index] = trajectory_return(raw_rewards[offsets[index] : offsets[index + 1]])
    return returns
