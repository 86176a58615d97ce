"""Long work shown as it goes: a progress bar with the episodes done of the total and an
estimate of the time left, in a place that the page gets back empty when the work ends.

While the bar shows, what the page drew in its previous run and has not drawn again yet (the
previous agent's front, video and captions, which Streamlit would show faded) is hidden: the
viewer sees the new agent being prepared, nothing of the old one."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import streamlit as st

# Streamlit marks each element of the previous run that this run has not drawn again as stale.
HIDE_STALE = '<style>[data-testid="stElementContainer"][data-stale="true"]{display:none}</style>'


def time_left_text(seconds: float | None) -> str:
    """The estimate as a viewer reads it: "about 40 s left", "about 3 min left"."""
    if seconds is None or not math.isfinite(seconds):
        return "estimating the time left"
    if seconds < 1:
        return "almost done"
    if seconds < 90:
        return f"about {math.ceil(seconds)} s left"
    return f"about {round(seconds / 60)} min left"


class EpisodeProgress:
    """Follows (episodes done, total) and estimates the time left from the pace since the first
    report (episodes already stored when the work began do not count towards the pace)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._start: tuple[float, int] | None = None

    def text(self, what: str, done: int, total: int) -> str:
        now = self._clock()
        if self._start is None:
            self._start = (now, done)
        started_at, done_at_start = self._start
        made = done - done_at_start
        seconds = (total - done) * (now - started_at) / made if made > 0 else None
        return f"{what}: {done:,} of {total:,} episodes · {time_left_text(seconds)}"


@contextlib.contextmanager
def previous_page_hidden(place: Any) -> Iterator[None]:
    """Hide, for the block, what the page drew in its previous run and has not drawn again (an
    agent being loaded: the previous agent's page would show faded meanwhile). `place` is an
    ``st.empty()`` the caller makes at every run, needed or not: the elements after it keep
    their places from run to run (the browser keeps them, a live video's feed included)."""
    place.html(HIDE_STALE)
    try:
        yield
    finally:
        place.empty()


@contextlib.contextmanager
def episode_progress(place: Any, what: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar in `place` (as in `previous_page_hidden`) for the block, told
    `(done, total)` by the call it yields; the page's stale elements stay hidden meanwhile, and
    the place is emptied when the block ends."""
    with place.container():
        st.html(HIDE_STALE)
        bar = st.progress(0.0, text=f"{what}…")
    progress = EpisodeProgress()

    def show(done: int, total: int) -> None:
        fraction = min(1.0, done / total) if total else 1.0
        bar.progress(fraction, text=progress.text(what, done, total))

    try:
        yield show
    finally:
        place.empty()
