"""What a dataset holds, in numbers: a per-trajectory table and the dataset summary built from it.

The table (return vector, length, preference, ended early) is small (N rows) and is all the
summary needs, so a converted dataset can be summarised without touching its step columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from paretoscope.data.trajectories import DatasetInfo, Trajectories, Trajectory
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# Bump when the summary's content or its computation changes: cached summaries are then redone.
SUMMARY_VERSION = 1
PREFERENCE_BINS = 20


@dataclass(frozen=True)
class TrajectoryTable:
    """One row per trajectory: return vector, length, preference and whether it ended early."""

    returns: np.ndarray  # (N, n_obj) float64
    lengths: np.ndarray  # (N,) int64
    preferences: np.ndarray  # (N, n_obj) float64
    ended_early: np.ndarray  # (N,) bool: shorter than the env's horizon

    @classmethod
    def from_trajectories(cls, trajectories: Trajectories) -> TrajectoryTable:
        return cls.from_columns(
            trajectories.returns,
            trajectories.lengths,
            trajectories.preferences,
            trajectories.info.horizon,
        )

    @classmethod
    def from_stream(cls, trajectories: Iterable[Trajectory], horizon: int) -> TrajectoryTable:
        """The table of trajectories handed out one at a time (none kept)."""
        returns, lengths, preferences = [], [], []
        for trajectory in trajectories:
            returns.append(trajectory.returns)
            lengths.append(len(trajectory))
            preferences.append(np.asarray(trajectory.preference, dtype=np.float64))
        if not lengths:
            return cls.from_columns(np.zeros((0, 0)), np.zeros(0), np.zeros((0, 0)), horizon)
        return cls.from_columns(
            np.stack(returns), np.asarray(lengths), np.stack(preferences), horizon
        )

    @classmethod
    def from_columns(
        cls, returns: np.ndarray, lengths: np.ndarray, preferences: np.ndarray, horizon: int
    ) -> TrajectoryTable:
        lengths = np.asarray(lengths, dtype=np.int64)
        return cls(
            returns=np.asarray(returns, dtype=np.float64),
            lengths=lengths,
            preferences=np.asarray(preferences, dtype=np.float64),
            ended_early=lengths < horizon,
        )

    def __len__(self) -> int:
        return int(self.lengths.shape[0])


@dataclass(frozen=True)
class DatasetSummary:
    """Counts, return ranges, the non-dominated returns and preference coverage of a dataset."""

    info: DatasetInfo
    n_trajectories: int
    n_steps: int
    length_min: int
    length_max: int
    length_mean: float
    n_ended_early: int
    return_min: tuple[float, ...]
    return_max: tuple[float, ...]
    return_mean: tuple[float, ...]
    # Indices (into the table) of the trajectories whose return no other trajectory dominates.
    non_dominated: tuple[int, ...]
    hypervolume: float
    reference_point: tuple[float, ...]
    preference_min: tuple[float, ...]
    preference_max: tuple[float, ...]
    # Histogram of each objective's preference weight over [0, 1]: edges and counts per objective.
    preference_bin_edges: tuple[float, ...]
    preference_histograms: tuple[tuple[int, ...], ...]
    # The per-trajectory table behind the numbers (the return cloud); not part of `to_dict`.
    table: TrajectoryTable | None = None

    @property
    def n_obj(self) -> int:
        return self.info.n_obj

    @property
    def n_non_dominated(self) -> int:
        return len(self.non_dominated)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready content (without the table)."""
        return {
            "summary_version": SUMMARY_VERSION,
            "info": self.info.to_dict(),
            "n_trajectories": self.n_trajectories,
            "n_steps": self.n_steps,
            "length_min": self.length_min,
            "length_max": self.length_max,
            "length_mean": self.length_mean,
            "n_ended_early": self.n_ended_early,
            "return_min": list(self.return_min),
            "return_max": list(self.return_max),
            "return_mean": list(self.return_mean),
            "non_dominated": list(self.non_dominated),
            "hypervolume": self.hypervolume,
            "reference_point": list(self.reference_point),
            "preference_min": list(self.preference_min),
            "preference_max": list(self.preference_max),
            "preference_bin_edges": list(self.preference_bin_edges),
            "preference_histograms": [list(counts) for counts in self.preference_histograms],
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], table: TrajectoryTable | None = None
    ) -> DatasetSummary:
        if data.get("summary_version") != SUMMARY_VERSION:
            raise ParetoscopeError(
                f"summary version {briefly(data.get('summary_version'))} is not {SUMMARY_VERSION}"
            )

        def floats(key: str) -> tuple[float, ...]:
            return tuple(float(value) for value in data[key])

        return cls(
            info=DatasetInfo.from_dict(data["info"]),
            n_trajectories=int(data["n_trajectories"]),
            n_steps=int(data["n_steps"]),
            length_min=int(data["length_min"]),
            length_max=int(data["length_max"]),
            length_mean=float(data["length_mean"]),
            n_ended_early=int(data["n_ended_early"]),
            return_min=floats("return_min"),
            return_max=floats("return_max"),
            return_mean=floats("return_mean"),
            non_dominated=tuple(int(index) for index in data["non_dominated"]),
            hypervolume=float(data["hypervolume"]),
            reference_point=floats("reference_point"),
            preference_min=floats("preference_min"),
            preference_max=floats("preference_max"),
            preference_bin_edges=floats("preference_bin_edges"),
            preference_histograms=tuple(
                tuple(int(count) for count in counts) for counts in data["preference_histograms"]
            ),
            table=table,
        )

    def with_table(self, table: TrajectoryTable) -> DatasetSummary:
        return DatasetSummary.from_dict(self.to_dict(), table=table)


def summarize(
    table: TrajectoryTable, info: DatasetInfo, bins: int = PREFERENCE_BINS
) -> DatasetSummary:
    """The dataset summary of `table`; hypervolume against the env's reference point."""
    from paretoscope.metrics import hypervolume, non_dominated

    if len(table) == 0:
        raise ParetoscopeError(f"{info.named}: the dataset holds no trajectories")
    reference_point = tuple(float(value) for value in info.spec.reference_point)
    returns = table.returns
    front_mask = non_dominated(returns)
    front_indices = np.flatnonzero(front_mask)
    edges = np.linspace(0.0, 1.0, bins + 1)
    histograms = tuple(
        tuple(int(count) for count in np.histogram(table.preferences[:, objective], bins=edges)[0])
        for objective in range(info.n_obj)
    )
    return DatasetSummary(
        info=info,
        n_trajectories=len(table),
        n_steps=int(table.lengths.sum()),
        length_min=int(table.lengths.min()),
        length_max=int(table.lengths.max()),
        length_mean=float(table.lengths.mean()),
        n_ended_early=int(table.ended_early.sum()),
        return_min=tuple(float(value) for value in returns.min(axis=0)),
        return_max=tuple(float(value) for value in returns.max(axis=0)),
        return_mean=tuple(float(value) for value in returns.mean(axis=0)),
        non_dominated=tuple(int(index) for index in front_indices),
        hypervolume=float(hypervolume(returns[front_indices], reference_point)),
        reference_point=reference_point,
        preference_min=tuple(float(value) for value in table.preferences.min(axis=0)),
        preference_max=tuple(float(value) for value in table.preferences.max(axis=0)),
        preference_bin_edges=tuple(float(edge) for edge in edges),
        preference_histograms=histograms,
        table=table,
    )


def summarize_trajectories(trajectories: Trajectories) -> DatasetSummary:
    """`summarize` for in-memory or memory-mapped `Trajectories`."""
    return summarize(TrajectoryTable.from_trajectories(trajectories), trajectories.info)
