"""The discount factor γ: one check for everything that takes one (rollouts, sweeps, known
fronts), so a value refused in one place is refused everywhere."""

from __future__ import annotations

import math
import numbers

from paretoscope.errors import ParetoscopeError


def check_gamma(gamma: object) -> float:
    """A discount factor: a finite real number in (0, 1] (gamma 0 would discount everything
    after the first reward away, and no front here is defined for it)."""
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise ParetoscopeError(f"gamma: expected a number in (0, 1], got {gamma!r}")
    value = float(gamma)
    if not (math.isfinite(value) and 0.0 < value <= 1.0):
        raise ParetoscopeError(f"gamma: expected a number in (0, 1], got {value}")
    return value
