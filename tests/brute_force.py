"""Definitions computed the slow, obvious way, for tests to check the library against."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def hypervolume_2d(points: Iterable[Sequence[float]], reference: Sequence[float]) -> float:
    """The area dominated by `points` (both objectives maximised) above `reference`: the union
    of the boxes between each point and the reference, swept from the largest first objective
    down, each point adding the strip it rises above the ones before."""
    low_x, low_y = float(reference[0]), float(reference[1])
    inside = [(float(x), float(y)) for x, y in points if x > low_x and y > low_y]
    area, top = 0.0, low_y
    for x, y in sorted(inside, reverse=True):
        if y > top:
            area += (x - low_x) * (y - top)
            top = y
    return area
