"""Figures of behaviour along a front: the episodes' behaviour embedding coloured by cluster,
and where two episodes' return difference accrues."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.behaviour.difference import ReturnDifference
from paretoscope.figures.labels import plotly_text
from paretoscope.figures.style import PALETTE


def embedding_figure(
    embedding: np.ndarray,
    labels: Sequence[int],
    cluster_names: Sequence[str],
    numbers: Sequence[str],
    colours: Sequence[str] = PALETTE,
    height: int = 360,
) -> go.Figure:
    """The episodes' behaviour in 2-D (PCA of their descriptors), one trace per cluster in its
    colour (`colours[label]`), each point marked with its number (`numbers`)."""
    points = np.asarray(embedding, dtype=np.float64)
    label_array = np.asarray(labels, dtype=np.int64)
    figure = go.Figure()
    for label, name in enumerate(cluster_names):
        rows = np.flatnonzero(label_array == label)
        figure.add_scatter(
            x=points[rows, 0],
            y=points[rows, 1],
            mode="markers+text",
            name=plotly_text(name),
            text=[numbers[int(row)] for row in rows],
            textposition="top center",
            marker={"color": colours[label % len(colours)], "size": 12},
            hovertemplate="%{text}<extra>" + plotly_text(name) + "</extra>",
        )
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title="behaviour, first principal axis",
        yaxis_title="second principal axis",
        legend={"orientation": "h", "y": -0.25},
    )
    return figure


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
