"""The browser tab's icon, drawn here: a Material icon as `page_icon` makes the browser fetch
its picture from fonts.gstatic.com, and the page must ask no host but its own server (it works
offline, and tells no one what its users look at). Streamlit serves this picture itself."""

from __future__ import annotations

import functools

from PIL import Image, ImageDraw

SIZE = 64
COLOUR = (31, 119, 180)  # the first series' colour on every figure


@functools.cache
def page_icon() -> Image.Image:
    """Five points of a front bowing out towards the top right, and its two axes."""
    picture = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.line([(8, 6), (8, 56), (58, 56)], fill=(60, 60, 60, 255), width=4)
    for x, y in ((16, 14), (30, 17), (41, 24), (49, 34), (53, 47)):
        draw.ellipse([x - 5, y - 5, x + 5, y + 5], fill=(*COLOUR, 255))
    return picture
