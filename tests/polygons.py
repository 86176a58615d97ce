"""Areas of the polygons the figures and `paretoscope.metrics.dominated_region` draw."""

from __future__ import annotations

import numpy as np


def polygon_area(polygon: np.ndarray) -> float:
    """Shoelace area of a closed or open simple polygon (K, 2)."""
    if len(polygon) < 3:
        return 0.0
    x, y = polygon[:, 0], polygon[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)
