"""One episode: reward per step and cumulative return per objective over its steps."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.style import PALETTE


def episode_series(
    n_obj: int, steps: np.ndarray, cumulative: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, reward per step, cumulative return) of one episode read at `steps` (T,): where
    two reads are more than one step apart, the reward per step is the mean between them."""
    totals = np.asarray(cumulative, dtype=np.float64).reshape(-1, n_obj)
    step_values = np.asarray(steps, dtype=np.float64).reshape(-1)
    previous_steps = np.concatenate([[0.0], step_values[:-1]]) if len(step_values) else step_values
    increments = np.diff(totals, axis=0, prepend=np.zeros((1, n_obj)))
    spans = np.maximum(step_values - previous_steps, 1.0)[:, None]
    per_step = increments / spans if len(totals) else increments
    return step_values, per_step, totals


def episode_figure(
    objective_names: Sequence[str],
    steps: np.ndarray,
    cumulative: np.ndarray,
    horizon: int | None = None,
    height: int = 360,
) -> go.Figure:
    """Reward per step (top) and cumulative return (bottom) per objective over one episode.

    `steps` (T,) are the env steps at which `cumulative` (T, n_obj) returns were read; where
    they are more than one step apart the top panel shows the mean reward per step between.
    """
    step_values, per_step, totals = episode_series(len(objective_names), steps, cumulative)
    # The two panels of make_subplots(rows=2, shared_xaxes=True), laid out by hand: built in
    # one go, the figure costs a third of make_subplots' (it is redrawn at every rerun that
    # shows a video and twice a second while one streams).
    traces = []
    for index, name in enumerate(objective_names):
        colour = PALETTE[index % len(PALETTE)]
        traces.append(
            go.Scatter(
                x=step_values,
                y=per_step[:, index],
                mode="lines",
                name=name,
                legendgroup=name,
                line={"color": colour, "width": 1.5},
                xaxis="x",
                yaxis="y",
            )
        )
        traces.append(
            go.Scatter(
                x=step_values,
                y=totals[:, index],
                mode="lines",
                name=name,
                legendgroup=name,
                showlegend=False,
                line={"color": colour, "width": 2},
                xaxis="x2",
                yaxis="y2",
            )
        )
    steps_range = {"range": [0, horizon]} if horizon else {}
    titles = (("reward per step", 1.0), ("cumulative return", 0.46))
    return go.Figure(
        data=traces,
        layout={
            "xaxis": {"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False}
            | steps_range,
            "yaxis": {"anchor": "x", "domain": [0.54, 1.0]},
            "xaxis2": {"anchor": "y2", "domain": [0.0, 1.0], "title": {"text": "step"}}
            | steps_range,
            "yaxis2": {"anchor": "x2", "domain": [0.0, 0.46]},
            "annotations": [
                {
                    "text": text,
                    "font": {"size": 16},
                    "showarrow": False,
                    "x": 0.5,
                    "xanchor": "center",
                    "xref": "paper",
                    "y": y,
                    "yanchor": "bottom",
                    "yref": "paper",
                }
                for text, y in titles
            ],
            "height": height,
            "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
            "legend": {"orientation": "h", "y": 1.12},
        },
    )
