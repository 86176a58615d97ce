"""Preference (weight) vectors on the simplex: a deterministic grid and uniform random draws.

Preference sweeps, EUM and MUL all need a set of weight vectors with non-negative entries
summing to 1; these two functions are the only places that make them. `check_preference` and
`check_vector` check one vector a user gave (`paretoscope render --preference/--target`,
`paretoscope.record`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics._validation import FloatArray, as_count

# A grid larger than this is almost surely a typo (e.g. 10 objectives at granularity 100).
MAX_GRID_ROWS = 1_000_000


def preference_grid(n_obj: int, granularity: int) -> FloatArray:
    """Every vector of multiples of 1/granularity summing to 1, shape (M, n_obj).

    M = C(granularity + n_obj - 1, n_obj - 1): granularity + 1 rows for 2 objectives,
    (g + 1)(g + 2) / 2 for 3. Rows come in lexicographic order of their entries, so the first
    row is (0, ..., 0, 1) and the last (1, 0, ..., 0); entries are exactly k / granularity.
    """
    n_obj = as_count("n_obj", n_obj, minimum=1)
    granularity = as_count("granularity", granularity, minimum=1)
    rows = math.comb(granularity + n_obj - 1, n_obj - 1)
    if rows > MAX_GRID_ROWS:
        raise ParetoscopeError(
            f"granularity: {granularity} with {n_obj} objectives gives {rows} preference "
            f"vectors; expected at most {MAX_GRID_ROWS}"
        )
    # Stars and bars: n_obj - 1 bar positions among granularity + n_obj - 1 slots fix the
    # counts between bars; lexicographic bar positions give lexicographic counts.
    slots = granularity + n_obj - 1
    counts = np.empty((rows, n_obj), dtype=np.int64)
    for row, bars in enumerate(itertools.combinations(range(slots), n_obj - 1)):
        edges = (-1, *bars, slots)
        counts[row] = np.diff(edges) - 1
    return counts / granularity


def random_preferences(n_obj: int, count: int, seed: int | None = None) -> FloatArray:
    """`count` preference vectors drawn uniformly over the simplex (flat Dirichlet), (count, n_obj).

    Uniform over the simplex means no region of trade-offs is favoured; the same seed gives
    the same vectors. `count` may be 0 (an empty (0, n_obj) array).
    """
    n_obj = as_count("n_obj", n_obj, minimum=1)
    count = as_count("count", count, minimum=0)
    if seed is not None:
        seed = as_count("seed", seed, minimum=0)
    generator = np.random.default_rng(seed)
    return generator.dirichlet(np.ones(n_obj), size=count)


def check_vector(
    values: Sequence[float] | np.ndarray,
    length: int,
    name: str = "vector",
    shown: str | None = None,
) -> list[float]:
    """`values` as `length` finite floats, or a ParetoscopeError naming `name` (and quoting
    `shown`, the user's own text, when given)."""
    quoted = shown if shown is not None else _quoted(values)
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"{name}: expected {length} finite numbers, got {quoted}") from None
    if array.shape != (length,) or not np.isfinite(array).all():
        raise ParetoscopeError(f"{name}: expected {length} finite numbers, got {quoted}")
    return [float(value) for value in array]


def check_preference(
    values: Sequence[float] | np.ndarray,
    n_obj: int,
    name: str = "preference",
    shown: str | None = None,
) -> list[float]:
    """One preference: `n_obj` non-negative weights summing to 1 (within 1e-6), else a
    ParetoscopeError naming `name`. Nothing is normalised: a preference that does not sum to 1
    is most likely a typo (0.3, 0.8), and guessing which weight was meant would hide it."""
    weights = check_vector(values, n_obj, name, shown)
    if any(weight < 0 for weight in weights) or not math.isclose(sum(weights), 1.0, abs_tol=1e-6):
        quoted = shown if shown is not None else _quoted(values)
        raise ParetoscopeError(
            f"{name}: expected {n_obj} non-negative weights summing to 1, got {quoted}"
        )
    return weights


def _quoted(values: object) -> str:
    """A user's value as a message quotes it: short, whatever it is."""
    text = repr(list(values)) if isinstance(values, tuple | np.ndarray) else repr(values)
    return text if len(text) <= 80 else text[:77] + "..."
