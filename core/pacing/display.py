"""How many frames a second each live stream's page shows: a budget the server's streams share.

Rendering is paced by `scheduler`; *showing* a frame costs again, once per frame, on both ends:
the server encodes and sends it, and the viewer's browser decodes it and updates the page
(measured in headless Chromium: ~14 ms of the page's main thread a frame). A room of eight
streams at full rate is ~100 pictures a second, more than a 2-core server and its viewers'
browsers can take on top of their pages. So the pages share `SHOWN_FRAMES_PER_SECOND`: alone,
a stream shows `MOST` frames a second; with many, fewer, never under `LEAST` (a slower picture,
never a frozen one); and the budget shrinks while the machine has little idle CPU left
(`budget_for`). The MP4 still has a picture for every frame step (one the stream skipped
holds the picture before it). And a stream that starts among many draws its frames without
anti-aliasing (`smooth_frames`), a fraction of the renderer's time each.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from paretoscope.errors import ParetoscopeError

SHOWN_FRAMES_PER_SECOND = 36.0
MOST = 12.0
LEAST = 3.0
# Live streams open at once from which a new one draws its frames without anti-aliasing: from
# here on the pages already share the budget below `MOST`. Multisampling is most of a frame's
# cost in software GL (320x320 HalfCheetah on llvmpipe: 8.8 ms with MuJoCo's 4 samples, 3.4 ms
# without), and with eight viewers the renderer took 0.55 of the server's 0.75 cores.
ROUGH_FROM = 3


# The budget follows how busy the machine is (`paretoscope.pacing.machine.IdleShare`): whole while
# at
# least `FULL_BUDGET_IDLE` of its CPU time is idle, `LEAST_BUDGET_SHARE` of it at
# `LEAST_BUDGET_IDLE` or less, in proportion between. Eight viewers' browsers on the server's
# own two cores left it ~10% idle: ~2/3 of the budget (4.5 -> ~3 frames a second a page).
FULL_BUDGET_IDLE = 0.25
LEAST_BUDGET_IDLE = 0.05
LEAST_BUDGET_SHARE = 0.5


def budget_for(idle: float | None, budget: float = SHOWN_FRAMES_PER_SECOND) -> float:
    """The frames a second the pages share when `idle` of the machine's CPU time is idle (None:
    unknown, the whole `budget`). A proportional step, not a switch: fewer frames leave more
    idle time, which gives frames back, and the two settle in between."""
    if idle is None or idle >= FULL_BUDGET_IDLE:
        return budget
    span = FULL_BUDGET_IDLE - LEAST_BUDGET_IDLE
    reach = min(1.0, max(0.0, (idle - LEAST_BUDGET_IDLE) / span))
    return budget * (LEAST_BUDGET_SHARE + (1.0 - LEAST_BUDGET_SHARE) * reach)


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


def smooth_frames(live_streams: int, rough_from: int = ROUGH_FROM) -> bool:
    """Whether a live stream that starts while `live_streams` others are open draws
    anti-aliased frames: alone or nearly, yes; in a crowd, cheaper ones (edges show steps).
    The choice holds for the stream's whole episode, so its video is of one quality."""
    return int(live_streams) < rough_from


class Throttle:
    """True at most `rate` times a second on average (and on the first call), for UI updates.

    A token bucket, not a shortest interval: frames that come steadily a little faster than
    `rate` (a thinned stream's: HalfCheetah's 20 a second drawn every 4th, 5 a second, for a
    page showing 4.5) are shown at `rate`; a shortest interval of 1/`rate` would show every
    other one, 2.5 a second, and the server would have drawn the rest for nothing.
    """

    BURST = 2.0  # tokens kept at most: enough to absorb a steady rate up to twice `rate`

    def __init__(self, rate: float, clock: Callable[[], float] = time.perf_counter) -> None:
        self.rate = float(rate)
        self._clock = clock
        self._tokens = 1.0
        self._last: float | None = None

    def ready(self) -> bool:
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def delay(self) -> float:
        """Seconds until `ready` would be True (0: now); takes no token."""
        self._refill()
        if self._tokens >= 1.0:
            return 0.0
        return (1.0 - self._tokens) / self.rate if self.rate > 0 else math.inf

    def _refill(self) -> None:
        now = self._clock()
        if self._last is not None:
            self._tokens = min(self.BURST, self._tokens + (now - self._last) * self.rate)
        self._last = now
