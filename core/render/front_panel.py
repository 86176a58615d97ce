"""The front panel: a small raster plot of a 2-D front with one highlighted point (the tour's
right half).

Plotly cannot draw to pixels without extra software, and a tour needs one picture per video
frame, so the panel is drawn with Pillow: the static part (axes, points, labels) once, the
moving point and its trail on a copy per frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paretoscope.metrics import non_dominated
from paretoscope.render.plot_area import PlotArea
from paretoscope.video import text_font

BACKGROUND = (255, 255, 255)
AXIS = (60, 60, 60)
FRONT = (31, 119, 180)
DOMINATED = (160, 180, 200)
CLOUD = (170, 170, 170)
HIGHLIGHT = (255, 176, 0)
TRAIL = (255, 214, 120)


class FrontPanel:
    """A `size` x `size` RGB picture of the points on objectives `axes`, with `draw(point)`
    adding the moving point (and the stops already visited)."""

    def __init__(
        self,
        objective_names: Sequence[str],
        points: np.ndarray,
        size: int,
        axes: Sequence[int] = (0, 1),
        cloud: np.ndarray | None = None,
        title: str = "",
    ) -> None:
        from PIL import Image, ImageDraw

        self.size = int(size)
        self.axes = (int(axes[0]), int(axes[1]))
        values = np.asarray(points, dtype=np.float64)[:, self.axes]
        everything = values
        cloud_values = None
        if cloud is not None and len(cloud):
            cloud_values = np.asarray(cloud, dtype=np.float64)[:, self.axes]
            everything = np.vstack([values, cloud_values])
        self.margin_left = max(30, self.size // 8)
        self.margin_bottom = max(24, self.size // 10)
        self.margin_top = max(14, self.size // 18)
        self.margin_right = max(10, self.size // 24)
        self.font_size = max(9, self.size // 32)
        left, top = self.margin_left, self.margin_top
        right, bottom = self.size - self.margin_right, self.size - self.margin_bottom
        self.area = PlotArea.covering(everything, (left, top, right, bottom))

        image = Image.new("RGB", (self.size, self.size), BACKGROUND)
        draw = ImageDraw.Draw(image)
        font = text_font(self.font_size)
        draw.line([(left, top), (left, bottom), (right, bottom)], fill=AXIS, width=2)
        if cloud_values is not None:
            for x, y in self.to_pixels(cloud_values):
                draw.ellipse((x - 1, y - 1, x + 1, y + 1), fill=CLOUD)
        mask = non_dominated(values) if len(values) else np.zeros(0, dtype=bool)
        radius = max(3, self.size // 90)
        for (x, y), undominated in zip(self.to_pixels(values), mask, strict=True):
            box = (x - radius, y - radius, x + radius, y + radius)
            if undominated:
                draw.ellipse(box, fill=FRONT, outline=FRONT)
            else:
                draw.ellipse(box, outline=DOMINATED, width=2)
        x_name = objective_names[self.axes[0]]
        y_name = objective_names[self.axes[1]]
        draw.text((right - 6 * len(x_name) - 10, bottom + 4), f"{x_name} >", fill=AXIS, font=font)
        draw.text((4, max(0, top - self.font_size - 2)), f"^ {y_name}", fill=AXIS, font=font)
        if title:
            draw.text((left + 6, top), title, fill=AXIS, font=font)
        self._background = np.asarray(image)

    def to_pixels(self, values: np.ndarray) -> np.ndarray:
        """Pixel (column, row) of each (x, y) value; y grows upwards on the picture."""
        return self.area.to_pixels(values)

    def draw(
        self,
        point: Sequence[float] | np.ndarray,
        trail: Sequence[Sequence[float] | np.ndarray] = (),
    ) -> np.ndarray:
        """The panel with `point` (full objective vector) highlighted and `trail` marked."""
        from PIL import Image, ImageDraw

        image = Image.fromarray(self._background.copy())
        draw = ImageDraw.Draw(image)
        radius = max(5, self.size // 45)
        for visited in trail:
            x, y = self.to_pixels(np.asarray(visited, dtype=np.float64)[list(self.axes)])[0]
            small = radius // 2 + 1
            draw.ellipse((x - small, y - small, x + small, y + small), fill=TRAIL)
        x, y = self.to_pixels(np.asarray(point, dtype=np.float64)[list(self.axes)])[0]
        draw.ellipse(
            (x - radius, y - radius, x + radius, y + radius),
            fill=HIGHLIGHT,
            outline=(0, 0, 0),
            width=2,
        )
        return np.asarray(image)
