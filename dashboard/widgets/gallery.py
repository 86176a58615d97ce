"""The Gallery page's tiles and front as one Streamlit component (its own iframe, with the
installed plotly's plotly.min.js beside it: nothing is fetched from the network). The tiles'
videos follow one playhead in the browser (`dashboard/components/gallery/gallery.js`); the
tiles, the front and the behaviour embedding (when shown) light each other on hover there too,
so the link costs no rerun."""

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


def _tiles_figure(
    points: Sequence[tuple[float, float]],
    tiles: Sequence[Tile],
    cluster_names: Sequence[str],
    background: np.ndarray | None,
    x_title: str,
    y_title: str,
    height: int,
) -> go.Figure:
    """`background` points (if any) in grey, one point per tile at `points` coloured by its
    cluster and numbered (uid "tiles"), legend entries naming the clusters, and an empty ring
    trace (uid "lit") the browser moves to the hovered tile's point."""
    figure = go.Figure()
    if background is not None:
        figure.add_scatter(
            x=background[:, 0], y=background[:, 1], mode="markers", name="front",
            marker={"color": FRONT_COLOUR, "size": 7}, hoverinfo="skip",
        )  # fmt: skip
    colours = [
        CLUSTER_COLOURS[tile.cluster % len(CLUSTER_COLOURS)] if tile.cluster is not None
        else "#ff7f0e"
        for tile in tiles
    ]  # fmt: skip
    figure.add_scatter(
        uid="tiles",
        x=[point[0] for point in points],
        y=[point[1] for point in points],
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
        xaxis_title=x_title,
        yaxis_title=y_title,
        legend={"orientation": "h", "y": -0.2},
        hovermode="closest",
        height=height,
    )
    return figure


def front_figure(
    objective_names: Sequence[str],
    front: np.ndarray,
    tiles: Sequence[Tile],
    cluster_names: Sequence[str] = (),
) -> go.Figure:
    """The front (first two objectives) in grey and the tiles' points on it, coloured by
    cluster (`_tiles_figure`)."""
    return _tiles_figure(
        [tile.point for tile in tiles],
        tiles,
        cluster_names,
        np.asarray(front, dtype=np.float64),
        objective_names[0],
        objective_names[1] if len(objective_names) > 1 else "",
        height=420,
    )


def embedding_figure(
    embedding: np.ndarray, tiles: Sequence[Tile], cluster_names: Sequence[str]
) -> go.Figure:
    """The tiles' behaviour in 2-D (`paretoscope.behaviour.embed`, a row per tile), each
    point numbered and coloured by cluster (`_tiles_figure`): near points behave alike."""
    points = np.asarray(embedding, dtype=np.float64)
    return _tiles_figure(
        [(float(x), float(y)) for x, y in points[:, :2]],
        tiles,
        cluster_names,
        None,
        "behaviour, first principal axis",
        "second principal axis",
        height=360,
    )


def gallery(
    tiles: Sequence[Tile],
    figure: go.Figure,
    columns: int,
    fps: float,
    progress: str,
    embedding: go.Figure | None = None,
) -> None:
    """Draw the tiles (all playing from one playhead) beside `figure` (`front_figure`), and
    under them `embedding` (`embedding_figure`) if given: hovering a tile rings its point in
    both, and hovering a point in either lights its tile."""
    front = to_json_plotly(figure)
    behaviour = None if embedding is None else to_json_plotly(embedding)
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
    key = hashlib.sha256((json.dumps(payload) + front + (behaviour or "")).encode()).hexdigest()[
        :16
    ]
    plotly_component("gallery", _FILES)(
        tiles=payload,
        front=front,
        embedding=behaviour,
        columns=int(columns),
        fps=float(fps),
        progress=progress,
        key=None,
        default=None,
        drawn=key,
    )
