"""The front panel: a small raster plot of a 2-D front with one highlighted point (the tour's
right half).

Plotly cannot draw to pixels without extra software, and a tour needs one picture per video
frame, so the panel is drawn with Pillow: the static part (axes, points, labels) once, the
moving point and its trail on a copy per frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paretoscope.metrics import non_dominated
from paretoscope.render.plot_area import PlotArea, tick_label, ticks
from paretoscope.video import ELLIPSIS, fit_text, text_font

if TYPE_CHECKING:
    from PIL import ImageDraw

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
        # Text readable on a slide: ~15 px on a 480-px panel, never under 10.
        self.font_size = max(10, self.size // 32)
        self.margin_left = max(40, 5 * self.font_size)
        self.margin_bottom = max(30, 3 * self.font_size)
        self.margin_top = max(16, 2 * self.font_size)
        self.margin_right = max(10, self.size // 24)
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
        self._draw_ticks(draw, font)
        x_name = objective_names[self.axes[0]]
        y_name = objective_names[self.axes[1]]
        x_title = f"{x_name} (higher is better)"
        draw.text(
            (right - font.getlength(x_title), bottom + self.font_size + 6),
            x_title,
            fill=AXIS,
            font=font,
        )
        y_title = f"{y_name} (higher is better)"
        title_row = max(0, top - self.font_size - 4)
        draw.text((4, title_row), y_title, fill=AXIS, font=font)
        if title:
            # Above the plot, right of the y axis' title: inside the plot, the legend hid it.
            room = right - (4 + font.getlength(y_title) + self.font_size)
            shown = fit_text(title, font, room)
            if len(shown) > len(ELLIPSIS) + 3:  # a few letters at least, or nothing
                draw.text((right - font.getlength(shown), title_row), shown, fill=AXIS, font=font)
        self._draw_legend(draw, font, cloud_values is not None)
        self._background = np.asarray(image)

    def _draw_ticks(self, draw: ImageDraw.ImageDraw, font: Any) -> None:
        """Round values along both axes, each with a short mark and its number."""
        area = self.area
        for axis in (0, 1):
            values = ticks(area.low[axis], area.high[axis], count=4)
            step = values[1] - values[0] if len(values) > 1 else 1.0
            for value in values:
                point = np.array([[value, area.low[1]]] if axis == 0 else [[area.low[0], value]])
                column, row = self.to_pixels(point)[0]
                text = tick_label(value, step)
                if axis == 0:
                    draw.line([(column, area.bottom), (column, area.bottom + 4)], fill=AXIS)
                    width = font.getlength(text)
                    draw.text((column - width / 2, area.bottom + 5), text, fill=AXIS, font=font)
                else:
                    draw.line([(area.left - 4, row), (area.left, row)], fill=AXIS)
                    width = font.getlength(text)
                    top = row - self.font_size / 2
                    draw.text((area.left - 6 - width, top), text, fill=AXIS, font=font)

    def _draw_legend(
        self,
        draw: ImageDraw.ImageDraw,
        font: Any,
        with_cloud: bool,
    ) -> None:
        """What each mark means, top right inside the plot (the front bends away from it)."""
        entries: list[tuple[str, tuple[int, int, int], bool]] = [
            ("best trade-offs", FRONT, True),
            ("beaten by another point", DOMINATED, False),
        ]
        if with_cloud:
            entries.append(("the dataset's episodes", CLOUD, True))
        entries.append(("stops already shown", TRAIL, True))
        entries.append(("this stop", HIGHLIGHT, True))
        line_height = self.font_size + 4
        width = max(font.getlength(text) for text, _, _ in entries) + self.font_size + 10
        right = self.area.right - 4
        left = right - width
        top = self.area.top + 4
        draw.rectangle(
            (left - 4, top - 2, right + 2, top + line_height * len(entries) + 2),
            fill=BACKGROUND,
            outline=DOMINATED,
        )
        radius = max(3, self.font_size // 3)
        for index, (text, colour, filled) in enumerate(entries):
            middle = top + index * line_height + line_height // 2
            box = (left, middle - radius, left + 2 * radius, middle + radius)
            if filled:
                draw.ellipse(box, fill=colour, outline=colour)
            else:
                draw.ellipse(box, outline=colour, width=2)
            draw.text(
                (left + 2 * radius + 6, middle - self.font_size / 2 - 1), text, fill=AXIS, font=font
            )

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
