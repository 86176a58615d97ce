"""A frame as the JPEG a page shows: what the dashboard's live feeds send, and what a cluster
node sends instead of the frame's pixels (a twelfth of the bytes to move, and the server
that relays it encodes nothing)."""

from __future__ import annotations

import io

import numpy as np

QUALITY = 90  # what `st.image` uses for an array


def jpeg_bytes(image: np.ndarray, quality: int = QUALITY) -> bytes:
    """`image` ((height, width, 3) or (height, width, 4) uint8) as a JPEG of `quality`."""
    from PIL import Image

    picture = Image.fromarray(np.ascontiguousarray(np.asarray(image, dtype=np.uint8)))
    buffer = io.BytesIO()
    picture.convert("RGB").save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()
