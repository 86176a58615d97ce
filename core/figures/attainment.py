"""Figures of the spread across seeds: attainment surfaces over the episode cloud, and where
one agent's EAF beats another's."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.labels import plotly_text
from paretoscope.figures.style import CLOUD_COLOUR, PALETTE
from paretoscope.metrics import (
    AttainmentSurfaces,
    EafDifference,
    dominated_staircase,
    non_dominated,
)
from paretoscope.metrics.attainment import median_level

# Line style per attainment level: the median solid, best and worst dashed.
LEVEL_STYLES = {
    "best": {"color": "#2ca02c", "dash": "dash"},
    "median": {"color": "#1f77b4", "dash": "solid"},
    "worst": {"color": "#d62728", "dash": "dash"},
}


def _on_axes(surface: np.ndarray, n_obj: int, axes: tuple[int, int]) -> np.ndarray:
    """A surface's points on the two shown objectives (already there when it has 2 columns
    and the env more); a projection of a higher-dimensional surface is filtered to its front."""
    if surface.shape[1] == n_obj:
        projected = surface[:, list(axes)]
        return projected[non_dominated(projected)] if n_obj > 2 else projected
    if surface.shape[1] == 2:
        return surface
    raise ValueError(f"surface: expected 2 or {n_obj} columns, got {surface.shape[1]}")


def _floor(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """A point a little below and left of every finite point shown."""
    finite = [block[np.isfinite(block).all(axis=1)] for block in blocks if len(block)]
    stacked = np.vstack(finite) if finite else np.zeros((0, 2))
    if len(stacked) == 0:
        return np.zeros(2)
    low, high = stacked.min(axis=0), stacked.max(axis=0)
    margin = np.where(high > low, (high - low) * 0.05, 1.0)
    return low - margin


def attainment_figure(
    objective_names: Sequence[str],
    surfaces: AttainmentSurfaces,
    axes: Sequence[int] = (0, 1),
    episode_cloud: np.ndarray | None = None,
    cloud_seeds: np.ndarray | None = None,
    height: int = 440,
) -> go.Figure:
    """The best, median and worst attainment surfaces as staircases (maximisation) on two
    objectives, over the faint cloud of every episode's return (with its seed on hover).

    `surfaces` has either all objectives (projected here onto `axes`) or exactly the two on
    `axes`; `episode_cloud` (N, n_obj) has all objectives."""
    a, b = int(axes[0]), int(axes[1])
    n_obj = len(objective_names)
    shown = {
        level: _on_axes(np.asarray(surfaces.surfaces[level], dtype=np.float64), n_obj, (a, b))
        for level in surfaces.levels
    }
    cloud = None if episode_cloud is None else np.asarray(episode_cloud)[:, [a, b]]
    floor = _floor([*shown.values(), *([] if cloud is None else [cloud])])
    figure = go.Figure()
    if cloud is not None and len(cloud):
        figure.add_trace(
            go.Scatter(
                x=cloud[:, 0],
                y=cloud[:, 1],
                mode="markers",
                name="episodes (every seed)",
                marker={"color": CLOUD_COLOUR, "size": 6},
                hovertext=None
                if cloud_seeds is None
                else [f"seed {int(seed)}" for seed in np.asarray(cloud_seeds)],
                hovertemplate="%{x:.4g}, %{y:.4g}<br>%{hovertext}<extra>episode</extra>"
                if cloud_seeds is not None
                else "%{x:.4g}, %{y:.4g}<extra>episode</extra>",
            )
        )
    for level in surfaces.levels:
        line = dominated_staircase(shown[level], floor)
        if len(line) == 0:
            continue
        figure.add_trace(
            go.Scatter(
                x=line[:, 0],
                y=line[:, 1],
                mode="lines",
                name=_level_name(level, surfaces.runs),
                line={**LEVEL_STYLES.get(level, {}), "width": 2},
            )
        )
    return _laid_out(figure, objective_names[a], objective_names[b], height)


def _laid_out(figure: go.Figure, x_name: str, y_name: str, height: int) -> go.Figure:
    """Both figures' frame: returns of two objectives across and up, the legend below."""
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=f"{x_name} return",
        yaxis_title=f"{y_name} return",
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def _level_name(level: str, runs: int) -> str:
    needed = {"best": 1, "median": median_level(runs), "worst": runs}.get(level)
    return level if needed is None else f"{level} (attained by ≥ {needed} of {runs} seeds)"


def _boxes_trace(
    boxes: np.ndarray, floor: np.ndarray, colour: str, name: str, opacity: float
) -> go.Scatter:
    """Rectangles (x_low, y_low, x_high, y_high) as one filled trace, -inf clipped at `floor`."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for x_low, y_low, x_high, y_high in boxes[:, :4]:
        x_low, y_low = max(x_low, floor[0]), max(y_low, floor[1])
        xs += [x_low, x_high, x_high, x_low, x_low, None]
        ys += [y_low, y_low, y_high, y_high, y_low, None]
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines",
        fill="toself",
        fillcolor=colour,
        opacity=opacity,
        line={"width": 0, "color": colour},
        name=name,
        hoverinfo="name",
    )


def eaf_difference_figure(
    objective_names: Sequence[str],
    difference: EafDifference,
    names: tuple[str, str] = ("A", "B"),
    height: int = 440,
) -> go.Figure:
    """Where each agent's EAF exceeds the other's on two objectives: A's regions in its
    colour, B's in another, darker where the difference (a fraction of the runs) is larger.

    `objective_names` are the two objectives of the difference (x, then y)."""
    figure = go.Figure()
    finite = [
        np.column_stack([boxes[:, [0, 2]].ravel(), boxes[:, [1, 3]].ravel()])
        for boxes in (difference.a_better, difference.b_better)
    ]
    floor = _floor(finite)
    for boxes, colour, name in (
        (difference.a_better, PALETTE[0], names[0]),
        (difference.b_better, PALETTE[1], names[1]),
    ):
        for value in np.unique(np.round(boxes[:, 4], 9)):
            chosen = boxes[np.isclose(boxes[:, 4], value)]
            figure.add_trace(
                _boxes_trace(
                    chosen,
                    floor,
                    colour,
                    f"{plotly_text(name)} better by {value:.0%} of runs",
                    opacity=0.2 + 0.7 * float(value),
                )
            )
    if not figure.data:
        figure.add_annotation(
            text="The two EAFs are equal: neither agent attains any region more often.",
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0.5,
            y=0.5,
        )
    return _laid_out(figure, objective_names[0], objective_names[1], height)
