"""Linked views of a front with any number of objectives: a scatter matrix of every objective
pair and parallel coordinates (one line per policy). Pure functions, data -> plotly Figure.

Every point a user can select carries ``customdata = [policy id]`` in both figures, so a box or
lasso in either one names the same policies (`dashboard.figures.selected_custom_data`).
Selected policies are drawn on top in colour and the rest greyed; the decision marks (knees,
the compromise, the aspiration pick) and the aspiration level are drawn in every panel.

Both are SVG traces: Streamlit reports box and lasso selections on them, and they draw in a
browser without WebGL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from dashboard.figures import _text

SELECTED_COLOUR = "#d62728"
BASE_COLOUR = "#1f77b4"
GREYED_COLOUR = "rgba(150, 150, 150, 0.35)"
# Marks: (symbol, colour, size) per kind of decision point.
MARK_STYLES: dict[str, tuple[str, str, int]] = {
    "knee": ("diamond", "#2ca02c", 13),
    "compromise": ("square", "#9467bd", 12),
    "aspiration pick": ("star", "#ff7f0e", 17),
}


@dataclass(frozen=True)
class ViewPoints:
    """What both views draw: one row per policy, in the display scale (normalised or raw).

    `values` (N, k) are what the axes show; `dominated` (N,) draws a point hollow;
    `selected` (N,) are the brushed policies (none: every point in colour); `marks` maps a
    decision mark's name ("knee", "compromise", "aspiration pick") to policy ids; `aspiration`
    (k,) is the desired level per objective in the same scale, or None.
    """

    objective_names: Sequence[str]
    values: np.ndarray
    dominated: np.ndarray
    selected: np.ndarray
    marks: dict[str, Sequence[int]] = field(default_factory=dict)
    aspiration: np.ndarray | None = None

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        k = len(self.objective_names)
        if values.ndim != 2 or values.shape[1] != k:
            raise ValueError(f"values: expected (N, {k}), got {values.shape}")
        for name in ("dominated", "selected"):
            flags = np.asarray(getattr(self, name), dtype=bool)
            if flags.shape != (len(values),):
                raise ValueError(f"{name}: expected ({len(values)},), got {flags.shape}")
            object.__setattr__(self, name, flags)
        object.__setattr__(self, "values", values)

    @property
    def ids(self) -> np.ndarray:
        return np.arange(len(self.values))


def _layers(points: ViewPoints) -> list[tuple[str, np.ndarray, str, bool]]:
    """(legend name, rows, colour, hollow) of the point layers, bottom first: dominated points
    hollow. One trace per layer, not per-point style arrays, which plotly checks one by one."""
    if points.selected.any():
        groups = [
            ("other policies", ~points.selected, GREYED_COLOUR),
            (f"selected ({int(points.selected.sum())})", points.selected, SELECTED_COLOUR),
        ]
    else:
        groups = [("policies", np.ones(len(points.values), dtype=bool), BASE_COLOUR)]
    layers = []
    for name, chosen, colour in groups:
        for hollow in (True, False):
            rows = np.flatnonzero(chosen & (points.dominated == hollow))
            if len(rows):
                layers.append((name, rows, colour, hollow))
    return layers


def _scatter(**properties: object) -> dict:
    return {"type": "scatter", **properties}


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure, unchecked: plotly's per-property validation of a few dozen traces of
    thousands of points costs more than the rest of a rerun (the traces here are fixed by
    this module, and `test_objective_views` builds them validated too)."""
    return go.Figure(data=traces, layout=layout, _validate=False)


def _mark_rows(points: ViewPoints) -> list[tuple[str, np.ndarray]]:
    return [
        (name, np.asarray(ids, dtype=int))
        for name, ids in points.marks.items()
        if name in MARK_STYLES and len(ids)
    ]


def scatter_matrix_figure(points: ViewPoints, height: int | None = None) -> go.Figure:
    """Every objective pair in the lower triangle: panel (i, j) shows objective j across and
    objective i up. Two objectives give one panel."""
    names = list(points.objective_names)
    k = len(names)
    size = max(k - 1, 1)
    pairs = [(row, column) for row in range(1, k) for column in range(row)] or [(1, 0)]
    gap = 0.03 if size > 1 else 0.0
    cell = (1.0 - gap * (size - 1)) / size
    layout: dict = {
        "height": height or max(420, 150 * size + 90),
        "margin": {"l": 60, "r": 10, "t": 30, "b": 50},
        "dragmode": "select",
        "hovermode": "closest",
        "showlegend": True,
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
    }
    traces: list[dict] = []
    layers = _layers(points)
    marks = _mark_rows(points)
    for number, (row, column) in enumerate(pairs, start=1):
        suffix = "" if number == 1 else str(number)
        x_domain = column * (cell + gap)
        top = 1.0 - (row - 1) * (cell + gap)
        layout[f"xaxis{suffix}"] = {
            "domain": [x_domain, x_domain + cell],
            "anchor": f"y{suffix}",
            "title": {"text": _text(names[column]) if row == size else None, "standoff": 2},
            "showticklabels": row == size,
        }
        layout[f"yaxis{suffix}"] = {
            "domain": [max(top - cell, 0.0), top],
            "anchor": f"x{suffix}",
            "title": {"text": _text(names[row]) if column == 0 else None, "standoff": 2},
            "showticklabels": column == 0,
        }
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        hover = (
            f"policy %{{customdata[0]}}<br>{_text(names[column])}: %{{x:.4g}}"
            f"<br>{_text(names[row])}: %{{y:.4g}}<extra></extra>"
        )
        first = number == 1
        shown: set[str] = set()
        for name, rows, colour, hollow in layers:
            traces.append(
                _scatter(
                    x=points.values[rows, column],
                    y=points.values[rows, row],
                    mode="markers",
                    marker={
                        "color": colour,
                        "size": 6,
                        "symbol": "circle-open" if hollow else "circle",
                    },
                    customdata=rows[:, None],
                    hovertemplate=hover,
                    name=name,
                    legendgroup=name,
                    showlegend=first and name not in shown,
                    **axes,
                )
            )
            shown.add(name)
        for name, rows in marks:
            symbol, colour, marker_size = MARK_STYLES[name]
            traces.append(
                _scatter(
                    x=points.values[rows, column],
                    y=points.values[rows, row],
                    mode="markers",
                    marker={
                        "symbol": symbol,
                        "color": colour,
                        "size": marker_size,
                        "line": {"width": 1, "color": "black"},
                    },
                    customdata=rows[:, None],
                    hovertemplate=f"{name}: " + hover,
                    name=name,
                    legendgroup=name,
                    showlegend=first,
                    **axes,
                )
            )
        if points.aspiration is not None:
            traces.append(
                _scatter(
                    x=[points.aspiration[column]],
                    y=[points.aspiration[row]],
                    mode="markers",
                    marker={"symbol": "x-thin", "size": 16, "line": {"width": 3, "color": "black"}},
                    hovertemplate="aspiration<extra></extra>",
                    name="aspiration",
                    legendgroup="aspiration",
                    showlegend=first,
                    **axes,
                )
            )
    return _figure(traces, layout)


def axis_scale(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per objective (low, span) mapping `values` onto [0, 1] for parallel coordinates (a
    constant objective sits in the middle)."""
    low = values.min(axis=0) if len(values) else np.zeros(values.shape[1])
    high = values.max(axis=0) if len(values) else np.ones(values.shape[1])
    span = np.where(high > low, high - low, 0.0)
    return low, span


def _scaled(values: np.ndarray, low: np.ndarray, span: np.ndarray) -> np.ndarray:
    safe = np.where(span > 0, span, 1.0)
    return np.where(span > 0, (values - low) / safe, 0.5)


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
    low, span = axis_scale(points.values)
    scaled = _scaled(points.values, low, span)
    traces: list[dict] = []
    shown: set[str] = set()
    for name, rows, colour, _ in _layers(points):
        x, y = _polylines(scaled[rows])
        traces.append(
            _scatter(
                x=x,
                y=y,
                mode="lines",
                line={"color": colour, "width": 1 if colour == GREYED_COLOUR else 1.5},
                hoverinfo="skip",
                name=name,
                legendgroup=name,
                showlegend=name not in shown,
            )
        )
        shown.add(name)
    # The values on the axes: what a box selects (a point's x is its axis).
    for name, rows, colour, _ in _layers(points):
        traces.append(
            _scatter(
                x=np.repeat(np.arange(k), len(rows)),
                y=scaled[rows].T.ravel(),
                mode="markers",
                marker={"size": 5, "color": colour},
                customdata=np.column_stack([np.tile(rows, k), points.values[rows].T.ravel()]),
                hovertemplate="policy %{customdata[0]}: %{customdata[1]:.4g}<extra></extra>",
                name=name,
                legendgroup=name,
                showlegend=False,
            )
        )
    for name, rows in _mark_rows(points):
        symbol, colour, _ = MARK_STYLES[name]
        x, y = _polylines(scaled[rows])
        traces.append(
            _scatter(
                x=x,
                y=y,
                mode="lines+markers",
                line={"color": colour, "width": 3},
                marker={"symbol": symbol, "size": 9, "color": colour},
                hoverinfo="skip",
                name=name,
            )
        )
    if points.aspiration is not None:
        x, y = _polylines(_scaled(points.aspiration[None, :], low, span))
        traces.append(
            _scatter(
                x=x,
                y=np.clip(y, -0.1, 1.1),
                mode="lines+markers",
                line={"color": "black", "width": 2, "dash": "dash"},
                marker={"symbol": "x-thin", "size": 12, "line": {"width": 2, "color": "black"}},
                hoverinfo="skip",
                name="aspiration",
            )
        )
    high = low + span
    annotations = []
    for axis in range(k):
        for value, y, anchor in ((high[axis], 1.0, "bottom"), (low[axis], 0.0, "top")):
            annotations.append(
                {
                    "x": axis,
                    "y": y,
                    "text": f"{value:.4g}",
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
        "hovermode": "closest",
        "xaxis": {
            "tickvals": list(range(k)),
            "ticktext": [_text(name) for name in names],
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
    aspiration, in units of that objective's range on the front."""
    values = np.asarray(relative_difference, dtype=np.float64)
    names = [_text(name) for name in objective_names]
    colours = ["#2ca02c" if value >= 0 else SELECTED_COLOUR for value in values]
    return go.Figure(
        go.Bar(
            x=values,
            y=names,
            orientation="h",
            marker={"color": colours},
            text=[f"{value:+.2f}" for value in values],
            textposition="auto",
            hovertemplate="%{y}: %{x:+.3f} of the front's range<extra></extra>",
        ),
        layout={
            "height": 60 + 28 * len(names),
            "margin": {"l": 10, "r": 10, "t": 30, "b": 30},
            "title": {"text": "picked policy − aspiration (÷ front range)", "font": {"size": 13}},
            "xaxis": {"zeroline": True, "zerolinewidth": 2, "zerolinecolor": "#444"},
            "yaxis": {"autorange": "reversed"},
        },
    )
