"""How many frames a second each live stream's page shows: a budget the server's streams share.

Rendering is paced by `scheduler`; *showing* a frame costs again, once per frame, on both ends:
the server encodes and sends it, and the viewer's browser decodes it and updates the page
(measured in headless Chromium: ~14 ms of the page's main thread a frame). A room of eight
streams at full rate is ~100 pictures a second, more than a 2-core server and its viewers'
browsers can take on top of their pages. So the pages share `SHOWN_FRAMES_PER_SECOND`: alone,
a stream shows `MOST` frames a second; with many, fewer, never under `LEAST` (a slower picture,
never a frozen one). The MP4 still gets every frame drawn.
"""

from __future__ import annotations

from core.errors import ParetoscopeError

SHOWN_FRAMES_PER_SECOND = 36.0
MOST = 12.0
LEAST = 3.0


def shown_rate(
    live_streams: int,
    budget: float = SHOWN_FRAMES_PER_SECOND,
    most: float = MOST,
    least: float = LEAST,
) -> float:
    """Frames a second each of `live_streams` open streams shows: `budget` shared evenly,
    within [`least`, `most`]."""
    if not (0 < least <= most) or budget <= 0:
        raise ParetoscopeError(
            f"expected 0 < least <= most and budget > 0, got {least}, {most}, {budget}"
        )
    streams = max(1, int(live_streams))
    return min(most, max(least, budget / streams))
