"""Pre-rendering while nobody watches: the episodes a viewer may ask for next, recorded ahead.

When a viewer opens Explore on the default agent, seed and video size, the page offers the
episodes at every preference of its slider's grid (nearest the current one first); Choose offers
the pairs it may ask next. One background thread records those the library lacks, as
`Kind.IDLE` streams: a frame is drawn only when no live stream or task wants a worker, so a
viewer never waits for it, and its simulation runs at the lowest OS priority; and only once no
page has run for a few seconds (`paretoscope.dashboard.activity`: a page serving a finished
video opens no stream, yet needs the cores the software renderer's threads would take).
Recordings go to the library like any other, so the next viewer to pick one of those
preferences gets the finished video at once. It stops when the recordings would take more than
`share` of the library's memory budget, and skips an episode a viewer is recording live (and
abandons one a viewer starts meanwhile).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paretoscope.agents.loaded import LoadedAgent
from paretoscope.dashboard.activity import QUIET_SECONDS, Activity
from paretoscope.pacing.gate import Cancelled, FrameGate
from paretoscope.pacing.priority import IDLE_NICENESS, lower_this_thread
from paretoscope.pacing.scheduler import Kind
from paretoscope.recordings import EpisodeRequest, RecordingLibrary

if TYPE_CHECKING:
    from paretoscope.dashboard.sidebar import Context

log = logging.getLogger("paretoscope.prerender")


@dataclass
class _Offer:
    library: RecordingLibrary
    requests: list[EpisodeRequest]
    agent: LoadedAgent
    # Lists the requests (replacing `requests`) once the server is quiet: `offer_later`.
    make: Callable[[], list[EpisodeRequest]] | None = None
    smooth: bool = True  # anti-aliased frames (2.6 times the drawing's cost in software GL)


DEFAULT_SHARE = 0.5  # of the library's memory budget


class Prerenderer:
    """Records offered episodes into `library` at idle priority, one at a time."""

    def __init__(
        self,
        gate: FrameGate,
        busy: Callable[[str], bool],
        share: float = DEFAULT_SHARE,
        activity: Activity | None = None,
        quiet_seconds: float = QUIET_SECONDS,
    ) -> None:
        self.gate = gate
        self.busy = busy  # whether a viewer's job records this key now
        self.share = share
        self.activity = activity  # page runs: each step waits for a quiet server
        self.quiet_seconds = quiet_seconds
        self._condition = threading.Condition()
        self._offer: _Offer | None = None
        self._thread: threading.Thread | None = None
        self.recorded: list[str] = []  # keys recorded here, in order

    def offer(
        self,
        library: RecordingLibrary,
        requests: Sequence[EpisodeRequest],
        agent: LoadedAgent,
        smooth: bool = True,
    ) -> None:
        """Record `requests` (in order, those `library` lacks) with `agent` into `library`,
        anti-aliased if `smooth`; replaces an earlier offer once the episode under way ends.
        Starts the thread on first use."""
        self._replace(_Offer(library, list(requests), agent, smooth=smooth))

    def offer_later(
        self,
        library: RecordingLibrary,
        make: Callable[[], list[EpisodeRequest]],
        agent: LoadedAgent,
        smooth: bool = True,
    ) -> None:
        """`offer` of the requests `make` lists, called in the pre-renderer's thread once no
        page has run for a while: a page run need not spend its time, nor hold the interpreter
        while its browser loads what it sent, to list what is recorded after it."""
        self._replace(_Offer(library, [], agent, make, smooth))

    def _replace(self, offer: _Offer) -> None:
        with self._condition:
            self._offer = offer
            self._condition.notify_all()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="paretoscope-prerender", daemon=True
                )
                self._thread.start()

    def idle(self, timeout: float) -> bool:
        """Wait until nothing is left to record (True) or `timeout` seconds pass (False)."""
        with self._condition:
            return self._condition.wait_for(lambda: self._offer is None, timeout)

    def _list_requests(self) -> None:
        """Once the server is quiet, list the current offer's requests if `offer_later` made it
        (given up when another offer replaces it meanwhile)."""
        with self._condition:
            offer = self._offer
        if offer is None or offer.make is None:
            return

        def stop_if_replaced() -> None:
            if self._offer is not offer:
                raise Cancelled

        try:
            if self.activity is not None:
                self.activity.wait_quiet(self.quiet_seconds, stop_if_replaced)
            requests = offer.make()
        except Cancelled:
            return
        except Exception as error:  # noqa: BLE001 - the page that offered reports its own
            log.warning("pre-rendering stopped: %s", error)
            requests = []
        with self._condition:
            offer.requests, offer.make = requests, None
            self._condition.notify_all()

    def _next(self) -> tuple[_Offer, EpisodeRequest] | None:
        """The next episode to record, or None after waiting for an offer (at once when the
        offer's requests are still to be listed)."""
        with self._condition:
            while (offer := self._offer) is not None:
                if offer.make is not None:
                    return None
                library = offer.library
                full = library.memory_bytes > self.share * library.capacity_bytes
                if not offer.requests or full:
                    self._offer = None
                    self._condition.notify_all()
                    break
                request = offer.requests.pop(0)
                key = request.key()
                if not self.busy(key) and library.get(key) is None:
                    return offer, request
            self._condition.wait()
            return None

    def _run(self) -> None:
        from paretoscope.render.backend import one_policy_thread

        lower_this_thread(IDLE_NICENESS)
        one_policy_thread()
        while True:
            self._list_requests()
            chosen = self._next()
            if chosen is None:
                continue
            offer, request = chosen
            key = request.key()

            def stop_if_busy(key: str = key) -> None:
                if self.busy(key):
                    raise Cancelled  # a viewer records it live now

            def check() -> None:
                stop_if_busy()
                if self.activity is not None:
                    self.activity.wait_quiet(self.quiet_seconds, stop_if_busy)

            try:
                check()  # before the episode makes its renderer (0.3 s holding the lock)
                with offer.agent.borrow() as borrowed:
                    recording = request.record_live(
                        [borrowed], self.gate, None, check, Kind.IDLE, smooth=offer.smooth
                    )
                offer.library.put(key, recording)
                self.recorded.append(key)
            except Cancelled:
                continue
            except Exception as error:  # noqa: BLE001 - a viewer's page reports it; stop here
                log.warning("pre-rendering stopped: %s", error)
                with self._condition:
                    self._offer = None
                    self._condition.notify_all()


def offer_grid(ctx: Context, loaded: LoadedAgent, preference: Sequence[float] | np.ndarray) -> None:
    """Offer the episodes at every other preference of the page's grid, nearest `preference`
    first (the page records its own; those recorded or under way are skipped in their turn)."""
    from paretoscope.metrics.preferences import preference_grid

    spec = ctx.spec
    if spec is None:
        return
    grid = preference_grid(spec.n_obj, ctx.granularity)
    distance = np.abs(grid - np.asarray(preference, dtype=np.float64)).sum(axis=1)
    order = [row for row in np.argsort(distance, kind="stable") if distance[row] > 1e-9]
    requests = [ctx.episode_request(loaded, grid[row]) for row in order]
    shared_prerenderer().offer(ctx.library, requests, loaded)


_shared: Prerenderer | None = None
_shared_lock = threading.Lock()


def shared_prerenderer() -> Prerenderer:
    """The server's pre-renderer, on the server's workers."""
    from paretoscope.dashboard.activity import shared_activity
    from paretoscope.dashboard.jobs import shared_board
    from paretoscope.dashboard.pool import shared_pool

    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Prerenderer(
                shared_pool().gate,
                lambda key: key in shared_board().running(),
                activity=shared_activity(),
            )
        return _shared
