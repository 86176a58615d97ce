"""The spread across seeds as the pages need it: `paretoscope.metrics`' attainment surfaces, EAF
difference and bootstrap, cached by plain values (arrays, tuples), and the choice of equally
many seeds for a difference. The computing is core's; this module only caches and shapes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from paretoscope.metrics import (
    AttainmentSurfaces,
    EafDifference,
    Interval,
    attainment_surfaces,
    bootstrap_front_metrics,
    eaf_difference,
)

# The Compare table's intervals: 95 %, 1000 resamples, a fixed random seed (reproducible).
CI_LEVEL = 0.95
CI_RESAMPLES = 1000
CI_RANDOM_SEED = 0


def seed_count(seeds: np.ndarray) -> int:
    """How many distinct seeds a sweep's episodes have."""
    return len(np.unique(np.asarray(seeds)))


@st.cache_data(show_spinner=False, max_entries=128)
def front_intervals(
    preferences: np.ndarray,
    returns: np.ndarray,
    seeds: np.ndarray,
    reference_point: tuple[float, ...],
) -> dict[str, Interval]:
    """Bootstrapped CI_LEVEL intervals of the mean front's hypervolume and expected utility
    (over the sweep's own preferences), resampling the seeds."""
    return bootstrap_front_metrics(
        preferences,
        returns,
        seeds,
        reference_point,
        resamples=CI_RESAMPLES,
        level=CI_LEVEL,
        random_seed=CI_RANDOM_SEED,
    )


@st.cache_data(show_spinner=False, max_entries=64)
def surfaces(points: np.ndarray, seeds: np.ndarray) -> AttainmentSurfaces:
    """The best, median and worst attainment surfaces of the seeds' runs."""
    return attainment_surfaces(points, seeds)


@st.cache_data(show_spinner=False, max_entries=64)
def difference(
    points_a: np.ndarray, seeds_a: np.ndarray, points_b: np.ndarray, seeds_b: np.ndarray
) -> EafDifference:
    """Where A's EAF exceeds B's and the reverse (two objectives, as many seeds a side)."""
    return eaf_difference(points_a, seeds_a, points_b, seeds_b)


def first_seeds(seeds: np.ndarray, count: int) -> np.ndarray:
    """A mask of the episodes of the `count` smallest seeds."""
    kept = np.unique(np.asarray(seeds))[:count]
    return np.isin(seeds, kept)


def equal_runs(
    seeds_a: np.ndarray, seeds_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, Sequence[int]]:
    """Masks keeping as many seeds on each side (each side's smallest ones), and the counts
    each side had: an EAF difference compares counts of runs."""
    counts = (seed_count(seeds_a), seed_count(seeds_b))
    common = min(counts)
    return first_seeds(seeds_a, common), first_seeds(seeds_b, common), counts
