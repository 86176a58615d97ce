"""An episode's frame steps as a cluster's stream sends them: one array per field, not five
small arrays per step.

A live episode's first frame after its simulation ends carries every step (`LiveFrame.episode`,
its returns known before they show). Pickled as they are, 500 HalfCheetah steps are 2,500
arrays, each with its own buffer to find and wrap, and unpickling them was half of a relaying
server's own work per frame. Packed, they travel as a few stacked arrays and come back, on the
other side, as the same tuple of steps (each step's arrays are rows of the stacked ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # mujoco comes with it: imported where the steps are made or unpacked
    from paretoscope.rollout import StepRecord

ARRAYS = ("observation", "action", "reward", "cumulative_return", "remaining_target")
SCALARS = ("step", "done", "terminated", "diverged")
LIVE = ("model", "data", "env")  # a step's live simulation: never sent


class _PackedSteps(tuple):  # of StepRecord
    """A tuple of steps that pickles as columns and unpickles as a plain tuple of steps."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        kind = type(self[0])
        arrays = tuple(np.stack([getattr(step, name) for step in self]) for name in ARRAYS)
        scalars = tuple(np.array([getattr(step, name) for step in self]) for name in SCALARS)
        return _unpacked, (kind, arrays, scalars)


def packed(steps: Sequence[StepRecord]) -> tuple[StepRecord, ...]:
    """`steps` as a tuple that pickles by columns; a plain tuple where they cannot be packed
    (none, a live simulation attached, arrays of other shapes or types from step to step)."""
    if not steps or not _packable(steps):
        return tuple(steps)
    return _PackedSteps(steps)


def _packable(steps: Sequence[StepRecord]) -> bool:
    first = steps[0]
    for step in steps:
        if type(step) is not type(first) or any(getattr(step, name) is not None for name in LIVE):
            return False
        for name in ARRAYS:
            array, expected = getattr(step, name), getattr(first, name)
            if not isinstance(array, np.ndarray) or (array.shape, array.dtype) != (
                expected.shape,
                expected.dtype,
            ):
                return False
    return True


def _unpacked(
    kind: type[StepRecord], arrays: tuple[np.ndarray, ...], scalars: tuple[np.ndarray, ...]
) -> tuple[StepRecord, ...]:
    count = len(scalars[0])
    columns = [
        *(list(column) for column in arrays),  # rows: views of the stacked arrays
        *(column.tolist() for column in scalars),  # Python's own int and bool, as sent
    ]
    names = (*ARRAYS, *SCALARS)
    return tuple(
        kind(**{name: column[row] for name, column in zip(names, columns, strict=True)})
        for row in range(count)
    )
