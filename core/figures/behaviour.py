"""Figures of behaviour along a front: where two episodes' return difference accrues. (The
behaviour embedding is drawn in the Gallery's component, linked to its tiles.)"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.behaviour.difference import ReturnDifference
from paretoscope.figures.labels import plotly_text
from paretoscope.figures.style import PALETTE


def difference_figure(
    objective_names: Sequence[str],
    difference: ReturnDifference,
    moments: Sequence[int] = (),
    first: str = "A",
    second: str = "B",
    height: int = 360,
) -> go.Figure:
    """Each objective's cumulative return of `first` minus `second` over the episode's steps,
    with the `moments` (steps) where their states diverge most as dotted lines."""
    figure = go.Figure()
    for index, name in enumerate(objective_names):
        figure.add_scatter(
            x=np.asarray(difference.steps, dtype=np.int64),
            y=np.asarray(difference.difference[:, index], dtype=np.float64),
            mode="lines",
            name=plotly_text(name),
            line={"color": PALETTE[index % len(PALETTE)], "width": 2},
        )
    for step in moments:
        figure.add_vline(x=int(step), line={"color": "#7f7f7f", "dash": "dot", "width": 1})
    figure.add_hline(y=0.0, line={"color": "#bbbbbb", "width": 1})
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title="step",
        yaxis_title=plotly_text(f"return so far: {first} minus {second}"),
        legend={"orientation": "h", "y": -0.25},
    )
    return figure
