"""The Pareto front: agents' sweeps as points, the dataset cloud, the env's known front, the
reference point, the current rollout and its target; and the grid of invisible points that lets a
click anywhere pick a target. Clickable points carry ``customdata`` that tells the page what was
clicked (`paretoscope.figures.selection` reads it back)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.fitted_axes import fitted_ranges, off_axis_reference
from paretoscope.figures.labels import (
    format_values,
    known_front_hover,
    known_front_name,
    plotly_text,
    point_text,
)
from paretoscope.figures.style import (
    CLOUD_COLOUR,
    CLOUD_LIMIT,
    CURRENT_COLOUR,
    KNOWN_FRONT_COLOUR,
    PALETTE,
    TARGET_COLOUR,
    WEBGL_THRESHOLD,
    axis_title,
)
from paretoscope.metrics import non_dominated
from paretoscope.mixing import one_env

if TYPE_CHECKING:
    from paretoscope.envs.known_fronts import KnownFront

# The uids of the front's marker traces, drawn last: a slider move changes only them (and the
# arrow between them), so the browser moves them without redrawing the front (`front_chart`).
MOVING_TRACES = ("target", "current")


@dataclass(frozen=True)
class FrontSeries:
    """One agent's sweep on `env_id` as points: returns, preferences, targets and seeds per
    point, and each point's regret against the env's known front where it has one.

    `env_id` is required: a figure draws series of one env only (`paretoscope.mixing.one_env`)."""

    name: str
    returns: np.ndarray  # (N, n_obj)
    preferences: np.ndarray  # (N, n_obj)
    targets: np.ndarray | None = None  # (N, n_obj) initial targets, or None
    seeds: np.ndarray | None = None  # (N,)
    regret: np.ndarray | None = None  # (N,) best w.v on the known front minus the point's
    env_id: str = field(kw_only=True)

    def __post_init__(self) -> None:
        returns = np.asarray(self.returns, dtype=np.float64)
        if returns.ndim != 2:
            raise ValueError(f"returns: expected (N, n_obj), got {returns.shape}")
        preferences = np.asarray(self.preferences, dtype=np.float64)
        if preferences.shape != returns.shape:
            raise ValueError(f"preferences: expected {returns.shape}, got {preferences.shape}")
        object.__setattr__(self, "returns", returns)
        object.__setattr__(self, "preferences", preferences)
        if self.regret is not None:
            regret = np.asarray(self.regret, dtype=np.float64)
            if regret.shape != (len(returns),):
                raise ValueError(f"regret: expected ({len(returns)},), got {regret.shape}")
            object.__setattr__(self, "regret", regret)


@dataclass(frozen=True)
class Marker:
    """A single highlighted point (the current rollout, a target) with a label."""

    values: Sequence[float] | np.ndarray
    label: str


def check_known_front(known: KnownFront | None, env_id: str | None) -> None:
    """A known front is drawn only over fronts of its own env (and with its objective count)."""
    if known is not None and env_id is not None:
        one_env([("known front", known.env_id), ("the sweeps", env_id)], "known front")


def _subsample(points: np.ndarray, limit: int) -> np.ndarray:
    if len(points) <= limit:
        return points
    index = np.linspace(0, len(points) - 1, limit).round().astype(int)
    return points[index]


def front_figure(
    objective_names: Sequence[str],
    series: Sequence[FrontSeries],
    dataset_returns: np.ndarray | None = None,
    reference_point: Sequence[float] | None = None,
    current: Marker | None = None,
    target: Marker | None = None,
    axes: Sequence[int] | None = None,
    target_grid: np.ndarray | None = None,
    tolerance: float = 0.0,
    height: int = 480,
    known_front: KnownFront | None = None,
    include_reference: bool = False,
) -> go.Figure:
    """The Pareto front: sweeps (undominated filled, dominated hollow), the dataset cloud,
    the env's known front (its own trace, labelled exact or approximate, the source in its
    hover), the reference point, the current rollout and the target.

    Every series must be of one env, and the known front of that env: anything else raises
    `ParetoscopeError` (`paretoscope.mixing`).

    `axes` picks the objectives drawn: two indices give a 2-D plot, three a 3-D one; by default
    all objectives when there are two or three, else the first two. Sweep points carry
    ``customdata = [series index, row index]``; points of `target_grid` (K, n_obj) — invisible
    until hovered — carry ``[-1, k]`` so a click anywhere in objective space picks a target.

    The axes are fitted to the sweeps, the dataset cloud and the known front, with a margin
    (`fitted_axes`): the reference point is on them only when `include_reference`, and one off
    them is named by an arrow at the edge. The moving markers (this rollout, the target) do not
    set the ranges, so that moving them never redraws the front (`widgets.front_chart`).
    """
    n_obj = len(objective_names)
    if axes is None:
        axes = list(range(n_obj)) if n_obj <= 3 else [0, 1]
    axes = [int(axis) for axis in axes]
    if len(axes) not in (2, 3) or any(not 0 <= axis < n_obj for axis in axes):
        raise ValueError(f"axes: expected 2 or 3 objective indices below {n_obj}, got {axes}")
    three_d = len(axes) == 3
    env_id = one_env([(entry.name, entry.env_id) for entry in series], "front figure")
    check_known_front(known_front, env_id)
    # The figure is made once, from its traces and its layout: Plotly's `update_layout` on a
    # made figure costs five times as much (~4 ms), at every one of a page's reruns.
    traces: list[Any] = []
    fitted: list[np.ndarray] = [entry.returns for entry in series]

    def add(trace_kwargs: dict, points: np.ndarray, webgl: bool = False) -> Any:
        coordinates = {
            "x": points[:, axes[0]],
            "y": points[:, axes[1]],
        }
        if three_d:
            coordinates["z"] = points[:, axes[2]]
            trace = go.Scatter3d(**coordinates, **trace_kwargs)
        elif webgl:
            trace = go.Scattergl(**coordinates, **trace_kwargs)
        else:
            trace = go.Scatter(**coordinates, **trace_kwargs)
        traces.append(trace)
        return trace

    if target_grid is not None and len(target_grid) and not three_d:
        grid = np.asarray(target_grid, dtype=np.float64)
        add(
            {
                "mode": "markers",
                "name": "pick a target",
                "marker": {"size": 14, "color": "rgba(0,0,0,0.02)"},
                "customdata": [[-1, k] for k in range(len(grid))],
                "hovertemplate": "target here: %{x:.4g}, %{y:.4g}<extra></extra>",
                "showlegend": False,
            },
            grid,
        )

    if dataset_returns is not None and len(dataset_returns):
        cloud = _subsample(np.asarray(dataset_returns, dtype=np.float64), CLOUD_LIMIT)
        add(
            {
                "mode": "markers",
                "name": "dataset trajectories",
                "marker": {"size": 3 if three_d else 5, "color": CLOUD_COLOUR},
                "hoverinfo": "skip",
            },
            cloud,
            webgl=len(cloud) > WEBGL_THRESHOLD,
        )
        fitted.append(cloud)

    for index, entry in enumerate(series):
        if len(entry.returns) == 0:
            continue
        colour = PALETTE[index % len(PALETTE)]
        mask = non_dominated(entry.returns, tolerance=tolerance)
        texts = [
            point_text(
                objective_names,
                entry.preferences[row],
                entry.returns[row],
                None if entry.targets is None else entry.targets[row],
                None if entry.seeds is None else int(entry.seeds[row]),
                None if entry.regret is None else float(entry.regret[row]),
            )
            for row in range(len(entry.returns))
        ]
        for undominated in (True, False):
            rows = np.flatnonzero(mask == undominated)
            if len(rows) == 0:
                continue
            add(
                {
                    "mode": "markers",
                    "name": plotly_text(entry.name) + ("" if undominated else " (dominated)"),
                    "legendgroup": plotly_text(entry.name),
                    "marker": {
                        "size": 6 if three_d else 10,
                        "color": colour,
                        "symbol": "circle" if undominated else "circle-open",
                        "line": {"width": 1.5, "color": colour},
                        "opacity": 1.0 if undominated else 0.7,
                    },
                    "customdata": [[index, int(row)] for row in rows],
                    "hovertext": [texts[row] for row in rows],
                    "hovertemplate": "%{hovertext}<extra>" + plotly_text(entry.name) + "</extra>",
                },
                entry.returns[rows],
            )

    if known_front is not None and len(known_front.points):
        add(
            {
                "mode": "markers",
                "name": known_front_name(known_front),
                "marker": {
                    "size": 6 if three_d else 11,
                    "color": KNOWN_FRONT_COLOUR,
                    "symbol": "diamond-open",
                    "line": {"width": 1.5, "color": KNOWN_FRONT_COLOUR},
                },
                "hovertext": known_front_hover(objective_names, known_front),
                "hovertemplate": "%{hovertext}<extra></extra>",
            },
            np.asarray(known_front.points, dtype=np.float64),
        )
        fitted.append(np.asarray(known_front.points, dtype=np.float64))

    reference_trace = None
    if reference_point is not None:
        reference = np.asarray(reference_point, dtype=np.float64)[None, :]
        reference_trace = add(
            {
                "mode": "markers",
                "name": "reference point",
                "marker": {"size": 8 if three_d else 12, "color": "black", "symbol": "x"},
                "hovertemplate": "reference point: "
                + format_values(reference[0], 4)
                + "<extra></extra>",
            },
            reference,
        )
    ranges = fitted_ranges(fitted, axes, reference_point, include_reference)
    if ranges is not None and reference_point is not None and not three_d:
        note = off_axis_reference(reference_point, axes, ranges)
        if note is not None and reference_trace is not None:
            # The arrow names it in the legend; the cross, out of view, is left out there.
            reference_trace.showlegend = False
            traces.append(note)
    if target is not None:
        add(
            {
                "uid": "target",
                "mode": "markers",
                "name": target.label,
                "marker": {
                    "size": 9 if three_d else 16,
                    "color": TARGET_COLOUR,
                    "symbol": "diamond-open" if three_d else "star-diamond-open",
                    "line": {"width": 2, "color": TARGET_COLOUR},
                },
                "hovertemplate": target.label
                + ": "
                + format_values(target.values, 4)
                + "<extra></extra>",
            },
            np.asarray(target.values, dtype=np.float64)[None, :],
        )
    if current is not None:
        add(
            {
                "uid": "current",
                "mode": "markers",
                "name": current.label,
                "marker": {
                    "size": 10 if three_d else 20,
                    "color": CURRENT_COLOUR,
                    "symbol": "diamond" if three_d else "star",
                    "line": {"width": 1.5, "color": "black"},
                },
                "hovertemplate": current.label
                + ": "
                + format_values(current.values, 4)
                + "<extra></extra>",
            },
            np.asarray(current.values, dtype=np.float64)[None, :],
        )
    annotations = []
    if target is not None and current is not None and not three_d:
        start = np.asarray(target.values, dtype=np.float64)
        end = np.asarray(current.values, dtype=np.float64)
        annotations.append(
            {
                "x": end[axes[0]],
                "y": end[axes[1]],
                "ax": start[axes[0]],
                "ay": start[axes[1]],
                "xref": "x",
                "yref": "y",
                "axref": "x",
                "ayref": "y",
                "showarrow": True,
                "arrowhead": 2,
                "arrowcolor": TARGET_COLOUR,
                "opacity": 0.6,
            }
        )

    layout: dict = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "legend": {"orientation": "h", "y": -0.15},
        "clickmode": "event+select",
        "dragmode": "pan" if three_d else "zoom",
    }
    if three_d:
        layout["scene"] = {
            f"{name}axis": {"title": axis_title(objective_names, axis)}
            | ({} if ranges is None else {"range": ranges[index]})
            for index, (name, axis) in enumerate(zip("xyz", axes, strict=True))
        }
    else:
        for name, axis, axis_range in zip("xy", axes, ranges or (None, None), strict=True):
            layout[f"{name}axis"] = {
                "title": {"text": axis_title(objective_names, axis)},
                # Room for the tick labels (Streamlit's theme gives it; the page's own chart
                # has none).
                "automargin": True,
            } | ({} if axis_range is None else {"range": axis_range})
    if annotations:
        layout["annotations"] = annotations
    return go.Figure(data=traces, layout=layout)


def target_grid(
    bounds_low: Sequence[float], bounds_high: Sequence[float], steps: int = 25
) -> np.ndarray:
    """A (steps², 2) grid spanning the box, for clicking a target anywhere in a 2-D front."""
    low = np.asarray(bounds_low, dtype=np.float64)
    high = np.asarray(bounds_high, dtype=np.float64)
    xs = np.linspace(low[0], high[0], steps)
    ys = np.linspace(low[1], high[1], steps)
    grid_x, grid_y = np.meshgrid(xs, ys)
    return np.column_stack([grid_x.ravel(), grid_y.ravel()])
