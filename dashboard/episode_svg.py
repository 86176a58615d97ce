"""One episode's reward chart as a small static SVG picture: the chart beside a live stream and
a finished video.

The same two panels as `figures.episode.episode_figure` (reward per step above, cumulative
return below, one line per objective), drawn as plain SVG: the browser shows it as an image, in
a few milliseconds, where a Plotly chart costs its page ~0.5 s of main-thread work each time it is
drawn (measured in headless Chromium) — once per move for every viewer in a room. The
interactive Plotly chart is a toggle away on a finished recording.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from paretoscope.figures.episode import episode_series
from paretoscope.figures.style import PALETTE
from paretoscope.text import number

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 12, 34, 34  # margins around the plot area
GAP = 30  # between the two panels
FONT = 'font-family="sans-serif" font-size="12" fill="#555"'
LABEL_CLEARANCE = 14  # pixels between the zero line's label and the top or bottom one


def _range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    if high - low < 1e-12:
        return low - 1.0, high + 1.0
    pad = 0.05 * (high - low)
    return low - pad, high + pad


def _panel(
    title: str,
    steps: np.ndarray,
    values: np.ndarray,
    x_range: tuple[float, float],
    top: float,
    height: float,
) -> list[str]:
    """One panel's frame, labels and lines (`values`: (T, n_obj)), its top at `top`."""
    left, width = LEFT, WIDTH - LEFT - RIGHT
    low, high = _range(values)
    x_low, x_high = x_range
    parts = [
        f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="#fafafa" '
        'stroke="#ddd"/>',
        f'<text x="{left + width / 2}" y="{top - 6}" text-anchor="middle" {FONT}>'
        f"{html.escape(title)}</text>",
        f'<text x="{left - 6}" y="{top + 10}" text-anchor="end" {FONT}>{number(high)}</text>',
        f'<text x="{left - 6}" y="{top + height}" text-anchor="end" {FONT}>{number(low)}</text>',
    ]
    if low < 0 < high:  # the zero line
        zero = top + height * high / (high - low)
        parts.append(
            f'<line x1="{left}" x2="{left + width}" y1="{zero:.1f}" y2="{zero:.1f}" '
            'stroke="#ccc" stroke-dasharray="4 3"/>'
        )
        # Its "0" only where it does not print over the top or bottom value.
        if min(zero - top, top + height - zero) >= LABEL_CLEARANCE:
            parts.append(
                f'<text x="{left - 6}" y="{zero + 4:.1f}" text-anchor="end" {FONT}>0</text>'
            )
    x_span = max(x_high - x_low, 1e-12)
    for index in range(values.shape[1]):
        column = values[:, index]
        keep = np.isfinite(column) & np.isfinite(steps)
        if not keep.any():
            continue
        xs = left + width * (steps[keep] - x_low) / x_span
        ys = top + height * (high - column[keep]) / (high - low)
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
        colour = PALETTE[index % len(PALETTE)]
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.6"/>'
        )
    return parts


def episode_svg(
    objective_names: Sequence[str],
    steps: np.ndarray,
    cumulative: np.ndarray,
    horizon: int | None = None,
) -> str:
    """The SVG picture of one episode read at `steps` (T,) with `cumulative` (T, n_obj)
    returns, its step axis from 0 to `horizon` (else to its last step)."""
    n_obj = len(objective_names)
    step_values, per_step, totals = episode_series(n_obj, steps, cumulative)
    last = float(step_values.max()) if step_values.size else 1.0
    x_range = (0.0, float(horizon) if horizon else max(last, 1.0))
    panel = (HEIGHT - TOP - BOTTOM - GAP) / 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
    ]
    # The legend: one coloured label per objective, in a row above the panels.
    x = LEFT
    for index, name in enumerate(objective_names):
        colour = PALETTE[index % len(PALETTE)]
        label = html.escape(str(name))
        parts.append(
            f'<line x1="{x}" x2="{x + 18}" y1="9" y2="9" stroke="{colour}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{x + 22}" y="13" {FONT}>{label}</text>')
        x += 34 + 7 * len(str(name))
    parts += _panel("reward per step", step_values, per_step, x_range, TOP, panel)
    parts += _panel("cumulative return", step_values, totals, x_range, TOP + panel + GAP, panel)
    axis_y = HEIGHT - BOTTOM + 16
    width = WIDTH - LEFT - RIGHT
    for fraction in (0.0, 0.5, 1.0):
        tick = x_range[0] + fraction * (x_range[1] - x_range[0])
        anchor = ("start", "middle", "end")[int(fraction * 2)]
        parts.append(
            f'<text x="{LEFT + fraction * width}" y="{axis_y}" text-anchor="{anchor}" {FONT}>'
            f"{number(tick)}</text>"
        )
    parts.append(
        f'<text x="{LEFT + width / 2}" y="{HEIGHT - 4}" text-anchor="middle" {FONT}>step</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
