"""Figures of the dashboard: pure functions from numbers to `plotly.graph_objects.Figure`.

Nothing here touches Streamlit, files or agents; every function takes arrays and returns a
figure, so each can be tested on its own. Clickable points carry ``customdata`` that tells the
page what was clicked (`selected_custom_data` reads a Streamlit selection back).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from paretoscope.metrics import non_dominated
from paretoscope.mixing import one_env

if TYPE_CHECKING:
    from paretoscope.envs.known_fronts import KnownFront

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
# The uids of the front's marker traces, drawn last: a slider move changes only them (and the
# arrow between them), so the browser moves them without redrawing the front (`front_chart`).
MOVING_TRACES = ("target", "current")
# Above this many points a 2-D cloud is drawn with WebGL.
WEBGL_THRESHOLD = 2000
# The cloud is subsampled (deterministically) above this many points.
CLOUD_LIMIT = 20000


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

    values: Sequence[float]
    label: str


def reference_marker(reference: Sequence[float] | np.ndarray, axes: Sequence[int]) -> go.Scatter:
    """The hypervolume's reference point, a black cross on the objectives `axes`."""
    return go.Scatter(
        x=[reference[axes[0]]],
        y=[reference[axes[1]]],
        mode="markers",
        name="reference point",
        marker={"color": "black", "size": 13, "symbol": "x"},
    )


def _text(text: str) -> str:
    """A user's string (an agent's label) as plotly text: plotly reads `<a href>`, `<b>` and
    entities in names and hover labels, so `<`, `>` and `&` are written as entities."""
    return html.escape(str(text), quote=False)


def _fmt(values: Sequence[float] | np.ndarray, digits: int = 3) -> str:
    return ", ".join(f"{float(value):.{digits}g}" for value in values)


def point_text(
    objective_names: Sequence[str],
    preference: Sequence[float],
    returns: Sequence[float],
    target: Sequence[float] | None = None,
    seed: int | None = None,
    regret: float | None = None,
) -> str:
    """The hover text of one point: preference, target, returns, seed and its regret against
    the known front."""
    names = list(objective_names)
    lines = [
        "preference: "
        + ", ".join(f"{n} {float(p):.2f}" for n, p in zip(names, preference, strict=True)),
        "returns: " + ", ".join(f"{n} {float(r):.4g}" for n, r in zip(names, returns, strict=True)),
    ]
    if target is not None and np.any(np.asarray(target) != 0):
        lines.append("target: " + _fmt(target, 4))
    if seed is not None:
        lines.append(f"seed: {int(seed)}")
    if regret is not None:
        lines.append(f"regret vs known front: {float(regret):.4g}")
    return "<br>".join(lines)


def known_front_name(known: KnownFront) -> str:
    """The legend entry of a known front: says whether it is exact or an approximation."""
    return "known front (exact)" if known.exact else "known front (approximate)"


def _known_front_hover(objective_names: Sequence[str], known: KnownFront) -> list[str]:
    head = f"{known_front_name(known)}, γ = {known.gamma:g}"
    source = _text(known.source)
    return [
        head
        + "<br>returns: "
        + ", ".join(f"{_text(n)} {float(v):.4g}" for n, v in zip(objective_names, row, strict=True))
        + "<br>"
        + source
        for row in known.points
    ]


def check_known_front(known: KnownFront | None, env_id: str | None) -> None:
    """A known front is drawn only over fronts of its own env (and with its objective count)."""
    if known is not None and env_id is not None:
        one_env([("known front", known.env_id), ("the sweeps", env_id)], "known front")


def _axis_title(objective_names: Sequence[str], index: int) -> str:
    return f"{objective_names[index]} return"


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
    figure = go.Figure()

    def add(trace_kwargs: dict, points: np.ndarray, webgl: bool = False) -> None:
        coordinates = {
            "x": points[:, axes[0]],
            "y": points[:, axes[1]],
        }
        if three_d:
            coordinates["z"] = points[:, axes[2]]
            figure.add_trace(go.Scatter3d(**coordinates, **trace_kwargs))
        elif webgl:
            figure.add_trace(go.Scattergl(**coordinates, **trace_kwargs))
        else:
            figure.add_trace(go.Scatter(**coordinates, **trace_kwargs))

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
                    "name": _text(entry.name) + ("" if undominated else " (dominated)"),
                    "legendgroup": _text(entry.name),
                    "marker": {
                        "size": 6 if three_d else 10,
                        "color": colour,
                        "symbol": "circle" if undominated else "circle-open",
                        "line": {"width": 1.5, "color": colour},
                        "opacity": 1.0 if undominated else 0.7,
                    },
                    "customdata": [[index, int(row)] for row in rows],
                    "hovertext": [texts[row] for row in rows],
                    "hovertemplate": "%{hovertext}<extra>" + _text(entry.name) + "</extra>",
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
                "hovertext": _known_front_hover(objective_names, known_front),
                "hovertemplate": "%{hovertext}<extra></extra>",
            },
            np.asarray(known_front.points, dtype=np.float64),
        )

    if reference_point is not None:
        reference = np.asarray(reference_point, dtype=np.float64)[None, :]
        add(
            {
                "mode": "markers",
                "name": "reference point",
                "marker": {"size": 8 if three_d else 12, "color": "black", "symbol": "x"},
                "hovertemplate": "reference point: " + _fmt(reference[0], 4) + "<extra></extra>",
            },
            reference,
        )
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
                "hovertemplate": target.label + ": " + _fmt(target.values, 4) + "<extra></extra>",
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
                "hovertemplate": current.label + ": " + _fmt(current.values, 4) + "<extra></extra>",
            },
            np.asarray(current.values, dtype=np.float64)[None, :],
        )
    if target is not None and current is not None and not three_d:
        start = np.asarray(target.values, dtype=np.float64)
        end = np.asarray(current.values, dtype=np.float64)
        figure.add_annotation(
            x=end[axes[0]],
            y=end[axes[1]],
            ax=start[axes[0]],
            ay=start[axes[1]],
            xref="x",
            yref="y",
            axref="x",
            ayref="y",
            showarrow=True,
            arrowhead=2,
            arrowcolor=TARGET_COLOUR,
            opacity=0.6,
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
            "xaxis_title": _axis_title(objective_names, axes[0]),
            "yaxis_title": _axis_title(objective_names, axes[1]),
            "zaxis_title": _axis_title(objective_names, axes[2]),
        }
    else:
        layout["xaxis_title"] = _axis_title(objective_names, axes[0])
        layout["yaxis_title"] = _axis_title(objective_names, axes[1])
        # Room for the tick labels (Streamlit's theme gives it; the page's own chart has none).
        layout["xaxis_automargin"] = layout["yaxis_automargin"] = True
    figure.update_layout(**layout)
    return figure


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


def selected_custom_data(figure: go.Figure, points: Sequence[Mapping]) -> list[list[int]]:
    """The ``customdata`` of the points in a Streamlit selection (``event["selection"]["points"]``).

    Uses the point's own ``customdata`` when the browser sent it, else looks it up from the
    trace (``curve_number``) and the point's index in it.
    """
    found = []
    for point in points:
        data = point.get("customdata")
        if data is None:
            curve = point.get("curve_number")
            index = point.get("point_index", point.get("point_number"))
            if curve is None or index is None or curve >= len(figure.data):
                continue
            trace_data = figure.data[curve].customdata
            if trace_data is None or index >= len(trace_data):
                continue
            data = trace_data[index]
        if data is None:
            continue
        if isinstance(data, Mapping):
            # A row of a 2-D numpy customdata (sent to the browser as a typed array) comes
            # back as {"0": a, "1": b}: its values in index order.
            data = [data[key] for key in sorted(data, key=int)]
        found.append([int(value) for value in data])
    return found


# --- preference pickers ---------------------------------------------------------------------------


def ternary_figure(
    objective_names: Sequence[str],
    candidates: np.ndarray,
    current: Sequence[float] | np.ndarray | None = None,
    height: int = 320,
) -> go.Figure:
    """A clickable simplex for three objectives: every candidate preference is a point
    (``customdata = [k]``), the current preference is a star."""
    if len(objective_names) != 3:
        raise ValueError("a ternary plot needs exactly three objectives")
    grid = np.asarray(candidates, dtype=np.float64)
    figure = go.Figure()
    figure.add_trace(
        go.Scatterternary(
            a=grid[:, 0],
            b=grid[:, 1],
            c=grid[:, 2],
            mode="markers",
            name="preferences",
            marker={"size": 9, "color": "rgba(31, 119, 180, 0.35)"},
            customdata=[[k] for k in range(len(grid))],
            hovertemplate=(
                f"{objective_names[0]} %{{a:.2f}}<br>{objective_names[1]} %{{b:.2f}}"
                f"<br>{objective_names[2]} %{{c:.2f}}<extra></extra>"
            ),
        )
    )
    if current is not None:
        point = np.asarray(current, dtype=np.float64)
        figure.add_trace(
            go.Scatterternary(
                a=[point[0]],
                b=[point[1]],
                c=[point[2]],
                mode="markers",
                name="current",
                marker={"size": 16, "color": CURRENT_COLOUR, "symbol": "star"},
                hoverinfo="skip",
            )
        )
    figure.update_layout(
        height=height,
        showlegend=False,
        margin={"l": 30, "r": 30, "t": 30, "b": 20},
        clickmode="event+select",
        ternary={
            "aaxis": {"title": objective_names[0], "min": 0},
            "baxis": {"title": objective_names[1], "min": 0},
            "caxis": {"title": objective_names[2], "min": 0},
        },
    )
    return figure


# --- one episode ----------------------------------------------------------------------------------


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


# --- RTG following and metrics --------------------------------------------------------------------


def rtg_target_figure(
    objective_names: Sequence[str],
    targets: np.ndarray,
    preferences: np.ndarray,
    returns: np.ndarray,
    dataset_min: Sequence[float] | None = None,
    dataset_max: Sequence[float] | None = None,
    labels: Sequence[str] | None = None,
    height: int = 340,
) -> go.Figure:
    """PEDA's first RTG panel, per objective: target weighted return p_i·target_i (x) against
    achieved p_i·R_i (y), the y = x oracle and the dataset's min/max return of the objective."""
    n_obj = len(objective_names)
    weighted_target = np.asarray(preferences) * np.asarray(targets)
    weighted_return = np.asarray(preferences) * np.asarray(returns)
    from plotly.subplots import make_subplots  # 0.1 s to import: kept off the first page

    figure = make_subplots(rows=1, cols=n_obj, subplot_titles=list(objective_names))
    for index in range(n_obj):
        x = weighted_target[:, index]
        y = weighted_return[:, index]
        span = [v for v in (*x, *y) if np.isfinite(v)]
        if dataset_max is not None:
            span.append(float(dataset_max[index]))
        if dataset_min is not None:
            span.append(float(dataset_min[index]))
        low, high = (min(span), max(span)) if span else (0.0, 1.0)
        figure.add_trace(
            go.Scatter(
                x=[low, high],
                y=[low, high],
                mode="lines",
                name="oracle (y = x)",
                line={"color": "black", "dash": "dash", "width": 1},
                showlegend=index == 0,
                legendgroup="oracle",
            ),
            row=1,
            col=index + 1,
        )
        for bound, value in (("min", dataset_min), ("max", dataset_max)):
            if value is None:
                continue
            figure.add_trace(
                go.Scatter(
                    x=[low, high],
                    y=[float(value[index])] * 2,
                    mode="lines",
                    name=f"dataset {bound}",
                    line={"color": "grey", "dash": "dot", "width": 1},
                    showlegend=index == 0,
                    legendgroup=f"dataset {bound}",
                ),
                row=1,
                col=index + 1,
            )
        hover = [
            f"p={_fmt(preferences[row], 2)}<br>target={_fmt(targets[row], 4)}"
            f"<br>return={_fmt(returns[row], 4)}"
            + (f"<br>{labels[row]}" if labels is not None else "")
            for row in range(len(x))
        ]
        figure.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="markers",
                name="episodes",
                marker={"color": PALETTE[0], "size": 8},
                hovertext=hover,
                hovertemplate="%{hovertext}<extra></extra>",
                showlegend=index == 0,
                legendgroup="episodes",
            ),
            row=1,
            col=index + 1,
        )
        figure.update_xaxes(title_text="target weighted return", row=1, col=index + 1)
        figure.update_yaxes(title_text="achieved weighted return", row=1, col=index + 1)
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "y": 1.25, "x": 0},
    )
    return figure


def rtg_ratio_figure(
    objective_names: Sequence[str],
    preferences: np.ndarray,
    return_ratios: np.ndarray,
    height: int = 340,
) -> go.Figure:
    """PEDA's second RTG panel, per objective: target preference p_i (x) against the achieved
    return ratio R_i / ΣR (y), with the y = x line. NaN ratios (undefined) are left out."""
    n_obj = len(objective_names)
    prefs = np.asarray(preferences, dtype=np.float64)
    ratios = np.asarray(return_ratios, dtype=np.float64)
    from plotly.subplots import make_subplots  # 0.1 s to import: kept off the first page

    figure = make_subplots(rows=1, cols=n_obj, subplot_titles=list(objective_names))
    for index in range(n_obj):
        keep = np.isfinite(ratios[:, index])
        figure.add_trace(
            go.Scatter(
                x=[0, 1],
                y=[0, 1],
                mode="lines",
                name="y = x",
                line={"color": "black", "dash": "dash", "width": 1},
                showlegend=index == 0,
            ),
            row=1,
            col=index + 1,
        )
        figure.add_trace(
            go.Scatter(
                x=prefs[keep, index],
                y=ratios[keep, index],
                mode="markers",
                name="episodes",
                marker={"color": PALETTE[1], "size": 8},
                showlegend=index == 0,
            ),
            row=1,
            col=index + 1,
        )
        figure.update_xaxes(
            title_text="target preference", range=[-0.05, 1.05], row=1, col=index + 1
        )
        figure.update_yaxes(title_text="achieved return ratio", row=1, col=index + 1)
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "y": 1.25, "x": 0},
    )
    return figure


def dominated_region(
    points: np.ndarray, reference_point: Sequence[float] | np.ndarray
) -> np.ndarray:
    """The 2-D region dominated by `points` above `reference_point`, as a closed polygon (K, 2).

    Its area is the hypervolume; empty (0, 2) when no point is above the reference point.
    """
    reference = np.asarray(reference_point, dtype=np.float64)
    values = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    above = values[(values > reference).all(axis=1)]
    if len(above) == 0:
        return np.zeros((0, 2))
    front = above[non_dominated(above)]
    front = np.unique(front, axis=0)
    front = front[np.argsort(-front[:, 0])]  # x descending, so y ascends along the staircase
    outline = [(front[0][0], reference[1])]
    for index, (x, y) in enumerate(front):
        outline.append((x, y))
        next_x = front[index + 1][0] if index + 1 < len(front) else reference[0]
        outline.append((next_x, y))
    outline.append((reference[0], reference[1]))
    outline.append(outline[0])
    return np.asarray(outline, dtype=np.float64)


def polygon_area(polygon: np.ndarray) -> float:
    """Shoelace area of a closed or open simple polygon (K, 2)."""
    if len(polygon) < 3:
        return 0.0
    x, y = polygon[:, 0], polygon[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def hypervolume_figure(
    objective_names: Sequence[str],
    series: Sequence[FrontSeries],
    reference_point: Sequence[float],
    axes: Sequence[int] = (0, 1),
    height: int = 420,
    known_front: KnownFront | None = None,
) -> go.Figure:
    """The fronts with the region each dominates above the reference point shaded (2-D
    projection on `axes`), the env's known front and the reference point marked. Series of
    different envs (or a known front of another env) raise `ParetoscopeError`."""
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
                    name=f"{_text(entry.name)}: dominated region",
                    hoverinfo="skip",
                )
            )
        mask = non_dominated(points)
        figure.add_trace(
            go.Scatter(
                x=points[:, 0],
                y=points[:, 1],
                mode="markers",
                name=_text(entry.name),
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
                hovertext=_known_front_hover(objective_names, known_front),
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    figure.add_trace(reference_marker(reference, (a, b)))
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=_axis_title(objective_names, a),
        yaxis_title=_axis_title(objective_names, b),
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


# --- datasets -------------------------------------------------------------------------------------


def dataset_returns_figure(
    objective_names: Sequence[str],
    returns: np.ndarray,
    preferences: np.ndarray,
    colour_objective: int = 0,
    front_indices: Sequence[int] | None = None,
    selected: int | None = None,
    axes: Sequence[int] = (0, 1),
    height: int = 460,
) -> go.Figure:
    """Trajectory returns coloured by the weight of one objective in their preference; the
    dataset's non-dominated set outlined; clicking a point gives ``customdata = [index]``."""
    a, b = int(axes[0]), int(axes[1])
    values = np.asarray(returns, dtype=np.float64)
    prefs = np.asarray(preferences, dtype=np.float64)
    indices = np.arange(len(values))
    if len(values) > CLOUD_LIMIT:
        indices = np.linspace(0, len(values) - 1, CLOUD_LIMIT).round().astype(int)
    trace = go.Scattergl if len(indices) > WEBGL_THRESHOLD else go.Scatter
    figure = go.Figure()
    figure.add_trace(
        trace(
            x=values[indices, a],
            y=values[indices, b],
            mode="markers",
            name="trajectories",
            marker={
                "size": 6,
                "color": prefs[indices, colour_objective],
                "colorscale": "Viridis",
                "cmin": 0.0,
                "cmax": 1.0,
                "colorbar": {"title": f"weight of {objective_names[colour_objective]}"},
            },
            customdata=[[int(i)] for i in indices],
            hovertemplate=(
                "trajectory %{customdata[0]}<br>"
                + f"{objective_names[a]} %{{x:.4g}}<br>{objective_names[b]} %{{y:.4g}}"
                + "<extra></extra>"
            ),
        )
    )
    if front_indices is not None and len(front_indices):
        front = np.asarray(front_indices, dtype=int)
        order = np.argsort(-values[front, a])
        front = front[order]
        figure.add_trace(
            go.Scatter(
                x=values[front, a],
                y=values[front, b],
                mode="lines+markers",
                name="non-dominated",
                line={"color": "black", "width": 1, "shape": "hv"},
                marker={"size": 10, "symbol": "circle-open", "color": "black"},
                customdata=[[int(i)] for i in front],
                hovertemplate="trajectory %{customdata[0]} (non-dominated)<extra></extra>",
            )
        )
    if selected is not None and 0 <= selected < len(values):
        figure.add_trace(
            go.Scatter(
                x=[values[selected, a]],
                y=[values[selected, b]],
                mode="markers",
                name=f"trajectory {selected}",
                marker={"size": 18, "symbol": "star", "color": CURRENT_COLOUR},
                customdata=[[int(selected)]],
                hoverinfo="skip",
            )
        )
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=_axis_title(objective_names, a),
        yaxis_title=_axis_title(objective_names, b),
        legend={"orientation": "h", "y": -0.2},
        clickmode="event+select",
    )
    return figure


def preference_coverage_figure(
    objective_names: Sequence[str],
    bin_edges: Sequence[float],
    histograms: Sequence[Sequence[int]],
    height: int = 300,
) -> go.Figure:
    """How many trajectories the dataset holds per preference weight, one panel per objective."""
    edges = np.asarray(bin_edges, dtype=np.float64)
    centres = (edges[:-1] + edges[1:]) / 2
    widths = np.diff(edges)
    n_obj = len(objective_names)
    from plotly.subplots import make_subplots  # 0.1 s to import: kept off the first page

    figure = make_subplots(rows=1, cols=n_obj, subplot_titles=list(objective_names))
    for index in range(n_obj):
        figure.add_trace(
            go.Bar(
                x=centres,
                y=list(histograms[index]),
                width=widths,
                marker={"color": PALETTE[index % len(PALETTE)]},
                name=objective_names[index],
                showlegend=False,
            ),
            row=1,
            col=index + 1,
        )
        figure.update_xaxes(title_text="preference weight", range=[0, 1], row=1, col=index + 1)
    figure.update_yaxes(title_text="trajectories", row=1, col=1)
    figure.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return figure
