"""The front's evolution over a training run as one MP4 for slides: one picture per step of the
`StepFront`s that `paretoscope.runs.fronts` makes (from a run's sweep, or a trainer's own logs).

`evolution_frames` draws one RGB picture per step with Pillow (plotly cannot rasterise here):
- left, the plot of objectives `axes`: the step's points that no other point dominates (over
  every objective) filled, the others hollow and pale; the points undominated in the drawn
  plane joined by a line (the same points when there are two objectives);
- behind it the fronts of the `fade` steps before, paler the older, so the motion shows;
- with a `reference_point` and two objectives, the region the step's front dominates above
  that point lightly tinted (what its hypervolume measures; it runs to the plot's edge when the
  point lies outside the axes);
- fixed axes: their ranges cover every point of every step (not the reference point), so a
  return that stays put stays on the same pixel; round ticks; objective names as labels;
- right, "step N", "k of K", the step's hypervolume (given, or computed from
  `reference_point`) and a sparkline of the hypervolume over the steps with this step marked
  (a track of the steps when there is no hypervolume).

`evolution_mp4` plays one step per video frame at `fps` (2 by default: half a second per step,
slow enough to read each front, fast enough that the motion shows) and holds the last step
for `hold` seconds, so that the final front stays on screen when playback ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.errors import ParetoscopeError
from paretoscope.metrics import hypervolume, non_dominated
from paretoscope.render.front_panel import AXIS, BACKGROUND, DOMINATED, FRONT, HIGHLIGHT
from paretoscope.render.plot_area import PlotArea, tick_label, ticks
from paretoscope.runs.fronts import StepFront
from paretoscope.text import printable
from paretoscope.video import encode_mp4, fit_text, text_font

GRID = (232, 232, 232)
MUTED = (120, 120, 120)  # secondary text, the sparkline's steps still to come
TINT = (226, 236, 246)  # the region the step's front dominates above the reference point
PAST_STRENGTH = 0.6  # the step just before is drawn at this share of the front colour
SMALLEST = (240, 160)  # (width, height): below this the labels do not fit


# --- layout --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """Where things go on a frame of (width, height) pixels."""

    width: int
    height: int
    plot: tuple[int, int, int, int]  # left, top, right, bottom
    panel: tuple[int, int, int, int]
    font_size: int

    @classmethod
    def of(cls, size: tuple[int, int]) -> _Layout:
        width, height = size
        font_size = max(9, round(height / 30))
        panel_width = round(width * 0.25)
        left = max(4 * font_size, round(width * 0.085))
        top = round(font_size * 3.6)
        right = width - panel_width - round(width * 0.03)
        bottom = height - round(font_size * 3.2)
        panel = (right + round(width * 0.03), top, width - round(width * 0.02), bottom)
        return cls(width, height, (left, top, right, bottom), panel, font_size)

    @property
    def radius(self) -> int:
        return max(3, round(self.height / 90))

    @property
    def line_width(self) -> int:
        return max(1, round(self.height / 270))


def _check_size(size: Sequence[int]) -> tuple[int, int]:
    try:
        width, height = (int(side) for side in size)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"size: expected (width, height) in pixels, got {size!r}") from None
    if width < SMALLEST[0] or height < SMALLEST[1]:
        raise ParetoscopeError(
            f"size: expected at least {SMALLEST[0]}x{SMALLEST[1]} pixels, got {width}x{height}"
        )
    return width, height


def _check_axes(axes: Sequence[int], n_obj: int) -> tuple[int, int]:
    try:
        x, y = (int(axis) for axis in axes)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"axes: expected two objective indices, got {axes!r}") from None
    if not (0 <= x < n_obj and 0 <= y < n_obj) or x == y:
        raise ParetoscopeError(
            f"axes: expected two different objective indices in 0..{n_obj - 1}, got {tuple(axes)}"
        )
    return x, y


def _check_fronts(fronts: Sequence[StepFront], n_obj: int) -> list[StepFront]:
    """`fronts` with float arrays, checked: shapes, finite returns, steps increasing."""
    if n_obj < 2:
        raise ParetoscopeError(
            f"a front is drawn on two objectives: expected 2 or more, got {n_obj}"
        )
    if len(fronts) == 0:
        raise ParetoscopeError("no fronts to draw: the run has no evaluated step")
    checked: list[StepFront] = []
    for front in fronts:
        try:
            returns = np.asarray(front.returns, dtype=np.float64)
            preferences = np.asarray(front.preferences, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ParetoscopeError(
                f"step {front.step}: returns are not numbers ({error})"
            ) from None
        if returns.ndim != 2 or returns.shape[1] != n_obj or len(returns) == 0:
            raise ParetoscopeError(
                f"step {front.step}: returns should be (preferences, {n_obj}) with at least one "
                f"preference, got shape {returns.shape}"
            )
        if preferences.shape != returns.shape:
            raise ParetoscopeError(
                f"step {front.step}: preferences {preferences.shape} and returns "
                f"{returns.shape} should have the same shape"
            )
        if not np.isfinite(returns).all():
            raise ParetoscopeError(f"step {front.step}: returns hold NaN or infinite values")
        if checked and front.step <= checked[-1].step:
            raise ParetoscopeError(
                f"fronts should be ordered by step, one per step: step {front.step} comes "
                f"after step {checked[-1].step}"
            )
        checked.append(StepFront(int(front.step), returns, preferences))
    return checked


def _vector(name: str, value: Sequence[float], length: int) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ParetoscopeError(f"{name}: expected {length} numbers, got {value!r}") from None
    if array.size != length:
        raise ParetoscopeError(f"{name}: expected {length} numbers, got {array.size}")
    if not np.isfinite(array).all():
        raise ParetoscopeError(f"{name}: holds NaN or infinite values")
    return array


def evolution_area(
    fronts: Sequence[StepFront], axes: Sequence[int] = (0, 1), size: Sequence[int] = (960, 540)
) -> PlotArea:
    """Where `evolution_frames` draws: the same for every frame, covering every step's points."""
    if len(fronts) == 0:
        raise ParetoscopeError("no fronts to draw: the run has no evaluated step")
    n_obj = np.shape(fronts[0].returns)[-1]
    checked = _check_fronts(fronts, n_obj)
    chosen = list(_check_axes(axes, n_obj))
    points = np.vstack([front.returns[:, chosen] for front in checked])
    return PlotArea.covering(points, _Layout.of(_check_size(size)).plot)


# --- drawing -------------------------------------------------------------------------------


def past_colour(age: int, fade: int) -> tuple[int, int, int]:
    """The front colour of a step `age` steps back (1..fade), blended into the background."""
    strength = PAST_STRENGTH * (fade + 1 - age) / fade
    return _blend(FRONT, strength)


def _blend(colour: tuple[int, int, int], strength: float) -> tuple[int, int, int]:
    r, g, b = (
        round(back + strength * (fore - back))
        for fore, back in zip(colour, BACKGROUND, strict=True)
    )
    return r, g, b


def number(value: float) -> str:
    """`value` to about 4 significant digits, thousands grouped: 16,450, 1.235, 0.0123."""
    magnitude = abs(value)
    if 1 <= magnitude < 1e9:
        return f"{value:,.{max(0, 3 - int(np.floor(np.log10(magnitude))))}f}"
    return f"{value:.4g}"


def _background(layout: _Layout, area: PlotArea, names: Sequence[str], title: str) -> Any:
    """The frame without its step: grid, ticks, axes, labels, title."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (layout.width, layout.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = text_font(layout.font_size)
    small_size = max(8, round(layout.font_size * 0.8))
    small = text_font(small_size)
    left, top, right, bottom = layout.plot
    gap = max(3, layout.font_size // 3)
    for axis in (0, 1):
        values = ticks(area.low[axis], area.high[axis])
        step = values[1] - values[0] if len(values) > 1 else 0.0
        for value in values:
            point = [area.low[0], area.low[1]]
            point[axis] = value
            column, row = area.to_pixels(np.array(point))[0]
            text = tick_label(value, step)
            if axis == 0:
                draw.line([(column, top), (column, bottom)], fill=GRID)
                width = small.getlength(text)
                draw.text((column - width / 2, bottom + gap), text, fill=MUTED, font=small)
            else:
                draw.line([(left, row), (right, row)], fill=GRID)
                width = small.getlength(text)
                draw.text((left - gap - width, row - small_size / 2), text, fill=MUTED, font=small)
    draw.line([(left, top), (left, bottom), (right, bottom)], fill=AXIS, width=2)
    x_name = fit_text(f"{names[0]} >", font, right - left)
    y_name = fit_text(f"^ {names[1]}", font, right - left)
    x_width = font.getlength(x_name)
    draw.text(
        (right - x_width, layout.height - 1.5 * layout.font_size), x_name, fill=AXIS, font=font
    )
    draw.text((left, top - 1.5 * layout.font_size), y_name, fill=AXIS, font=font)
    if title:
        shown = fit_text(title, font, layout.width - 2 * gap)
        draw.text((gap, gap), shown, fill=AXIS, font=font)
    return image


def _front_line(points: np.ndarray) -> list[tuple[int, int]]:
    """Pixels of the points undominated in the drawn plane, left to right."""
    kept = np.unique(points[non_dominated(points[:, 2:4])], axis=0)
    ordered = kept[np.argsort(kept[:, 2], kind="stable")]
    return [(int(column), int(row)) for column, row in ordered[:, :2]]


def _tint(draw: Any, area: PlotArea, values: np.ndarray, reference: np.ndarray) -> None:
    """The region `values` (x, y) dominate above `reference` (x, y), clipped to the plot."""
    corner = area.to_pixels(reference)[0]
    for column, row in area.to_pixels(values[(values > reference).all(axis=1)]):
        box = (
            max(area.left, int(corner[0])),
            max(area.top, int(row)),
            min(area.right, int(column)),
            min(area.bottom, int(corner[1])),
        )
        if box[0] <= box[2] and box[1] <= box[3]:
            draw.rectangle(box, fill=TINT)


def _draw_panel(
    draw: Any,
    layout: _Layout,
    fronts: Sequence[StepFront],
    index: int,
    hypervolumes: Sequence[float] | None,
) -> None:
    """The side panel: "step N", "k of K", the hypervolume and its sparkline (or a track of
    the steps)."""
    left, top, right, bottom = layout.panel
    big = text_font(round(layout.font_size * 1.6))
    font = text_font(layout.font_size)
    line = round(layout.font_size * 1.4)
    draw.text((left, top), f"step {fronts[index].step:,}", fill=AXIS, font=big)
    y = top + round(layout.font_size * 2.2)
    draw.text((left, y), f"{index + 1} of {len(fronts)}", fill=MUTED, font=font)
    y += line
    if hypervolumes is not None:
        y += line // 2
        draw.text((left, y), "hypervolume", fill=MUTED, font=font)
        y += line
        draw.text((left, y), number(hypervolumes[index]), fill=AXIS, font=big)
        y += round(layout.font_size * 2.2)
    chart_top = y + line // 2
    # A sparkline of the hypervolume, or (without one) a flat track of the steps.
    chart_height = round(layout.height * 0.22) if hypervolumes is not None else 4 * layout.radius
    chart_bottom = min(bottom, chart_top + chart_height)
    if chart_bottom - chart_top < 8:
        return
    steps = np.array([front.step for front in fronts], dtype=np.float64)
    heights = (
        np.asarray(hypervolumes, dtype=np.float64)
        if hypervolumes is not None
        else np.zeros(len(fronts))
    )
    area = PlotArea.covering(
        np.column_stack([steps, heights]), (left, chart_top, right, chart_bottom), padding=0.05
    )
    pixels = [(int(c), int(r)) for c, r in area.to_pixels(np.column_stack([steps, heights]))]
    width = layout.line_width + 1
    if len(pixels) > 1:
        draw.line(pixels, fill=GRID if hypervolumes is not None else MUTED, width=width)
        draw.line(pixels[: index + 1], fill=FRONT, width=width)
    if hypervolumes is None:
        for column, row in pixels:
            draw.line([(column, row - 3), (column, row + 3)], fill=MUTED, width=1)
    small_size = max(8, round(layout.font_size * 0.8))
    small = text_font(small_size)
    first, last = f"{fronts[0].step:,}", f"{fronts[-1].step:,}"
    below = chart_bottom + max(2, small_size // 3)
    draw.text((left, below), first, fill=MUTED, font=small)
    if len(fronts) > 1:
        draw.text((right - small.getlength(last), below), last, fill=MUTED, font=small)
    column, row = pixels[index]
    radius = layout.radius
    draw.ellipse(
        (column - radius, row - radius, column + radius, row + radius),
        fill=HIGHLIGHT,
        outline=AXIS,
    )


def evolution_frames(
    fronts: Sequence[StepFront],
    objective_names: Sequence[str],
    axes: Sequence[int] = (0, 1),
    size: Sequence[int] = (960, 540),
    fade: int = 4,
    reference_point: Sequence[float] | None = None,
    hypervolumes: Sequence[float] | None = None,
    title: str = "",
) -> Iterator[np.ndarray]:
    """One (height, width, 3) uint8 RGB frame per front, in order (see the module docstring).

    `size` is (width, height); `fade` past steps are drawn behind each step (0: none).
    `hypervolumes` (one per front) are shown as given; without them, `reference_point` (one
    number per objective) computes them. Bad input raises here, before the first frame.
    """
    names = [printable(name, limit=40) for name in objective_names]
    checked = _check_fronts(list(fronts), len(names))
    x, y = _check_axes(axes, len(names))
    width, height = _check_size(size)
    if isinstance(fade, bool) or not isinstance(fade, int | np.integer) or fade < 0:
        raise ParetoscopeError(f"fade: expected a whole number of steps, 0 or more, got {fade!r}")
    reference = None
    if reference_point is not None:
        reference = _vector("reference_point", reference_point, len(names))
    values: list[float] | None = None
    if hypervolumes is not None:
        values = _vector("hypervolumes", hypervolumes, len(checked)).tolist()
    elif reference is not None:
        values = [hypervolume(front.returns, reference) for front in checked]
    layout = _Layout.of((width, height))
    area = evolution_area(checked, (x, y), (width, height))
    background = _background(layout, area, (names[x], names[y]), printable(title, limit=200))
    # Per step: pixel column, row, value x, value y, and whether no point dominates it.
    drawn = []
    for front in checked:
        plane = front.returns[:, [x, y]]
        pixels = area.to_pixels(plane)
        drawn.append((np.column_stack([pixels, plane]), non_dominated(front.returns)))
    return _frames(checked, drawn, layout, area, background, int(fade), reference, values, (x, y))


def _frames(
    fronts: list[StepFront],
    drawn: list[tuple[np.ndarray, np.ndarray]],
    layout: _Layout,
    area: PlotArea,
    background: Any,
    fade: int,
    reference: np.ndarray | None,
    hypervolumes: list[float] | None,
    axes: tuple[int, int],
) -> Iterator[np.ndarray]:
    from PIL import ImageDraw

    radius, line_width = layout.radius, layout.line_width
    two_objectives = fronts[0].returns.shape[1] == 2
    for index, front in enumerate(fronts):
        image = background.copy()
        draw = ImageDraw.Draw(image)
        if reference is not None and two_objectives:
            _tint(draw, area, front.returns[:, list(axes)], reference[list(axes)])
        for age in range(min(fade, index), 0, -1):
            points, undominated = drawn[index - age]
            colour = past_colour(age, fade)
            line = _front_line(points)
            if len(line) > 1:
                draw.line(line, fill=colour, width=line_width)
            small = max(2, radius - 2)
            for column, row in points[undominated][:, :2].astype(int):
                draw.ellipse((column - small, row - small, column + small, row + small), colour)
        points, undominated = drawn[index]
        line = _front_line(points)
        if len(line) > 1:
            draw.line(line, fill=FRONT, width=line_width + 1)
        for (column, row), kept in zip(points[:, :2].astype(int), undominated, strict=True):
            box = (column - radius, row - radius, column + radius, row + radius)
            if kept:
                draw.ellipse(box, fill=FRONT, outline=FRONT)
            else:
                draw.ellipse(box, fill=BACKGROUND, outline=DOMINATED, width=2)
        _draw_panel(draw, layout, fronts, index, hypervolumes)
        yield np.asarray(image)


def evolution_mp4(
    fronts: Sequence[StepFront],
    objective_names: Sequence[str],
    path: str | Path | None = None,
    fps: float = 2.0,
    hold: float = 1.0,
    **frame_options: Any,
) -> bytes:
    """The frames of `evolution_frames` as an H.264 MP4 (its bytes; also written to `path`):
    one step per frame at `fps`, the last step held `hold` seconds more (round(hold * fps)
    extra frames). `frame_options` go to `evolution_frames`."""
    if not (isinstance(hold, int | float) and 0 <= hold <= 60):
        raise ParetoscopeError(f"hold: expected 0 to 60 seconds, got {hold!r}")
    if not (isinstance(fps, int | float) and 0 < fps <= 60):
        raise ParetoscopeError(f"fps: expected a number in (0, 60], got {fps!r}")
    frames = evolution_frames(fronts, objective_names, **frame_options)
    extra = round(hold * fps)

    def held() -> Iterator[np.ndarray]:
        last = None
        for frame in frames:
            last = frame
            yield frame
        for _ in range(extra):
            assert last is not None
            yield last

    # Few frames of flat colours and text: a low CRF keeps the labels sharp for little size.
    return encode_mp4(held(), fps, path, crf=18)
