"""Checks of the public API's whole-number arguments (seeds, counts), so that a notebook's
typo (``episodes=1.5``, ``seed=True``) is one clear message, not a failure deep in a rollout.
(`paretoscope.metrics._validation.as_count` is the metrics' own, worded for their bounds.)"""

from __future__ import annotations

import operator

from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly


def integer(name: str, value: object) -> int:
    """`value` as an int (numpy integers too; not bools or floats), else a ParetoscopeError."""
    if isinstance(value, bool):
        raise ParetoscopeError(f"{name}: expected an integer, got {briefly(value)}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ParetoscopeError(f"{name}: expected an integer, got {briefly(value)}") from None


def count(name: str, value: object) -> int:
    """`value` as an int of at least 1, else a ParetoscopeError."""
    number = integer(name, value)
    if number < 1:
        raise ParetoscopeError(f"{name}: expected at least 1, got {number}")
    return number
