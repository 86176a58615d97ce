"""Linked views of a front with any number of objectives: a scatter matrix of every objective
pair and parallel coordinates (one line per policy). Pure functions, data -> plotly Figure.

The figures do not depend on the selection: the browser links them (`paretoscope.dashboard.widgets.
linked_views`), highlighting brushed policies in both at once on a layer of its own, without a
new figure from the server. For that, every selectable point carries ``customdata = [policy
id]``. The decision marks (knees, the compromise, the aspiration pick) and the aspiration level
are drawn in every panel.

The scatter matrix is one `splom` (WebGL: one canvas for every panel, the cheapest to redraw
on a selection); parallel coordinates are SVG traces, with each axis spanning its own range.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.labels import plotly_text
from paretoscope.text import number, signed

SHORTFALL_COLOUR = "#d62728"  # an objective below its aspiration
MET_COLOUR = "#2ca02c"
# Plotly's (d3) form of `paretoscope.text.number` for ticks: 4 significant digits, thousands
# separated, trailing zeros trimmed.
TICK_FORMAT = ",.4~r"
# An objective whose values spread less than this (relative to their size, at least 1) is
# drawn as constant.
NEARLY_CONSTANT = 1e-6
# The aspiration bars' axis spans at least ± this much of an objective's range.
SMALLEST_BAR_AXIS = 0.1
BASE_COLOUR = "#1f77b4"
# Marks: (symbol, colour, size) per kind of decision point.
MARK_STYLES: dict[str, tuple[str, str, int]] = {
    "knee": ("diamond", "#2ca02c", 13),
    "compromise": ("square", "#9467bd", 12),
    "aspiration pick": ("star", "#ff7f0e", 17),
}
# Plotly's own styling of a brush, neutral: the browser's highlight layer shows selections in
# both views alike (plotly would restyle only the view brushed, and only the points in the box).
NEUTRAL_SELECTION = {
    "selected": {"marker": {"opacity": 1.0}},
    "unselected": {"marker": {"opacity": 1.0}},
}


@dataclass(frozen=True)
class ViewPoints:
    """What both views draw: one row per policy, in the display scale (normalised or raw).

    `values` (N, k) are what the axes show; `dominated` (N,) draws a point hollow; `marks`
    maps a decision mark's name ("knee", "compromise", "aspiration pick") to policy ids;
    `aspiration` (k,) is the desired level per objective in the same scale, or None.
    """

    objective_names: Sequence[str]
    values: np.ndarray
    dominated: np.ndarray
    marks: dict[str, Sequence[int]] = field(default_factory=dict)
    aspiration: np.ndarray | None = None

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        k = len(self.objective_names)
        if values.ndim != 2 or values.shape[1] != k:
            raise ValueError(f"values: expected (N, {k}), got {values.shape}")
        dominated = np.asarray(self.dominated, dtype=bool)
        if dominated.shape != (len(values),):
            raise ValueError(f"dominated: expected ({len(values)},), got {dominated.shape}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "dominated", dominated)


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure, unchecked: plotly's per-property validation of traces of thousands of
    points costs more than the rest of a rerun (the traces here are fixed by this module, and
    `tests/test_objective_views.py` builds them validated too)."""
    return go.Figure(data=traces, layout=layout, _validate=False)


def _ids(rows: np.ndarray) -> list[list[int]]:
    """customdata as plain lists: the browser reads ``customdata[i][0]`` as a number (numpy
    arrays travel as typed arrays, which plotly hands back as objects)."""
    return [[int(row)] for row in rows]


def _mark_rows(points: ViewPoints) -> list[tuple[str, np.ndarray]]:
    return [
        (name, np.asarray(ids, dtype=int))
        for name, ids in points.marks.items()
        if name in MARK_STYLES and len(ids)
    ]


def scatter_matrix_figure(points: ViewPoints, height: int | None = None) -> go.Figure:
    """Every objective pair below the diagonal (one `splom`): objective j across, i up.
    Non-dominated policies filled, dominated hollow; marks and the aspiration in every panel."""
    names = [plotly_text(name) for name in points.objective_names]
    k = len(names)

    def splom(values: np.ndarray, **style: object) -> dict:
        return {
            "type": "splom",
            "dimensions": [{"label": name, "values": values[:, i]} for i, name in enumerate(names)],
            "showupperhalf": False,
            "diagonal": {"visible": False},
            **style,
        }

    hover = "policy %{customdata[0]}: (%{x:,.4~r}, %{y:,.4~r})<extra></extra>"
    traces = []
    for hollow, name in ((False, "non-dominated"), (True, "dominated")):
        rows = np.flatnonzero(points.dominated == hollow)
        if not len(rows):
            continue
        traces.append(
            splom(
                points.values[rows],
                marker={
                    "color": BASE_COLOUR,
                    "size": 6,
                    "symbol": "circle-open" if hollow else "circle",
                },
                customdata=_ids(rows),
                hovertemplate=hover,
                name=name,
                **NEUTRAL_SELECTION,
            )
        )
    for name, rows in _mark_rows(points):
        symbol, colour, size = MARK_STYLES[name]
        traces.append(
            splom(
                points.values[rows],
                marker={
                    "symbol": symbol,
                    "color": colour,
                    "size": size,
                    "line": {"width": 1, "color": "black"},
                },
                hovertemplate=f"{name}: policy %{{text}}<extra></extra>",
                text=[str(int(row)) for row in rows],
                name=name,
            )
        )
    if points.aspiration is not None:
        traces.append(
            splom(
                np.asarray(points.aspiration, dtype=np.float64)[None, :],
                marker={"symbol": "x", "size": 14, "color": "black"},
                hovertemplate="aspiration<extra></extra>",
                name="aspiration",
            )
        )
    size = max(k - 1, 1)
    layout: dict[str, object] = {
        "height": height or max(420, 150 * size + 90),
        "margin": {"l": 60, "r": 10, "t": 40, "b": 50},
        "dragmode": "select",
        "clickmode": "event+select",
        "hovermode": "closest",
        "showlegend": True,
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
    }
    # Every panel's axes: round tick labels, and an objective every policy gives (within
    # rounding) the same value drawn around that value, not on ticks of its rounding noise.
    for index in range(k):
        axis: dict[str, object] = {"tickformat": TICK_FORMAT}
        around = _constant_range(points.values[:, index])
        if around is not None:
            axis["range"] = around
        suffix = "" if index == 0 else str(index + 1)
        layout[f"xaxis{suffix}"] = axis
        layout[f"yaxis{suffix}"] = axis
    return _figure(traces, layout)


def _constant_range(values: np.ndarray) -> list[float] | None:
    """An axis range around a (nearly) constant objective's value (±5% of it, at least ±1);
    None where the values have a spread of their own."""
    if not len(values):
        return None
    low, high = float(values.min()), float(values.max())
    middle = (low + high) / 2
    if high - low > NEARLY_CONSTANT * max(1.0, abs(middle)):
        return None
    half = max(1.0, 0.05 * abs(middle))
    return [middle - half, middle + half]


def axis_scale(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per objective (low, span) mapping `values` onto [0, 1] for parallel coordinates (a
    constant objective, rounding noise aside, sits in the middle)."""
    low = values.min(axis=0) if len(values) else np.zeros(values.shape[1])
    high = values.max(axis=0) if len(values) else np.ones(values.shape[1])
    scale = np.maximum(1.0, np.abs((low + high) / 2))
    span = np.where(high - low > NEARLY_CONSTANT * scale, high - low, 0.0)
    return low, span


def _scaled(values: np.ndarray, low: np.ndarray, span: np.ndarray) -> np.ndarray:
    safe = np.where(span > 0, span, 1.0)
    return np.where(span > 0, (values - low) / safe, 0.5)


def parallel_scaled(points: ViewPoints) -> np.ndarray:
    """(N, k) each policy's height on each axis of parallel coordinates, in [0, 1]."""
    low, span = axis_scale(points.values)
    return _scaled(points.values, low, span)


def _polylines(scaled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y of one line per row across the axes, rows separated by gaps (NaN)."""
    n, k = scaled.shape
    x = np.tile(np.append(np.arange(k, dtype=np.float64), np.nan), n)
    y = np.hstack([scaled, np.full((n, 1), np.nan)]).ravel()
    return x, y


def parallel_coordinates_figure(points: ViewPoints, height: int = 420) -> go.Figure:
    """One line per policy across the objectives' axes, each axis spanning its own range (its
    low and high values written at its ends). Brushing: a box drawn over one axis selects the
    policies whose value on it lies in the box."""
    names = list(points.objective_names)
    k = len(names)
    n = len(points.values)
    low, span = axis_scale(points.values)
    scaled = _scaled(points.values, low, span)
    x, y = _polylines(scaled)
    traces: list[dict] = [
        {
            "type": "scatter",
            "x": x,
            "y": y,
            "mode": "lines",
            "line": {"color": BASE_COLOUR, "width": 1},
            "hoverinfo": "skip",
            "name": "policies",
        },
        # The values on the axes: what a box selects (a point's x is its axis).
        {
            "type": "scatter",
            "x": np.repeat(np.arange(k), n),
            "y": scaled.T.ravel(),
            "mode": "markers",
            "marker": {"size": 5, "color": BASE_COLOUR},
            "customdata": _ids(np.tile(np.arange(n), k)),
            "text": [number(value) for value in points.values.T.ravel()],
            "hovertemplate": "policy %{customdata[0]}: %{text}<extra></extra>",
            "name": "values",
            "showlegend": False,
            **NEUTRAL_SELECTION,
        },
    ]
    for name, rows in _mark_rows(points):
        symbol, colour, _ = MARK_STYLES[name]
        x, y = _polylines(scaled[rows])
        traces.append(
            {
                "type": "scatter",
                "x": x,
                "y": y,
                "mode": "lines+markers",
                "line": {"color": colour, "width": 3},
                "marker": {"symbol": symbol, "size": 9, "color": colour},
                "hoverinfo": "skip",
                "name": name,
            }
        )
    if points.aspiration is not None:
        x, y = _polylines(_scaled(np.asarray(points.aspiration)[None, :], low, span))
        traces.append(
            {
                "type": "scatter",
                "x": x,
                "y": np.clip(y, -0.1, 1.1),
                "mode": "lines+markers",
                "line": {"color": "black", "width": 2, "dash": "dash"},
                "marker": {"symbol": "x-thin", "size": 12, "line": {"width": 2, "color": "black"}},
                "hoverinfo": "skip",
                "name": "aspiration",
            }
        )
    high = low + span
    annotations = []
    for axis in range(k):
        for value, y_end, anchor in ((high[axis], 1.0, "bottom"), (low[axis], 0.0, "top")):
            annotations.append(
                {
                    "x": axis,
                    "y": y_end,
                    "text": number(value),
                    "showarrow": False,
                    "yanchor": anchor,
                    "yshift": 4 if anchor == "bottom" else -4,
                    "font": {"size": 11},
                }
            )
    layout = {
        "height": height,
        "margin": {"l": 30, "r": 30, "t": 40, "b": 40},
        "dragmode": "select",
        "clickmode": "event+select",
        "hovermode": "closest",
        "xaxis": {
            "tickvals": list(range(k)),
            "ticktext": [plotly_text(name) for name in names],
            "range": [-0.3, k - 0.7],
            "showgrid": True,
            "gridcolor": "#888",
            "zeroline": False,
        },
        "yaxis": {"range": [-0.15, 1.15], "showticklabels": False, "showgrid": False},
        "annotations": annotations,
        "legend": {"orientation": "h", "y": -0.12},
    }
    return _figure(traces, layout)


def aspiration_figure(objective_names: Sequence[str], relative_difference: np.ndarray) -> go.Figure:
    """One bar per objective: how far the picked policy lies above (green) or below (red) the
    aspiration, in units of that objective's range on the front. A difference the caller
    counts as met is passed as 0 or more; the axis spans at least ±0.1 of the range (a zero
    bar is not blown up to rounding noise)."""
    values = np.asarray(relative_difference, dtype=np.float64)
    names = [plotly_text(name) for name in objective_names]
    colours = [MET_COLOUR if value >= 0 else SHORTFALL_COLOUR for value in values]
    reach = max(SMALLEST_BAR_AXIS, 1.15 * float(np.abs(values).max(initial=0.0)))
    return go.Figure(
        go.Bar(
            x=values,
            y=names,
            orientation="h",
            marker={"color": colours},
            text=[signed(value, 2) for value in values],
            textposition="auto",
            hovertemplate="%{y}: %{text} of the front's range<extra></extra>",
        ),
        layout={
            "height": 60 + 28 * len(names),
            "margin": {"l": 10, "r": 10, "t": 30, "b": 30},
            "title": {"text": "picked policy − aspiration (÷ front range)", "font": {"size": 13}},
            "xaxis": {
                "zeroline": True,
                "zerolinewidth": 2,
                "zerolinecolor": "#444",
                "range": [-reach, reach],
                "tickformat": TICK_FORMAT,
            },
            "yaxis": {"autorange": "reversed"},
        },
    )
