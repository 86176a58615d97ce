"""The settings of a preference sweep (`paretoscope.evaluate.sweep`, `paretoscope evaluate`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from paretoscope.errors import ParetoscopeError
from paretoscope.settings.fields import check_bounds, frozen, setting
from paretoscope.settings.limits import BATCH_SIZES, EPISODES, HORIZONS, MAX_SEED, SEEDS

Backend = Literal["local", "ray"]
BACKENDS: tuple[Backend, ...] = ("local", "ray")
# The grid of a sweep that names neither preferences nor a granularity: multiples of 1/10.
DEFAULT_GRANULARITY = 10

Rows = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class SweepSettings:
    """A sweep: its preferences (the grid of `granularity`, or given `preferences` with their
    targets instead), seeds, episode length and discount, and where its batches run. Same
    settings give the same table."""

    granularity: int | None = setting(None, "grid step 1/G (default 10)")
    preferences: Rows | None = setting(
        None, "the preferences (M, n_obj) to sweep instead of a grid", command_line=False
    )
    targets: Rows | None = setting(
        None,
        "an initial target per preference (M, n_obj) instead of the agent's own",
        command_line=False,
    )
    episodes: int = setting(1, "seeds per preference (default 1)", bounds=EPISODES)
    seed: int = setting(
        0,
        "first episode seed: seeds S..S+E-1 (default 0; e.g. held-out seeds for checks)",
        bounds=SEEDS,
    )
    seeds: tuple[int, ...] | None = setting(
        None, "the episode seeds (instead of the first seed and the count)", command_line=False
    )
    gamma: float = setting(1.0, "discount of the returns, in (0, 1] (default 1: undiscounted)")
    horizon: int | None = setting(None, "steps per episode (default: env)", bounds=HORIZONS)
    backend: Backend = setting(
        "local", "where batches run: local processes, or a Ray cluster (default local)"
    )
    workers: int | None = setting(None, "local processes (default: cores)")
    address: str | None = setting(None, "Ray cluster address (ray backend)")
    batch_size: int = setting(
        64,
        "episodes stepped in lockstep with one agent call per step (default 64); 1 makes "
        "every episode replay exactly as a single rollout, whatever the agent's arithmetic",
        bounds=BATCH_SIZES,
    )

    def __post_init__(self) -> None:
        for name in ("preferences", "targets", "seeds"):
            object.__setattr__(self, name, frozen(getattr(self, name)))
        if self.preferences is not None and self.granularity is not None:
            raise ParetoscopeError("give either preferences or granularity (exactly one), not both")
        if self.granularity is not None and self.granularity < 1:
            raise ParetoscopeError(f"granularity: expected at least 1, got {self.granularity}")
        if self.seeds is None and self.episodes < 1:
            raise ParetoscopeError(f"episodes: expected at least 1, got {self.episodes}")
        if self.seeds is not None and not self.seeds:
            raise ParetoscopeError("seeds: expected at least one seed")
        if self.backend not in BACKENDS:
            raise ParetoscopeError(f"backend: expected 'local' or 'ray', got {self.backend!r}")
        if self.workers is not None and self.workers < 1:
            raise ParetoscopeError(f"workers: expected at least 1, got {self.workers}")
        check_bounds(self)
        if self.seeds is not None:
            if len(self.seeds) > EPISODES.high:
                raise ParetoscopeError(
                    f"seeds: expected at most {EPISODES.high} seeds, got {len(self.seeds)}"
                )
            for seed in self.seeds:
                problem = SEEDS.problem(int(seed))
                if problem is not None:
                    raise ParetoscopeError(f"seeds: {problem}")
        elif self.seed + self.episodes - 1 > MAX_SEED:
            raise ParetoscopeError(
                f"seed: the seeds S..S+E-1 end past {MAX_SEED}, got S={self.seed}, "
                f"E={self.episodes}"
            )

    @property
    def grid(self) -> int | None:
        """The grid's granularity (None when the sweep is over given preferences)."""
        if self.preferences is not None:
            return None
        return DEFAULT_GRANULARITY if self.granularity is None else self.granularity

    @property
    def episode_seeds(self) -> tuple[int, ...]:
        """The seeds every preference is played with."""
        if self.seeds is not None:
            return tuple(int(seed) for seed in self.seeds)
        return tuple(range(self.seed, self.seed + self.episodes))
