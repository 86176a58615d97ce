"""Axes fitted to a front: ranges that hold its points with a margin, not the hypervolume's
reference point, which often lies far below them (HalfCheetah's and Hopper's (−100, −100))
and would squeeze the whole front into a corner. A reference point off the axes is named by an
arrow at the edge of the plot, pointing where it lies; a page may ask for it on the axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.labels import format_values

# Of the points' span, on each side: no point sits on an axis.
MARGIN = 0.08


def fitted_ranges(
    points: Sequence[np.ndarray],
    axes: Sequence[int],
    reference_point: Sequence[float] | np.ndarray | None = None,
    include_reference: bool = False,
    margin: float = MARGIN,
) -> list[list[float]] | None:
    """One [low, high] range per entry of `axes` covering every row of `points` (arrays of full
    objective vectors) widened by `margin` of the span on each side (a flat axis: by a margin
    of its magnitude, at least of 1), and the reference point too when `include_reference`.
    None when there are no finite points to fit."""
    columns = [int(axis) for axis in axes]
    arrays = [np.asarray(block, dtype=np.float64) for block in points]
    blocks = [block.reshape(-1, block.shape[-1])[:, columns] for block in arrays if block.size]
    if include_reference and reference_point is not None:
        blocks.append(np.asarray(reference_point, dtype=np.float64)[None, columns])
    if not blocks:
        return None
    stacked = np.vstack(blocks)
    stacked = stacked[np.isfinite(stacked).all(axis=1)]
    if not len(stacked):
        return None
    low, high = stacked.min(axis=0), stacked.max(axis=0)
    span = np.where(high > low, high - low, np.maximum(np.abs(high), 1.0))
    return [
        [float(a), float(b)] for a, b in zip(low - margin * span, high + margin * span, strict=True)
    ]


def off_axis_reference(
    reference_point: Sequence[float] | np.ndarray,
    axes: Sequence[int],
    ranges: Sequence[Sequence[float]],
) -> go.Scatter | None:
    """For a reference point outside the 2-D `ranges`: an arrow just inside the edge it lies
    beyond, pointing at it, named in the legend and its hover; None when it is on the axes.
    A trace, not an annotation: it belongs to the front, which the page draws once."""
    reference = np.asarray(reference_point, dtype=np.float64)
    shown = reference[[int(axes[0]), int(axes[1])]]
    low = np.array([ranges[0][0], ranges[1][0]], dtype=np.float64)
    high = np.array([ranges[0][1], ranges[1][1]], dtype=np.float64)
    side = np.where(shown < low, -1, np.where(shown > high, 1, 0))
    if not side.any():
        return None
    # Inside the plot by 2% of the axis, so the whole arrow shows.
    inset = (high - low) * 0.02
    tip = np.clip(shown, low + inset, high - inset)
    # The arrow symbol points up; plotly turns it clockwise by `angle` degrees.
    angle = float(np.degrees(np.arctan2(side[0], side[1])))
    where = format_values(shown, 4)
    return go.Scatter(
        x=[float(tip[0])],
        y=[float(tip[1])],
        mode="markers",
        name=f"reference point ({where}), off the axes",
        marker={"symbol": "arrow", "size": 16, "angle": angle, "color": "black"},
        hovertemplate=f"the reference point ({where}) lies this way<extra></extra>",
    )
