"""Where values land on a raster plot: a value box mapped onto a pixel box, y growing upwards,
and round tick values for its axes. The Pillow plots (`paretoscope.render.front_panel`,
`paretoscope.runs.evolution`) draw through it, so a value's pixel is one pure function of the box.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PADDING = 0.08  # of the value span, on each side, so that no point sits on an axis


@dataclass(frozen=True)
class PlotArea:
    """Values (x, y) in [low, high] drawn on pixels left..right (x) and bottom..top (y)."""

    low: tuple[float, float]
    high: tuple[float, float]
    left: int
    top: int
    right: int
    bottom: int

    @classmethod
    def covering(cls, values: np.ndarray, box: Sequence[int], padding: float = PADDING) -> PlotArea:
        """The area on pixel `box` (left, top, right, bottom) whose value range covers every
        (x, y) row of `values`, widened by `padding` of the span on each side (a flat axis
        spans 1 around its value)."""
        data = np.asarray(values, dtype=np.float64).reshape(-1, 2)
        low = data.min(axis=0)
        high = data.max(axis=0)
        span = np.where(high - low > 0, high - low, 1.0)
        left, top, right, bottom = (int(edge) for edge in box)
        return cls(
            low=(float(low[0] - padding * span[0]), float(low[1] - padding * span[1])),
            high=(float(high[0] + padding * span[0]), float(high[1] + padding * span[1])),
            left=left,
            top=top,
            right=right,
            bottom=bottom,
        )

    def to_pixels(self, values: np.ndarray) -> np.ndarray:
        """Pixel (column, row) of each (x, y) value, rounded to ints, shape (N, 2)."""
        data = np.asarray(values, dtype=np.float64).reshape(-1, 2)
        low = np.asarray(self.low)
        fraction = (data - low) / (np.asarray(self.high) - low)
        columns = self.left + fraction[:, 0] * (self.right - self.left)
        rows = self.bottom - fraction[:, 1] * (self.bottom - self.top)
        return np.column_stack([columns, rows]).round().astype(int)


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round values (1, 2 or 5 times a power of ten apart) inside [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low or count < 1:
        return []
    raw = (high - low) / count
    power = 10.0 ** math.floor(math.log10(raw))
    # The round step nearest `raw` (on a log scale): 1, 2, 5 or 10 times `power`.
    limits = ((1.0, 2**0.5), (2.0, 10**0.5), (5.0, 50**0.5))
    step = power * next((m for m, limit in limits if raw / power <= limit), 10.0)
    first = math.ceil(low / step)
    last = math.floor(high / step)
    # Multiplying (not adding) keeps 0.1 * 3 from drifting; 0.0 not -0.0.
    return [round(index * step, 12) + 0.0 for index in range(first, last + 1)]


def tick_label(value: float, step: float) -> str:
    """`value` with as many decimals as a tick `step` needs (engineering form when huge)."""
    if value == 0:
        return "0"
    if abs(value) >= 1e6 or abs(step) < 1e-4:
        return f"{value:.3g}"
    decimals = max(0, -math.floor(math.log10(abs(step)))) if step else 0
    return f"{value:.{decimals}f}"
