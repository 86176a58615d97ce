"""Figures of a training run: the front at one step with the earlier ones fading behind it,
hypervolume and expected utility over the steps, and several runs' curves together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from paretoscope.figures.labels import plotly_text, point_text
from paretoscope.figures.style import (
    CURRENT_COLOUR,
    PALETTE,
    axis_title,
    reference_marker,
)
from paretoscope.metrics import non_dominated
from paretoscope.runs.fronts import STEP_COLUMN, StepFront
from paretoscope.runs.seeds import CurveSpread

FRONT_COLOUR = PALETTE[0]
# The older fronts' opacity: the newest of them this much, fading linearly to a tenth.
OLDEST_OPACITY = 0.1
NEWEST_OPACITY = 0.55
METRICS = {"hypervolume": "hypervolume", "expected_utility": "expected utility"}


def step_trace_name(step: int, undominated: bool = True) -> str:
    """The legend entry of the front at `step` (its dominated points have their own)."""
    return f"step {step}" + ("" if undominated else " (dominated)")


def fixed_ranges(fronts: Sequence[StepFront], axes: Sequence[int]) -> list[list[float]]:
    """Axis ranges that hold every step's points, padded by 5%: the same for every step, so
    the front is seen to move."""
    stacked = [np.asarray(front.returns, dtype=np.float64)[:, list(axes)] for front in fronts]
    points = np.vstack([block for block in stacked if len(block)] or [np.zeros((1, len(axes)))])
    low, high = points.min(axis=0), points.max(axis=0)
    pad = np.where(high > low, high - low, np.maximum(np.abs(high), 1.0)) * 0.05
    return [[float(a), float(b)] for a, b in zip(low - pad, high + pad, strict=True)]


def evolution_figure(
    objective_names: Sequence[str],
    fronts: Sequence[StepFront],
    step: int,
    axes: Sequence[int] = (0, 1),
    fade: int = 4,
    reference_point: Sequence[float] | None = None,
    height: int = 480,
) -> go.Figure:
    """The mean front of `step` (undominated points filled and joined, dominated ones hollow)
    over the `fade` fronts before it, older ones fainter, on axis ranges fixed across all
    `fronts` (2-D: the objectives `axes`)."""
    a, b = int(axes[0]), int(axes[1])
    ordered = sorted(fronts, key=lambda front: front.step)
    steps = [int(front.step) for front in ordered]
    if step not in steps:
        raise ValueError(f"step {step}: not among the fronts' steps {steps}")
    position = steps.index(step)
    figure = go.Figure()
    older = ordered[max(0, position - fade) : position]
    for age, front in enumerate(reversed(older), start=1):
        returns = np.asarray(front.returns, dtype=np.float64)
        opacity = NEWEST_OPACITY - (NEWEST_OPACITY - OLDEST_OPACITY) * (age - 1) / max(fade - 1, 1)
        figure.add_trace(
            go.Scatter(
                x=returns[:, a],
                y=returns[:, b],
                mode="markers",
                name=step_trace_name(int(front.step)),
                opacity=opacity,
                marker={"size": 8, "color": "#7f7f7f"},
                hovertemplate=f"step {int(front.step)}: %{{x:.4g}}, %{{y:.4g}}<extra></extra>",
            )
        )
    current = ordered[position]
    returns = np.asarray(current.returns, dtype=np.float64)
    preferences = np.asarray(current.preferences, dtype=np.float64)
    mask = non_dominated(returns[:, [a, b]])
    texts = [
        point_text(objective_names, preferences[row], returns[row]) for row in range(len(returns))
    ]
    for undominated in (True, False):
        rows = np.flatnonzero(mask == undominated)
        if undominated:
            rows = rows[np.argsort(returns[rows, a])]  # joined left to right
        if len(rows) == 0:
            continue
        figure.add_trace(
            go.Scatter(
                x=returns[rows, a],
                y=returns[rows, b],
                mode="lines+markers" if undominated else "markers",
                name=step_trace_name(step, undominated),
                # The staircase bounding what the front dominates (maximised objectives).
                line={"color": FRONT_COLOUR, "width": 1.5, "shape": "vh"},
                marker={
                    "size": 11,
                    "color": FRONT_COLOUR,
                    "symbol": "circle" if undominated else "circle-open",
                    "line": {"width": 1.5, "color": FRONT_COLOUR},
                },
                hovertext=[texts[row] for row in rows],
                hovertemplate="%{hovertext}<extra>" + f"step {step}</extra>",
            )
        )
    # The ranges follow the fronts, not the reference point: one far below them (HalfCheetah's
    # origin) would squash every front into a corner. The point is drawn when it is in view.
    x_range, y_range = fixed_ranges(ordered, (a, b))
    if reference_point is not None:
        reference = np.asarray(reference_point, dtype=np.float64)
        if x_range[0] <= reference[a] <= x_range[1] and y_range[0] <= reference[b] <= y_range[1]:
            figure.add_trace(reference_marker(reference, (a, b)))
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title={"text": f"Front at step {step}", "x": 0.0},
        xaxis={"title": axis_title(objective_names, a), "range": x_range},
        yaxis={"title": axis_title(objective_names, b), "range": y_range},
        legend={"orientation": "h", "y": -0.15},
    )
    return figure


def step_metrics_figure(
    metrics: pd.DataFrame,
    step: int,
    height: int = 480,
    beside: tuple[str, pd.DataFrame] | None = None,
) -> go.Figure:
    """Hypervolume (top) and expected utility (bottom) over the steps (`step_metrics`' table),
    the chosen `step` marked on both; `beside` (a name and another such table: the same run's
    other source) dashed and grey on both."""
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.1,
        subplot_titles=tuple(METRICS.values()),
    )
    steps = metrics[STEP_COLUMN].to_numpy(dtype=np.int64) if len(metrics) else np.zeros(0)
    for row, column in enumerate(METRICS, start=1):
        values = metrics[column].to_numpy(dtype=np.float64) if len(metrics) else np.zeros(0)
        figure.add_trace(
            go.Scatter(
                x=steps,
                y=values,
                mode="lines+markers",
                name=METRICS[column],
                line={"color": PALETTE[row - 1], "width": 2},
                showlegend=False,
            ),
            row=row,
            col=1,
        )
        here = np.flatnonzero(steps == step)
        if len(here):
            figure.add_trace(
                go.Scatter(
                    x=[step],
                    y=[values[here[0]]],
                    mode="markers",
                    name=f"{METRICS[column]} at step {step}",
                    marker={
                        "size": 16,
                        "color": CURRENT_COLOUR,
                        "symbol": "star",
                        "line": {"width": 1, "color": "black"},
                    },
                    showlegend=False,
                ),
                row=row,
                col=1,
            )
    if beside is not None:
        name, other = beside
        for row, column in enumerate(METRICS, start=1):
            figure.add_trace(
                go.Scatter(
                    x=other[STEP_COLUMN].to_numpy(dtype=np.int64),
                    y=other[column].to_numpy(dtype=np.float64),
                    mode="lines+markers",
                    name=plotly_text(name),
                    legendgroup="beside",
                    line={"color": "#7f7f7f", "width": 1.5, "dash": "dash"},
                    marker={"size": 5},
                    showlegend=row == 1,
                ),
                row=row,
                col=1,
            )
        figure.update_layout(legend={"orientation": "h", "y": -0.15})
    figure.add_vline(x=step, line={"color": "#999999", "dash": "dot", "width": 1})
    figure.update_xaxes(title_text="training step", row=2, col=1)
    figure.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return figure


def runs_curve_figure(
    column: str, curves: Mapping[str, pd.DataFrame], height: int = 360
) -> go.Figure:
    """One metric (`column` of `step_metrics`' table) over the steps, one line per run
    (labelled by the mapping's keys)."""
    figure = go.Figure()
    for index, (label, metrics) in enumerate(curves.items()):
        figure.add_trace(
            go.Scatter(
                x=metrics[STEP_COLUMN].to_numpy(dtype=np.int64),
                y=metrics[column].to_numpy(dtype=np.float64),
                mode="lines+markers",
                name=plotly_text(label),
                line={"color": PALETTE[index % len(PALETTE)], "width": 2},
            )
        )
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title={"text": METRICS.get(column, column), "x": 0.0},
        xaxis_title="training step",
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def _translucent(colour: str, alpha: float) -> str:
    """A "#rrggbb" colour as rgba with `alpha`."""
    red, green, blue = (int(colour[index : index + 2], 16) for index in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {alpha})"


def runs_spread_figure(
    column: str, spreads: Mapping[str, CurveSpread], height: int = 360
) -> go.Figure:
    """One metric over the steps for each group of runs (an algorithm's seeds): the median
    across its runs as a line over a band from their lowest to their highest value."""
    figure = go.Figure()
    for index, (label, spread) in enumerate(spreads.items()):
        colour = PALETTE[index % len(PALETTE)]
        most = int(spread.runs.max()) if len(spread.runs) else 0
        name = plotly_text(f"{label} (median of {most} run{'s' if most != 1 else ''})")
        steps = spread.steps.astype(np.int64)
        figure.add_trace(
            go.Scatter(
                x=np.concatenate([steps, steps[::-1]]),
                y=np.concatenate([spread.high, spread.low[::-1]]),
                fill="toself",
                fillcolor=_translucent(colour, 0.2),
                line={"width": 0},
                hoverinfo="skip",
                name=plotly_text(f"{label}: lowest to highest"),
                legendgroup=str(index),
                showlegend=False,
            )
        )
        figure.add_trace(
            go.Scatter(
                x=steps,
                y=spread.median,
                mode="lines+markers",
                name=name,
                legendgroup=str(index),
                line={"color": colour, "width": 2},
                customdata=np.column_stack([spread.low, spread.high, spread.runs]),
                hovertemplate=(
                    "step %{x}: median %{y:.4g}, lowest %{customdata[0]:.4g}, highest "
                    "%{customdata[1]:.4g} (%{customdata[2]} runs)<extra></extra>"
                ),
            )
        )
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title={"text": f"{METRICS.get(column, column)} across seeds", "x": 0.0},
        xaxis_title="training step",
        legend={"orientation": "h", "y": -0.2},
    )
    return figure
