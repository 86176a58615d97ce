"""The posterior of two objectives' weights as a small static SVG picture, for Choose.

The same picture as `figures.posterior.posterior_figure` draws for two objectives (the mass of
the first weight in `SEGMENT_BINS` bins of [0, 1], the credible interval shaded, the mean
marked), drawn as plain SVG: the browser shows it as an image in a few milliseconds. Redrawn
with Plotly at every answer, it held the browser's main thread for ~0.3 s while the next pair's
videos loaded (`benchmarks/bench_choose.py`). Three objectives or more stay Plotly charts.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from paretoscope.figures.posterior import SEGMENT_BINS
from paretoscope.figures.style import CURRENT_COLOUR, PALETTE
from paretoscope.text import number

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 12, 46  # margins around the plot area
FONT = 'font-family="sans-serif" font-size="12" fill="#555"'


def segment_svg(
    objective_names: Sequence[str], mass: np.ndarray, mean: float, low: float, high: float
) -> str:
    """The posterior `mass` (SEGMENT_BINS,) of the weight on the first of two objectives, its
    `mean` and its credible interval from `low` to `high`."""
    first, second = (html.escape(str(name)) for name in objective_names)
    mass = np.asarray(mass, dtype=np.float64)
    width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max(float(mass.max()), 1e-12) * 1.05

    def x(weight: float) -> float:
        return LEFT + min(max(weight, 0.0), 1.0) * width

    def y(value: float) -> float:
        return TOP + height * (1.0 - value / top)

    bottom = TOP + height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<rect x="{x(low):.1f}" y="{TOP}" width="{x(high) - x(low):.1f}" height="{height}" '
        f'fill="{PALETTE[0]}" fill-opacity="0.12"/>',
    ]
    bar = width / SEGMENT_BINS
    for index, value in enumerate(mass):
        parts.append(
            f'<rect x="{LEFT + index * bar:.1f}" y="{y(value):.1f}" width="{bar:.1f}" '
            f'height="{bottom - y(value):.1f}" fill="{PALETTE[0]}"/>'
        )
    parts.append(
        f'<line x1="{x(mean):.1f}" x2="{x(mean):.1f}" y1="{TOP}" y2="{bottom}" '
        f'stroke="{CURRENT_COLOUR}" stroke-width="3"/>'
    )
    axis = f'x1="{LEFT}" x2="{LEFT + width}" y1="{bottom}" y2="{bottom}"'
    parts.append(f'<line {axis} stroke="#999"/>')
    for fraction in (0.0, 0.5, 1.0):
        anchor = ("start", "middle", "end")[int(fraction * 2)]
        parts.append(
            f'<text x="{x(fraction):.1f}" y="{bottom + 16}" text-anchor="{anchor}" {FONT}>'
            f"{number(fraction)}</text>"
        )
    for value in (0.0, top / 1.05):
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" {FONT}>'
            f"{value:.2f}</text>"
        )
    parts.append(
        f'<text x="{LEFT + width / 2}" y="{HEIGHT - 6}" text-anchor="middle" {FONT}>'
        f"weight on {first} (0: all on {second}, 1: all on {first})</text>"
    )
    parts.append(
        f'<text x="14" y="{TOP + height / 2}" text-anchor="middle" {FONT} '
        f'transform="rotate(-90 14 {TOP + height / 2})">posterior mass</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
