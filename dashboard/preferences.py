"""Preference vectors in the dashboard: snapping to the sweep grid, keeping sliders on the
simplex, and reading/writing vectors in the URL. Pure functions, no Streamlit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paretoscope.errors import ParetoscopeError


def uniform(n_obj: int) -> np.ndarray:
    return np.full(n_obj, 1.0 / n_obj)


def normalise(weights: Sequence[float] | np.ndarray) -> np.ndarray:
    """Non-negative `weights` scaled to sum to 1 (all zero: the uniform preference)."""
    values = np.clip(np.asarray(weights, dtype=np.float64), 0.0, None)
    largest = values.max() if values.size else 0.0
    if not np.isfinite(largest) or largest <= 0:
        return uniform(len(values))
    scaled = values / largest  # first, so that huge weights (1e308) cannot overflow the sum
    return scaled / scaled.sum()


def snap(preference: Sequence[float] | np.ndarray, granularity: int) -> np.ndarray:
    """The point of the grid of multiples of 1/granularity on the simplex nearest to
    `preference` (largest-remainder rounding, so the result stays on the simplex)."""
    if granularity < 1:
        raise ParetoscopeError(f"granularity: expected >= 1, got {granularity}")
    values = normalise(preference) * granularity
    floors = np.floor(values + 1e-9)
    missing = int(round(granularity - floors.sum()))
    if missing > 0:
        order = np.argsort(-(values - floors), kind="stable")
        floors[order[:missing]] += 1
    return floors / granularity


def rebalance(current: Sequence[float] | np.ndarray, changed: int, new_value: float) -> np.ndarray:
    """Set entry `changed` to `new_value` and scale the others to keep the sum at 1.

    The others keep their proportions; if they were all zero they share the rest equally.
    """
    values = np.asarray(current, dtype=np.float64).copy()
    n_obj = len(values)
    new_value = float(np.clip(new_value, 0.0, 1.0))
    others = [index for index in range(n_obj) if index != changed]
    rest = 1.0 - new_value
    other_total = values[others].sum()
    if other_total > 1e-12:
        values[others] = values[others] / other_total * rest
    else:
        values[others] = rest / len(others)
    values[changed] = new_value
    return values


def format_vector(values: Sequence[float] | np.ndarray, digits: int = 4) -> str:
    """A compact, URL-friendly text form: ``0.3,0.7``."""
    return ",".join(f"{float(value):.{digits}g}" for value in values)


def parse_vector(text: str | None, n_obj: int, name: str = "vector") -> np.ndarray | None:
    """`text` (``0.3,0.7``) as n_obj finite floats; None for empty text; ParetoscopeError
    for anything else."""
    if text is None or not str(text).strip():
        return None
    try:
        values = np.array([float(part) for part in str(text).split(",")], dtype=np.float64)
    except ValueError:
        raise ParetoscopeError(
            f"{name}: expected {n_obj} comma-separated numbers, got {text!r}"
        ) from None
    if values.shape != (n_obj,) or not np.isfinite(values).all():
        raise ParetoscopeError(f"{name}: expected {n_obj} finite numbers, got {text!r}")
    return values


def parse_vector_or_none(text: str | None, n_obj: int) -> np.ndarray | None:
    """`text` as n_obj finite floats, or None when it is absent or not that."""
    try:
        return parse_vector(text, n_obj)
    except ParetoscopeError:
        return None


def parse_preference(text: str | None, n_obj: int, granularity: int) -> np.ndarray | None:
    """A preference from the URL, normalised and snapped to the grid; None if absent or bad."""
    values = parse_vector_or_none(text, n_obj)
    if values is None or (values < 0).any() or not (values > 0).any():
        return None
    return snap(values, granularity)


def extremes(n_obj: int) -> tuple[np.ndarray, np.ndarray]:
    """The two ends of a tour: all weight on the first objective, then on the last."""
    start = np.zeros(n_obj)
    start[0] = 1.0
    end = np.zeros(n_obj)
    end[-1] = 1.0
    return start, end


def tour_path(n_obj: int, stops: int) -> np.ndarray:
    """`stops` preferences evenly spaced from e_first to e_last (a straight line on the simplex)."""
    if stops < 2:
        raise ParetoscopeError(f"stops: expected at least 2, got {stops}")
    start, end = extremes(n_obj)
    fractions = np.linspace(0.0, 1.0, stops)[:, None]
    return (1.0 - fractions) * start + fractions * end


def nearest_row(preferences: np.ndarray, preference: Sequence[float] | np.ndarray) -> int | None:
    """Index of the row of `preferences` nearest to `preference` (None when there are none)."""
    table = np.asarray(preferences, dtype=np.float64)
    if table.size == 0:
        return None
    distances = np.abs(table - np.asarray(preference, dtype=np.float64)[None, :]).sum(axis=1)
    return int(np.argmin(distances))
