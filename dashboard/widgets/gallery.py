"""The Gallery page's tiles and front as one Streamlit component (its own iframe, with the
installed plotly's plotly.min.js beside it: nothing is fetched from the network). The tiles'
videos follow one playhead in the browser (`dashboard/components/gallery/gallery.js`); the
front and the tiles light each other on hover there too, so the link costs no rerun."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from paretoscope.dashboard.widgets.plotly_component import plotly_component

_FILES = ("index.html", "gallery.js")
# Cluster colours (plotly's default sequence) and the colour of front points with no tile.
CLUSTER_COLOURS = (
    "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
)  # fmt: skip
FRONT_COLOUR = "#c7c7c7"


@dataclass(frozen=True)
class Tile:
    """One tile: its video's URL (None while it records), caption lines, its point on the
    front, the query of its Explore link and its cluster (None before clustering)."""

    url: str | None
    lines: tuple[str, ...]
    point: tuple[float, float]
    query: str
    cluster: int | None = None


def front_figure(
    objective_names: Sequence[str],
    front: np.ndarray,
    tiles: Sequence[Tile],
    cluster_names: Sequence[str] = (),
) -> go.Figure:
    """The front (first two objectives) in grey, the tiles' points coloured by cluster (one
    legend entry per cluster, named), and an empty ring trace (uid "lit") the browser moves
    to the hovered tile's point. The tiles' trace (uid "tiles") holds one point per tile."""
    figure = go.Figure()
    figure.add_scatter(
        x=front[:, 0], y=front[:, 1], mode="markers", name="front",
        marker={"color": FRONT_COLOUR, "size": 7}, hoverinfo="skip",
    )  # fmt: skip
    colours = [
        CLUSTER_COLOURS[tile.cluster % len(CLUSTER_COLOURS)] if tile.cluster is not None
        else "#ff7f0e"
        for tile in tiles
    ]  # fmt: skip
    figure.add_scatter(
        uid="tiles",
        x=[tile.point[0] for tile in tiles],
        y=[tile.point[1] for tile in tiles],
        mode="markers+text",
        text=[str(index + 1) for index in range(len(tiles))],
        textposition="top center",
        marker={"color": colours, "size": 12, "line": {"color": "#333", "width": 1}},
        hovertext=[", ".join(tile.lines) for tile in tiles],
        hoverinfo="text",
        showlegend=False,
    )
    for index, name in enumerate(cluster_names):
        # Legend entries only: the names of the clusters, in their colours.
        figure.add_scatter(
            x=[None], y=[None], mode="markers", name=name,
            marker={"color": CLUSTER_COLOURS[index % len(CLUSTER_COLOURS)], "size": 10},
        )  # fmt: skip
    figure.add_scatter(
        uid="lit", x=[], y=[], mode="markers", hoverinfo="skip", showlegend=False,
        marker={"size": 22, "color": "rgba(0,0,0,0)", "line": {"color": "#ff7f0e", "width": 3}},
    )  # fmt: skip
    figure.update_layout(
        margin={"l": 50, "r": 10, "t": 10, "b": 40},
        xaxis_title=objective_names[0],
        yaxis_title=objective_names[1] if len(objective_names) > 1 else "",
        legend={"orientation": "h", "y": -0.2},
        hovermode="closest",
        height=420,
    )
    return figure


def gallery(
    tiles: Sequence[Tile],
    figure: go.Figure,
    columns: int,
    fps: float,
    progress: str,
) -> None:
    """Draw the tiles (all playing from one playhead) beside `figure` (`front_figure`)."""
    front = to_json_plotly(figure)
    payload = [
        {
            "url": tile.url,
            "lines": list(tile.lines),
            "point": list(tile.point),
            "query": tile.query,
            "colour": None
            if tile.cluster is None
            else CLUSTER_COLOURS[tile.cluster % len(CLUSTER_COLOURS)],
        }
        for tile in tiles
    ]
    key = hashlib.sha256((json.dumps(payload) + front).encode()).hexdigest()[:16]
    plotly_component("gallery", _FILES)(
        tiles=payload,
        front=front,
        columns=int(columns),
        fps=float(fps),
        progress=progress,
        key=None,
        default=None,
        drawn=key,
    )
