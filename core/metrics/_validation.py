"""Input checks shared by the metrics: one place that turns bad arrays into ParetoscopeError.

Every public metric calls these first, so a NaN, a ragged list or a wrong reference point is
reported with the argument's name and the expected shape, never deep inside numpy or moocore.
"""

from __future__ import annotations

import operator

import numpy as np
import numpy.typing as npt

from paretoscope.errors import ParetoscopeError

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def _to_float_array(name: str, value: object, expected: str) -> FloatArray:
    """Read `value` as a float64 array, or explain what `name` should have been."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ParetoscopeError(
            f"{name}: expected numbers of shape {expected}, got a {type(value).__name__} "
            f"that cannot be read as numbers ({error})"
        ) from None


def _require_finite(name: str, array: FloatArray) -> None:
    """Raise when `array` holds NaN or infinity, naming the first bad row."""
    finite = np.isfinite(array)
    if finite.all():
        return
    bad = np.argwhere(~finite)[0]
    where = f"row {bad[0]}" if array.ndim == 2 else f"index {bad[0]}"
    raise ParetoscopeError(f"{name}: expected finite numbers, found {array[tuple(bad)]} at {where}")


def as_point_set(name: str, value: object, n_obj: int | None = None) -> FloatArray:
    """Validate a set of objective vectors: a finite float (N, n_obj) array.

    An empty input (`[]`, or shape (0, n_obj)) is an empty set; when `n_obj` is known an empty
    1-D input becomes shape (0, n_obj).
    """
    expected = f"(N, {n_obj if n_obj is not None else 'n_obj'})"
    array = _to_float_array(name, value, expected)
    if array.ndim == 1 and array.size == 0:
        array = array.reshape(0, n_obj if n_obj is not None else 0)
    if array.ndim != 2:
        raise ParetoscopeError(
            f"{name}: expected a 2-D array of shape {expected}, got shape {array.shape}"
        )
    if array.shape[0] == 0 and array.shape[1] == 0 and n_obj is not None:
        array = array.reshape(0, n_obj)
    if array.shape[0] > 0 and array.shape[1] == 0:
        raise ParetoscopeError(f"{name}: expected at least one objective, got shape {array.shape}")
    if n_obj is not None and array.shape[1] != n_obj:
        raise ParetoscopeError(
            f"{name}: expected shape {expected}, got {array.shape[1]} objectives "
            f"(shape {array.shape})"
        )
    _require_finite(name, array)
    return array


def as_vector(name: str, value: object, length: int | None = None) -> FloatArray:
    """Validate one objective vector (e.g. a reference point): a finite float 1-D array."""
    expected = f"({length if length is not None else 'n_obj'},)"
    array = _to_float_array(name, value, expected)
    if array.ndim != 1 or array.size == 0 or (length is not None and array.size != length):
        raise ParetoscopeError(f"{name}: expected a vector of shape {expected}, got {array.shape}")
    _require_finite(name, array)
    return array


def require_non_empty(name: str, array: FloatArray, why: str) -> None:
    """Raise when a point set that a metric cannot do without is empty."""
    if array.shape[0] == 0:
        raise ParetoscopeError(f"{name}: expected at least one row, got none ({why})")


def require_non_negative(name: str, array: FloatArray) -> None:
    """Raise when weights or preferences hold a negative entry."""
    if (array < 0).any():
        bad = np.argwhere(array < 0)[0]
        raise ParetoscopeError(
            f"{name}: expected non-negative values, found {array[tuple(bad)]} at row {bad[0]}"
        )


def as_count(name: str, value: object, minimum: int) -> int:
    """Validate an integer argument (a number of objectives, a granularity, a count)."""
    if isinstance(value, bool):
        raise ParetoscopeError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ParetoscopeError(f"{name}: expected an integer >= {minimum}, got {value!r}") from None
    if count < minimum:
        raise ParetoscopeError(f"{name}: expected an integer >= {minimum}, got {count}")
    return count
