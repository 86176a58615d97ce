"""Publication figures: the front, the objective pairs, a training run and RTG following drawn
with matplotlib for a paper, from the same data the dashboard's plotly figures draw
(`FrontSeries`, `ViewPoints`, `StepFront`, the RTG arrays).

The style is fixed, so that every figure of a paper looks alike: a one- or two-column width
(`paper_width`), the Okabe–Ito colour-blind-safe palette with a distinct marker per agent (so
agents stay apart in greyscale), dominated points hollow, the known front as a black line, and
every axis titled by its objective's unit and "higher is better" (`Objective.axis_title`).
Output (`figure_bytes`, `save_figure`) is vector PDF or SVG with the glyphs embedded (PDF: the
TrueType font itself; SVG: each glyph as a path, so the file needs no font), or a 300 dpi PNG.

Each plotted trace carries a `gid` (``series-0-front``, ``series-0-dominated``, ``known-front``,
...), which SVG output keeps as the id of the trace's group: a reader (or a test) can find a
trace's points by it. No pyplot: figures are plain `matplotlib.figure.Figure` objects, never
shown, and drawing holds one lock because matplotlib's settings are global.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.envs import EnvSpec, Objective
from paretoscope.errors import ParetoscopeError
from paretoscope.figures.labels import known_front_name
from paretoscope.metrics import non_dominated

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from paretoscope.envs.known_fronts import KnownFront
    from paretoscope.figures.front import FrontSeries
    from paretoscope.figures.objectives import ViewPoints
    from paretoscope.runs.fronts import StepFront

# Text widths of a two-column paper (IEEE, ACM, NeurIPS-like templates): one column, both.
PAPER_WIDTHS = {"single": 3.5, "double": 7.16}
# Widths given in inches must lie in this range.
SMALLEST_WIDTH, LARGEST_WIDTH = 1.0, 20.0
FORMATS = ("pdf", "svg", "png")
MIME_TYPES = {"pdf": "application/pdf", "svg": "image/svg+xml", "png": "image/png"}
PNG_DPI = 300

# Okabe & Ito (2008), "Color Universal Design": told apart with every common colour-vision
# deficiency; black is kept for the known front.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#999999")
# One marker per agent (the palette's order): the shapes tell agents apart in greyscale.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<")
KNOWN_FRONT_COLOUR = "#000000"
OLDER_FRONT_COLOUR = "#999999"
# The decision marks of the objectives figure: (marker, size in points).
MARK_STYLES = {"knee": ("D", 7.0), "compromise": ("s", 7.0), "aspiration pick": ("*", 9.0)}

# Sizes fit for a figure printed at its width: 8 pt text, 7 pt ticks and legend.
_STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",  # ships with matplotlib: the same glyphs everywhere
    "font.size": 8.0,
    "axes.labelsize": 8.0,
    "axes.titlesize": 8.0,
    "xtick.labelsize": 7.0,
    "ytick.labelsize": 7.0,
    "legend.fontsize": 7.0,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "lines.linewidth": 1.0,
    "lines.markersize": 4.5,
    "lines.markeredgewidth": 0.9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    # Fonts embedded: TrueType (Type 42) in PDF and PostScript, glyphs as paths in SVG.
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "path",
    # The same figure gives the same SVG bytes (its ids are salted by this, not at random).
    "svg.hashsalt": "paretoscope",
}
# matplotlib's settings are global: one figure is styled, drawn or saved at a time.
_LOCK = threading.RLock()
# Height over width per figure, and the tallest a figure is drawn (inches).
_ASPECT = {"front": 0.8, "objectives": 0.9, "training": 0.8, "metrics": 0.8}
_TALLEST = 6.0


@contextmanager
def _styled() -> Iterator[None]:
    import matplotlib

    with _LOCK, matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]
        yield


def paper_width(width: str | float) -> float:
    """A figure's width in inches: "single" (one column, 3.5 in), "double" (both columns,
    7.16 in) or a number of inches (1 to 20)."""
    if isinstance(width, str) and width.strip().lower() in PAPER_WIDTHS:
        return PAPER_WIDTHS[width.strip().lower()]
    try:
        inches = float(width)
    except (TypeError, ValueError):
        raise ParetoscopeError(
            f"width: expected single, double or a number of inches, got {width!r}"
        ) from None
    if not SMALLEST_WIDTH <= inches <= LARGEST_WIDTH:
        raise ParetoscopeError(
            f"width: expected {SMALLEST_WIDTH:g} to {LARGEST_WIDTH:g} inches, got {width!r}"
        )
    return inches


def figure_format(path: str | Path) -> str:
    """The output format a file name asks for (its suffix): pdf, svg or png."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise ParetoscopeError(
            f"{str(path)!r}: a figure is written as .pdf, .svg or .png, not "
            + (f".{suffix}" if suffix else "a file without a suffix")
        )
    return suffix


def figure_bytes(figure: Figure, fmt: str) -> bytes:
    """`figure` as a PDF, SVG or PNG file's bytes (the same bytes for the same figure)."""
    if fmt not in FORMATS:
        raise ParetoscopeError(f"format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    # No creation date: the same figure gives the same file.
    metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {}}[fmt]
    buffer = io.BytesIO()
    with _styled():
        figure.savefig(buffer, format=fmt, dpi=PNG_DPI, metadata=metadata)
    return buffer.getvalue()


def save_figure(figure: Figure, path: str | Path) -> Path:
    """Write `figure` to `path` in the format its suffix names; returns the path."""
    from paretoscope.atomic import write_bytes_atomically

    target = Path(path)
    write_bytes_atomically(target, figure_bytes(figure, figure_format(target)))
    return target


def axis_label(objective: Objective, compact: bool = False) -> str:
    """An objective's axis title: its unit and which way is better ("speed return (m/s),
    higher is better"); `compact` for the small panels of a matrix ("speed (m/s) ↑")."""
    if not compact:
        return objective.axis_title
    unit = f" ({objective.unit})" if objective.unit else ""
    return f"{objective.name}{unit} ↑"


def _new_figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, min(height, _TALLEST)), layout="constrained")


def _agent_style(index: int) -> tuple[str, str]:
    return PALETTE[index % len(PALETTE)], MARKERS[index % len(MARKERS)]


def _points(
    axes: Axes,
    x: np.ndarray,
    y: np.ndarray,
    colour: str,
    marker: str,
    hollow: bool,
    gid: str,
    label: str = "_nolegend_",
) -> None:
    """Markers only, filled or hollow, as one trace named `gid`."""
    axes.plot(
        x,
        y,
        linestyle="none",
        marker=marker,
        color=colour,
        markerfacecolor="none" if hollow else colour,
        markeredgecolor=colour,
        label=label,
        gid=gid,
    )


def _dominated_key(axes: Axes) -> None:
    """A legend entry saying what hollow markers mean."""
    _points(axes, np.zeros(0), np.zeros(0), "#555555", "o", True, "legend-dominated", "dominated")


def paper_front(
    spec: EnvSpec,
    series: Sequence[FrontSeries],
    known_front: KnownFront | None = None,
    objectives: Sequence[int] = (0, 1),
    width: str | float = "single",
) -> Figure:
    """The front of each agent in `series` on the objectives `objectives` (two indices):
    non-dominated points filled, dominated ones hollow, one colour and marker per agent, and
    `known_front` as a black line (as points when the env has more than two objectives, whose
    projection is no line)."""
    a, b = (int(index) for index in objectives)
    inches = paper_width(width)
    with _styled():
        figure = _new_figure(inches, inches * _ASPECT["front"])
        axes = figure.add_subplot()
        any_dominated = False
        for index, entry in enumerate(series):
            if len(entry.returns) == 0:
                continue
            colour, marker = _agent_style(index)
            mask = non_dominated(entry.returns)
            returns = entry.returns
            _points(
                axes,
                returns[mask, a],
                returns[mask, b],
                colour,
                marker,
                False,
                f"series-{index}-front",
                entry.name,
            )
            if (~mask).any():
                any_dominated = True
                _points(
                    axes,
                    returns[~mask, a],
                    returns[~mask, b],
                    colour,
                    marker,
                    True,
                    f"series-{index}-dominated",
                )
        if known_front is not None and len(known_front.points):
            points = np.asarray(known_front.points, dtype=np.float64)
            if spec.n_obj == 2:
                points = points[np.argsort(points[:, a], kind="stable")]
                axes.plot(
                    points[:, a],
                    points[:, b],
                    color=KNOWN_FRONT_COLOUR,
                    linewidth=0.9,
                    label=known_front_name(known_front),
                    gid="known-front",
                    zorder=1,
                )
            else:
                axes.plot(
                    points[:, a],
                    points[:, b],
                    linestyle="none",
                    marker="x",
                    markersize=3.0,
                    color=KNOWN_FRONT_COLOUR,
                    label=known_front_name(known_front),
                    gid="known-front",
                    zorder=1,
                )
        if any_dominated:
            _dominated_key(axes)
        axes.set_xlabel(axis_label(spec.objectives[a]))
        axes.set_ylabel(axis_label(spec.objectives[b]))
        axes.legend(loc="best")
    return figure


def paper_objectives(spec: EnvSpec, points: ViewPoints, width: str | float = "double") -> Figure:
    """Every pair of objectives of one agent's policies (objective j across, i up, below the
    diagonal): non-dominated policies filled, dominated hollow, the decision marks (knees, the
    compromise, an aspiration pick) as black outlined markers."""
    inches = paper_width(width)
    names = list(points.objective_names)
    k = len(names)
    if k < 2:
        raise ParetoscopeError("an objectives figure needs two objectives or more")
    panels = k - 1
    with _styled():
        figure = _new_figure(inches, inches * _ASPECT["objectives"])
        grid = figure.subplots(panels, panels, squeeze=False)
        values = points.values
        front = ~points.dominated
        colour, marker = _agent_style(0)
        legend_axes = None
        for row in range(panels):
            for column in range(panels):
                axes = grid[row][column]
                i, j = row + 1, column  # objective i up, objective j across
                if j >= i:
                    axes.set_visible(False)
                    continue
                legend_axes = legend_axes or axes
                gid = f"panel-{i}-{j}"
                _points(
                    axes,
                    values[front, j],
                    values[front, i],
                    colour,
                    marker,
                    False,
                    f"{gid}-front",
                    "non-dominated",
                )
                _points(
                    axes,
                    values[~front, j],
                    values[~front, i],
                    colour,
                    marker,
                    True,
                    f"{gid}-dominated",
                    "dominated",
                )
                for name, ids in points.marks.items():
                    if name not in MARK_STYLES or not len(ids):
                        continue
                    symbol, size = MARK_STYLES[name]
                    rows = np.asarray(ids, dtype=int)
                    axes.plot(
                        values[rows, j],
                        values[rows, i],
                        linestyle="none",
                        marker=symbol,
                        markersize=size,
                        markerfacecolor="none",
                        markeredgecolor=KNOWN_FRONT_COLOUR,
                        label=name,
                        gid=f"{gid}-{name.replace(' ', '-')}",
                    )
                if row == panels - 1:
                    axes.set_xlabel(axis_label(spec.objectives[j], compact=k > 2))
                if column == 0:
                    axes.set_ylabel(axis_label(spec.objectives[i], compact=k > 2))
        if legend_axes is not None:
            handles, labels = legend_axes.get_legend_handles_labels()
            if k > 2:
                figure.legend(handles, labels, loc="upper right")
            else:
                legend_axes.legend(handles, labels, loc="best")
    return figure


def paper_training(
    spec: EnvSpec,
    fronts: Sequence[StepFront],
    step: int,
    fade: int = 4,
    objectives: Sequence[int] = (0, 1),
    width: str | float = "single",
) -> Figure:
    """A training run's front at `step` (non-dominated points filled and joined by the
    staircase they dominate, dominated ones hollow) over the `fade` fronts before it in grey,
    older ones fainter."""
    a, b = (int(index) for index in objectives)
    ordered = sorted(fronts, key=lambda front: front.step)
    steps = [int(front.step) for front in ordered]
    if step not in steps:
        raise ParetoscopeError(f"step {step}: the run's steps are {steps}")
    position = steps.index(step)
    inches = paper_width(width)
    with _styled():
        figure = _new_figure(inches, inches * _ASPECT["training"])
        axes = figure.add_subplot()
        older = ordered[max(0, position - fade) : position]
        for age, front in enumerate(reversed(older), start=1):
            returns = np.asarray(front.returns, dtype=np.float64)
            _points(
                axes,
                returns[:, a],
                returns[:, b],
                OLDER_FRONT_COLOUR,
                "o",
                False,
                f"step-{int(front.step)}",
                f"step {int(front.step)}",
            )
            axes.lines[-1].set_alpha(0.85 - 0.6 * (age - 1) / max(fade - 1, 1))
            axes.lines[-1].set_markersize(3.0)
        returns = np.asarray(ordered[position].returns, dtype=np.float64)
        mask = non_dominated(returns[:, [a, b]])
        colour, marker = _agent_style(0)
        rows = np.flatnonzero(mask)
        rows = rows[np.argsort(returns[rows, a], kind="stable")]
        axes.plot(
            returns[rows, a],
            returns[rows, b],
            drawstyle="steps-pre",  # vertical then across: the border of what it dominates
            color=colour,
            marker=marker,
            markerfacecolor=colour,
            label=f"step {step}",
            gid=f"step-{step}-front",
        )
        if (~mask).any():
            _points(
                axes,
                returns[~mask, a],
                returns[~mask, b],
                colour,
                marker,
                True,
                f"step-{step}-dominated",
                f"step {step} (dominated)",
            )
        axes.set_xlabel(axis_label(spec.objectives[a]))
        axes.set_ylabel(axis_label(spec.objectives[b]))
        axes.legend(loc="best")
    return figure


def paper_metrics(
    metrics: pd.DataFrame, step: int | None = None, width: str | float = "single"
) -> Figure:
    """Hypervolume (top) and expected utility (bottom) of a run's fronts over its training
    steps (`paretoscope.runs.fronts.step_metrics`' table), `step` marked by a dotted line."""
    from paretoscope.figures.training import METRICS
    from paretoscope.runs.fronts import STEP_COLUMN

    inches = paper_width(width)
    steps = metrics[STEP_COLUMN].to_numpy(dtype=np.int64)
    with _styled():
        figure = _new_figure(inches, inches * _ASPECT["metrics"])
        panels = figure.subplots(len(METRICS), 1, sharex=True, squeeze=False)
        for index, (column, title) in enumerate(METRICS.items()):
            axes = panels[index][0]
            colour, marker = _agent_style(index)
            axes.plot(
                steps,
                metrics[column].to_numpy(dtype=np.float64),
                color=colour,
                marker=marker,
                gid=f"metric-{column}",
            )
            axes.set_ylabel(f"{title} ↑")
            if step is not None:
                axes.axvline(step, color="#777777", linestyle=":", linewidth=0.8)
        panels[-1][0].set_xlabel("training step")
    return figure


def paper_rtg(
    spec: EnvSpec,
    targets: np.ndarray,
    preferences: np.ndarray,
    returns: np.ndarray,
    return_ratios: np.ndarray,
    dataset_min: Sequence[float] | None = None,
    dataset_max: Sequence[float] | None = None,
    width: str | float = "double",
) -> Figure:
    """RTG following, PEDA's two panels per objective (one column each): the achieved weighted
    return p_i·R_i against the target's p_i·target_i (top, with y = x and the dataset's range
    of the objective), and the achieved return ratio R_i / ΣR against the preference p_i
    (bottom, with y = x; undefined ratios left out)."""
    n_obj = spec.n_obj
    weighted_target = np.asarray(preferences, dtype=np.float64) * np.asarray(targets)
    weighted_return = np.asarray(preferences, dtype=np.float64) * np.asarray(returns)
    prefs = np.asarray(preferences, dtype=np.float64)
    ratios = np.asarray(return_ratios, dtype=np.float64)
    inches = paper_width(width)
    with _styled():
        figure = _new_figure(inches, inches / n_obj * 2 * 0.85)
        panels = figure.subplots(2, n_obj, squeeze=False)
        for index, objective in enumerate(spec.objectives):
            x, y = weighted_target[:, index], weighted_return[:, index]
            span = [float(v) for v in (*x, *y) if np.isfinite(v)]
            for bound in (dataset_min, dataset_max):
                if bound is not None:
                    span.append(float(bound[index]))
            low, high = (min(span), max(span)) if span else (0.0, 1.0)
            top = panels[0][index]
            top.plot([low, high], [low, high], color="black", linestyle="--", linewidth=0.8)
            for bound in (dataset_min, dataset_max):
                if bound is not None:
                    top.axhline(float(bound[index]), color="#777777", linestyle=":", linewidth=0.8)
            _points(top, x, y, PALETTE[0], MARKERS[0], False, f"rtg-target-{index}")
            unit = f" ({objective.unit})" if objective.unit else ""
            top.set_title(objective.name + unit)
            top.set_xlabel("target p·return")
            bottom = panels[1][index]
            keep = np.isfinite(ratios[:, index])
            bottom.plot([0, 1], [0, 1], color="black", linestyle="--", linewidth=0.8)
            _points(
                bottom,
                prefs[keep, index],
                ratios[keep, index],
                PALETTE[1],
                MARKERS[1],
                False,
                f"rtg-ratio-{index}",
            )
            bottom.set_xlim(-0.05, 1.05)
            bottom.set_xlabel("preference")
            if index == 0:
                top.set_ylabel("achieved p·return")
                bottom.set_ylabel("return ratio")
    return figure
