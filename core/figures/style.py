"""The look every figure shares: its colours, when a cloud goes to WebGL or is thinned, axis
titles and the reference point's marker."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.envs import EnvSpec

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
)
CLOUD_COLOUR = "rgba(120, 120, 120, 0.25)"
CURRENT_COLOUR = "#ffb000"
TARGET_COLOUR = "#e7298a"
KNOWN_FRONT_COLOUR = "#333333"


# Above this many points a 2-D cloud is drawn with WebGL.
WEBGL_THRESHOLD = 2000
# The cloud is subsampled (deterministically) above this many points.
CLOUD_LIMIT = 20000


def reference_marker(reference: Sequence[float] | np.ndarray, axes: Sequence[int]) -> go.Scatter:
    """The hypervolume's reference point, a black cross on the objectives `axes`."""
    return go.Scatter(
        x=[reference[axes[0]]],
        y=[reference[axes[1]]],
        mode="markers",
        name="reference point",
        marker={"color": "black", "size": 13, "symbol": "x"},
    )


def axis_title(objective_names: Sequence[str], index: int) -> str:
    """The title of the axis showing objective `index`."""
    return f"{objective_names[index]} return"


def titled_by_meaning(figure: go.Figure, spec: EnvSpec) -> go.Figure:
    """`figure` with every axis titled `axis_title(spec.objective_names, i)` retitled by the
    spec's `Objective.axis_title` (its unit and which way is better), 2-D or 3-D."""
    titles = [objective.axis_title for objective in spec.objectives]
    objective_names = spec.objective_names
    plain = {axis_title(objective_names, index): title for index, title in enumerate(titles)}
    axes = [figure.layout[name] for name in ("xaxis", "yaxis")]
    axes += [figure.layout.scene[name] for name in ("xaxis", "yaxis", "zaxis")]
    for axis in axes:
        if axis.title.text in plain:
            axis.title.text = plain[axis.title.text]
    return figure


# A notebook cell has no column to stretch a figure to (the dashboard's do): a fixed size
# that fits a Jupyter page's text width.
NOTEBOOK_WIDTH = 760
NOTEBOOK_HEIGHT = 500
# Plotly's white template: the dashboard's figures take Streamlit's theme instead, which a
# notebook does not have; on a white notebook page the white template's light grid reads best.
NOTEBOOK_TEMPLATE = "plotly_white"


def for_notebook(figure: go.Figure, height: int | None = None) -> go.Figure:
    """`figure` styled for a notebook: `NOTEBOOK_TEMPLATE`, `NOTEBOOK_WIDTH` wide and
    `height` high (default: the height the figure was drawn for, else `NOTEBOOK_HEIGHT`)."""
    figure.update_layout(
        template=NOTEBOOK_TEMPLATE,
        width=NOTEBOOK_WIDTH,
        height=height or figure.layout.height or NOTEBOOK_HEIGHT,
    )
    return figure
