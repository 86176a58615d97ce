"""RTG following, PEDA's two panels per objective: the weighted return achieved against the
target's, and the achieved return ratio against the target preference."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.labels import format_values
from paretoscope.figures.style import PALETTE


def rtg_target_figure(
    objective_names: Sequence[str],
    targets: np.ndarray,
    preferences: np.ndarray,
    returns: np.ndarray,
    dataset_min: Sequence[float] | None = None,
    dataset_max: Sequence[float] | None = None,
    labels: Sequence[str] | None = None,
    height: int = 340,
) -> go.Figure:
    """PEDA's first RTG panel, per objective: target weighted return p_i·target_i (x) against
    achieved p_i·R_i (y), the y = x oracle and the dataset's min/max return of the objective."""
    n_obj = len(objective_names)
    weighted_target = np.asarray(preferences) * np.asarray(targets)
    weighted_return = np.asarray(preferences) * np.asarray(returns)
    from plotly.subplots import make_subplots  # 0.1 s to import: kept off the first page

    figure = make_subplots(rows=1, cols=n_obj, subplot_titles=list(objective_names))
    for index in range(n_obj):
        x = weighted_target[:, index]
        y = weighted_return[:, index]
        span = [v for v in (*x, *y) if np.isfinite(v)]
        if dataset_max is not None:
            span.append(float(dataset_max[index]))
        if dataset_min is not None:
            span.append(float(dataset_min[index]))
        low, high = (min(span), max(span)) if span else (0.0, 1.0)
        figure.add_trace(
            go.Scatter(
                x=[low, high],
                y=[low, high],
                mode="lines",
                name="oracle (y = x)",
                line={"color": "black", "dash": "dash", "width": 1},
                showlegend=index == 0,
                legendgroup="oracle",
            ),
            row=1,
            col=index + 1,
        )
        for bound, value in (("min", dataset_min), ("max", dataset_max)):
            if value is None:
                continue
            figure.add_trace(
                go.Scatter(
                    x=[low, high],
                    y=[float(value[index])] * 2,
                    mode="lines",
                    name=f"dataset {bound}",
                    line={"color": "grey", "dash": "dot", "width": 1},
                    showlegend=index == 0,
                    legendgroup=f"dataset {bound}",
                ),
                row=1,
                col=index + 1,
            )
        hover = [
            f"p={format_values(preferences[row], 2)}<br>target={format_values(targets[row], 4)}"
            f"<br>return={format_values(returns[row], 4)}"
            + (f"<br>{labels[row]}" if labels is not None else "")
            for row in range(len(x))
        ]
        figure.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                name="episodes",
                marker={"color": PALETTE[0], "size": 8},
                hovertext=hover,
                hovertemplate="%{hovertext}<extra></extra>",
                showlegend=index == 0,
                legendgroup="episodes",
            ),
            row=1,
            col=index + 1,
        )
        figure.update_xaxes(title_text="target weighted return", row=1, col=index + 1)
        figure.update_yaxes(title_text="achieved weighted return", row=1, col=index + 1)
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "y": 1.25, "x": 0},
    )
    return figure


def rtg_ratio_figure(
    objective_names: Sequence[str],
    preferences: np.ndarray,
    return_ratios: np.ndarray,
    height: int = 340,
) -> go.Figure:
    """PEDA's second RTG panel, per objective: target preference p_i (x) against the achieved
    return ratio R_i / ΣR (y), with the y = x line. NaN ratios (undefined) are left out."""
    n_obj = len(objective_names)
    prefs = np.asarray(preferences, dtype=np.float64)
    ratios = np.asarray(return_ratios, dtype=np.float64)
    from plotly.subplots import make_subplots  # 0.1 s to import: kept off the first page

    figure = make_subplots(rows=1, cols=n_obj, subplot_titles=list(objective_names))
    for index in range(n_obj):
        keep = np.isfinite(ratios[:, index])
        figure.add_trace(
            go.Scatter(
                x=[0, 1],
                y=[0, 1],
                mode="lines",
                name="y = x",
                line={"color": "black", "dash": "dash", "width": 1},
                showlegend=index == 0,
            ),
            row=1,
            col=index + 1,
        )
        figure.add_trace(
            go.Scatter(
                x=prefs[keep, index],
                y=ratios[keep, index],
                mode="markers",
                name="episodes",
                marker={"color": PALETTE[1], "size": 8},
                showlegend=index == 0,
            ),
            row=1,
            col=index + 1,
        )
        figure.update_xaxes(
            title_text="target preference", range=[-0.05, 1.05], row=1, col=index + 1
        )
        figure.update_yaxes(title_text="achieved return ratio", row=1, col=index + 1)
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "y": 1.25, "x": 0},
    )
    return figure
