"""The discount factor γ: one check for everything that takes one (rollouts, sweeps, known
fronts), so a value refused in one place is refused everywhere."""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

from paretoscope.errors import ParetoscopeError

if TYPE_CHECKING:
    import pandas as pd


def check_gamma(gamma: object) -> float:
    """A discount factor: a finite real number in (0, 1] (gamma 0 would discount everything
    after the first reward away, and no front here is defined for it)."""
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise ParetoscopeError(f"gamma: expected a number in (0, 1], got {gamma!r}")
    value = float(gamma)
    if not (math.isfinite(value) and 0.0 < value <= 1.0):
        raise ParetoscopeError(f"gamma: expected a number in (0, 1], got {value}")
    return value


def table_gamma(table: pd.DataFrame, subject: str, action: str) -> float:
    """The one discount of `table`'s returns: 1 where it has no `gamma` column, no rows, or no
    value (tables stored before discounting). A table that mixes discounts is refused, naming
    `subject` and what to `action` one gamma at a time."""
    if "gamma" not in table.columns or not len(table):
        return 1.0
    gammas = sorted(set(table["gamma"].fillna(1.0).astype(float)))
    if len(gammas) > 1:
        raise ParetoscopeError(f"{subject} mixes discounts {gammas}: {action} one gamma at a time")
    return gammas[0]
