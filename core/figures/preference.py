"""The preference picker: a clickable simplex of candidate preferences for three objectives."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.style import CURRENT_COLOUR


def ternary_figure(
    objective_names: Sequence[str],
    candidates: np.ndarray,
    current: Sequence[float] | np.ndarray | None = None,
    height: int = 320,
) -> go.Figure:
    """A clickable simplex for three objectives: every candidate preference is a point
    (``customdata = [k]``), the current preference is a star."""
    if len(objective_names) != 3:
        raise ValueError("a ternary plot needs exactly three objectives")
    grid = np.asarray(candidates, dtype=np.float64)
    figure = go.Figure()
    figure.add_trace(
        go.Scatterternary(
            a=grid[:, 0],
            b=grid[:, 1],
            c=grid[:, 2],
            mode="markers",
            name="preferences",
            marker={"size": 9, "color": "rgba(31, 119, 180, 0.35)"},
            customdata=[[k] for k in range(len(grid))],
            hovertemplate=(
                f"{objective_names[0]} %{{a:.2f}}<br>{objective_names[1]} %{{b:.2f}}"
                f"<br>{objective_names[2]} %{{c:.2f}}<extra></extra>"
            ),
        )
    )
    if current is not None:
        point = np.asarray(current, dtype=np.float64)
        figure.add_trace(
            go.Scatterternary(
                a=[point[0]],
                b=[point[1]],
                c=[point[2]],
                mode="markers",
                name="current",
                marker={"size": 16, "color": CURRENT_COLOUR, "symbol": "star"},
                hoverinfo="skip",
            )
        )
    figure.update_layout(
        height=height,
        showlegend=False,
        margin={"l": 30, "r": 30, "t": 30, "b": 20},
        clickmode="event+select",
        ternary={
            "aaxis": {"title": objective_names[0], "min": 0},
            "baxis": {"title": objective_names[1], "min": 0},
            "caxis": {"title": objective_names[2], "min": 0},
        },
    )
    return figure
