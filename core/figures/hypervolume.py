"""The hypervolume: the region each front dominates above the reference point, shaded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.fitted_axes import fitted_ranges, off_axis_reference
from paretoscope.figures.front import FrontSeries, check_known_front
from paretoscope.figures.labels import known_front_hover, known_front_name, plotly_text
from paretoscope.figures.style import (
    KNOWN_FRONT_COLOUR,
    PALETTE,
    axis_title,
    reference_marker,
)
from paretoscope.metrics import dominated_region, non_dominated
from paretoscope.mixing import one_env

if TYPE_CHECKING:
    from paretoscope.envs.known_fronts import KnownFront


def hypervolume_figure(
    objective_names: Sequence[str],
    series: Sequence[FrontSeries],
    reference_point: Sequence[float] | np.ndarray,
    axes: Sequence[int] = (0, 1),
    height: int = 420,
    known_front: KnownFront | None = None,
    include_reference: bool = False,
) -> go.Figure:
    """The fronts with the region each dominates above the reference point shaded (2-D
    projection on `axes`), the env's known front and the reference point marked. Series of
    different envs (or a known front of another env) raise `ParetoscopeError`.

    The axes are fitted to the fronts (`fitted_axes`): the shaded regions run off them towards
    a far reference point, named by an arrow at the edge, unless `include_reference`."""
    a, b = int(axes[0]), int(axes[1])
    reference = np.asarray(reference_point, dtype=np.float64)
    env_id = one_env([(entry.name, entry.env_id) for entry in series], "hypervolume figure")
    check_known_front(known_front, env_id)
    figure = go.Figure()
    for index, entry in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        points = entry.returns[:, [a, b]]
        region = dominated_region(points, reference[[a, b]])
        if len(region):
            figure.add_trace(
                go.Scatter(
                    x=region[:, 0],
                    y=region[:, 1],
                    mode="lines",
                    fill="toself",
                    opacity=0.25,
                    line={"color": colour, "width": 1},
                    name=f"{plotly_text(entry.name)}: dominated region",
                    hoverinfo="skip",
                )
            )
        mask = non_dominated(points)
        figure.add_trace(
            go.Scatter(
                x=points[:, 0],
                y=points[:, 1],
                mode="markers",
                name=plotly_text(entry.name),
                marker={
                    "color": colour,
                    "size": 9,
                    "symbol": ["circle" if keep else "circle-open" for keep in mask],
                },
            )
        )
    if known_front is not None and len(known_front.points):
        points = np.asarray(known_front.points, dtype=np.float64)
        figure.add_trace(
            go.Scatter(
                x=points[:, a],
                y=points[:, b],
                mode="markers",
                name=known_front_name(known_front),
                marker={
                    "color": KNOWN_FRONT_COLOUR,
                    "size": 10,
                    "symbol": "diamond-open",
                    "line": {"width": 1.5, "color": KNOWN_FRONT_COLOUR},
                },
                hovertext=known_front_hover(objective_names, known_front),
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    figure.add_trace(reference_marker(reference, (a, b)))
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=axis_title(objective_names, a),
        yaxis_title=axis_title(objective_names, b),
        legend={"orientation": "h", "y": -0.2},
    )
    fitted = [entry.returns for entry in series]
    if known_front is not None and len(known_front.points):
        fitted.append(np.asarray(known_front.points, dtype=np.float64))
    ranges = fitted_ranges(fitted, (a, b), reference, include_reference)
    if ranges is not None:
        figure.update_layout(xaxis_range=ranges[0], yaxis_range=ranges[1])
        note = off_axis_reference(reference, (a, b), ranges)
        if note is not None:
            # The arrow names it in the legend; the cross, out of view, is left out there.
            figure.update_traces(showlegend=False, selector={"name": "reference point"})
            figure.add_trace(note)
    return figure
