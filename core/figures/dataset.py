"""A dataset: its trajectories' returns coloured by preference, and how many trajectories it
holds per preference weight."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.style import (
    CLOUD_LIMIT,
    CURRENT_COLOUR,
    PALETTE,
    WEBGL_THRESHOLD,
    axis_title,
)


def dataset_returns_figure(
    objective_names: Sequence[str],
    returns: np.ndarray,
    preferences: np.ndarray,
    colour_objective: int = 0,
    front_indices: Sequence[int] | None = None,
    selected: int | None = None,
    axes: Sequence[int] = (0, 1),
    height: int = 460,
) -> go.Figure:
    """Trajectory returns coloured by the weight of one objective in their preference; the
    dataset's non-dominated set outlined; clicking a point gives ``customdata = [index]``."""
    a, b = int(axes[0]), int(axes[1])
    values = np.asarray(returns, dtype=np.float64)
    prefs = np.asarray(preferences, dtype=np.float64)
    indices = np.arange(len(values))
    if len(values) > CLOUD_LIMIT:
        indices = np.linspace(0, len(values) - 1, CLOUD_LIMIT).round().astype(int)
    trace = go.Scattergl if len(indices) > WEBGL_THRESHOLD else go.Scatter
    figure = go.Figure()
    figure.add_trace(
        trace(
            x=values[indices, a],
            y=values[indices, b],
            mode="markers",
            name="trajectories",
            marker={
                "size": 6,
                "color": prefs[indices, colour_objective],
                "colorscale": "Viridis",
                "cmin": 0.0,
                "cmax": 1.0,
                "colorbar": {"title": f"weight of {objective_names[colour_objective]}"},
            },
            customdata=[[int(i)] for i in indices],
            hovertemplate=(
                "trajectory %{customdata[0]}<br>"
                + f"{objective_names[a]} %{{x:.4g}}<br>{objective_names[b]} %{{y:.4g}}"
                + "<extra></extra>"
            ),
        )
    )
    if front_indices is not None and len(front_indices):
        front = np.asarray(front_indices, dtype=int)
        order = np.argsort(-values[front, a])
        front = front[order]
        figure.add_trace(
            go.Scatter(
                x=values[front, a],
                y=values[front, b],
                mode="lines+markers",
                name="non-dominated",
                line={"color": "black", "width": 1, "shape": "hv"},
                marker={"size": 10, "symbol": "circle-open", "color": "black"},
                customdata=[[int(i)] for i in front],
                hovertemplate="trajectory %{customdata[0]} (non-dominated)<extra></extra>",
            )
        )
    if selected is not None and 0 <= selected < len(values):
        figure.add_trace(
            go.Scatter(
                x=[values[selected, a]],
                y=[values[selected, b]],
                mode="markers",
                name=f"trajectory {selected}",
                marker={"size": 18, "symbol": "star", "color": CURRENT_COLOUR},
                customdata=[[int(selected)]],
                hoverinfo="skip",
            )
        )
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=axis_title(objective_names, a),
        yaxis_title=axis_title(objective_names, b),
        legend={"orientation": "h", "y": -0.2},
        clickmode="event+select",
    )
    return figure


def preference_coverage_figure(
    objective_names: Sequence[str],
    bin_edges: Sequence[float],
    histograms: Sequence[Sequence[int]],
    height: int = 300,
) -> go.Figure:
    """How many trajectories the dataset holds per preference weight, one panel per objective."""
    edges = np.asarray(bin_edges, dtype=np.float64)
    centres = (edges[:-1] + edges[1:]) / 2
    widths = np.diff(edges)
    n_obj = len(objective_names)
    from plotly.subplots import make_subplots  # 0.1 s to import: kept off the first page

    figure = make_subplots(rows=1, cols=n_obj, subplot_titles=list(objective_names))
    for index in range(n_obj):
        figure.add_trace(
            go.Bar(
                x=centres,
                y=list(histograms[index]),
                width=widths,
                marker={"color": PALETTE[index % len(PALETTE)]},
                name=objective_names[index],
                showlegend=False,
            ),
            row=1,
            col=index + 1,
        )
        figure.update_xaxes(title_text="preference weight", range=[0, 1], row=1, col=index + 1)
    figure.update_yaxes(title_text="trajectories", row=1, col=1)
    figure.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return figure
