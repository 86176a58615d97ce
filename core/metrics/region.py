"""The region a two-objective front dominates, as shapes to draw (maximisation).

`dominated_region` is the closed polygon between the front and a reference point (its area is
the hypervolume); `dominated_staircase` is the front's boundary line, stopped at a floor below
and left of every point (an attainment surface drawn as a staircase).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paretoscope.metrics.dominance import non_dominated


def dominated_region(points: np.ndarray, reference_point: Sequence[float]) -> np.ndarray:
    """The 2-D region dominated by `points` above `reference_point`, as a closed polygon (K, 2).

    Its area is the hypervolume; empty (0, 2) when no point is above the reference point.
    """
    reference = np.asarray(reference_point, dtype=np.float64)
    values = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    above = values[(values > reference).all(axis=1)]
    if len(above) == 0:
        return np.zeros((0, 2))
    front = above[non_dominated(above)]
    front = np.unique(front, axis=0)
    front = front[np.argsort(-front[:, 0])]  # x descending, so y ascends along the staircase
    outline = [(front[0][0], reference[1])]
    for index, (x, y) in enumerate(front):
        outline.append((x, y))
        next_x = front[index + 1][0] if index + 1 < len(front) else reference[0]
        outline.append((next_x, y))
    outline.append((reference[0], reference[1]))
    outline.append(outline[0])
    return np.asarray(outline, dtype=np.float64)


def dominated_staircase(points: np.ndarray, floor: Sequence[float]) -> np.ndarray:
    """The boundary of the region that (2-D, maximised) `points` dominate, as a line (K, 2):
    from the left edge at the top point's height, down each step, to the bottom edge at the
    right-most point; `floor` is where the edges stop (below and left of every point)."""
    values = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(values) == 0:
        return np.zeros((0, 2))
    front = np.unique(values[non_dominated(values)], axis=0)  # x ascending, so y descending
    line = [(floor[0], front[0][1])]
    for index, (x, y) in enumerate(front):
        line.append((x, y))
        below = front[index + 1][1] if index + 1 < len(front) else floor[1]
        line.append((x, below))
    return np.asarray(line, dtype=np.float64)
