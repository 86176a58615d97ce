"""The one live path: every recording a page shows, and every sweep computed on a cache miss,
is a job on the server's board (`paretoscope.dashboard.jobs`) that runs on the server's rendering
workers
(`paretoscope.dashboard.pool`): a single episode paced frame by frame
(`paretoscope.recordings.paced`), other
work holding a worker for its whole length.

`show_recording_live` is what a page calls with a core recording request
(`paretoscope.recordings`): a recording already in the library plays at once; otherwise the page
follows the job that records it (frames as they are drawn: painted from the server's feed,
`paretoscope.dashboard.frame_feed`, or `st.image` updates on a server without it; and a reward
chart: the
whole episode's once a paced recording has simulated it, else a live one;
"queued (k ahead)" while other work waits for a worker, or "waiting for a
free worker" when a live stream's first frame is late), and when the recording is stored the
page reruns so the finished MP4 replaces the stream. Viewers asking for the same recording
follow the same job. A viewer who moves on (a rerun) or leaves (the session stops) stops
following at once (`stop_if_asked`; within a second, and a move in a fragment only once the
stream ends, on a Streamlit where what a run was asked cannot be read:
`paretoscope.dashboard.streamlit_internals.PENDING_RERUN`); a job nobody follows is cancelled:
a waiting one leaves the line, a running one stops at its next frame.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, NoReturn, TypeVar

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

from paretoscope.agents.loaded import LoadedAgent, borrow_all
from paretoscope.cluster.recorders import ClusterRecorders, LivePace
from paretoscope.dashboard import frame_feed
from paretoscope.dashboard import streamlit_internals as internals
from paretoscope.dashboard.cluster_live import cluster_recorders
from paretoscope.dashboard.episode_svg import episode_svg
from paretoscope.dashboard.jobs import Job, Produce, shared_board
from paretoscope.dashboard.messages import MESSAGE_LIMIT, inert
from paretoscope.dashboard.pool import live_shown_rate, shared_pool
from paretoscope.dashboard.session import session_id, session_is_active
from paretoscope.dashboard.trace import mark
from paretoscope.dashboard.widgets.episode_video import episode_video
from paretoscope.dashboard.widgets.live_frames import live_frames
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.figures.episode import episode_figure
from paretoscope.jpeg import QUALITY as JPEG_QUALITY
from paretoscope.pacing.display import MOST, Throttle, smooth_frames
from paretoscope.recordings import Recording, RecordingLibrary, RecordingRequest
from paretoscope.render import RenderingUnavailable
from paretoscope.render.backend import one_policy_thread
from paretoscope.render.playback import playback_fps

# Redraws of a stream's growing reward chart per second (an env simulated step by step).
CHART_RATE = 2.0
# Seconds between a live stream's looks for a viewer's move while no frame comes (a move waits
# for the run in progress to end, `move_waits`).
MOVE_POLL = 0.1
# Seconds a live stream's first frame may take before the page says the server is busy.
FIRST_FRAME_PATIENCE = 1.0
# Seconds between the messages a stream painted by the feed sends where what Streamlit was
# asked cannot be read (`stop_requested`): each is where Streamlit itself ends a run whose
# viewer moved on or left.
UNSEEN_MOVE_POLL = 1.0

Result = TypeVar("Result")
log = internals.server_logger("paretoscope.dashboard")


def stop_requested() -> bool:
    """True when Streamlit asked this script run to stop or rerun (the viewer moved on, or the
    session closed) and has not acted on it yet. False where that cannot be read
    (`streamlit_internals.pending_request`): Streamlit acts on it at the run's next message."""
    pending = internals.pending_request()
    return pending is not None and pending.stops_run


def move_waits() -> bool:
    """True when the viewer acted in a fragment (moved Explore's preference, clicked its front)
    and that fragment's rerun waits: Streamlit starts it only once the run in progress ends, so
    a live stream leaves then, at once. A timed rerun (`run_every`) waits its turn. False
    where that cannot be read: the move then waits for the stream to end."""
    pending = internals.pending_request()
    return pending is not None and pending.fragment_waits


def rerun_view() -> NoReturn:
    """Rerun the part of the page that shows a finished recording: the fragment running now when
    this run is a fragment's own (a viewer's move: the sidebar and the app's top stay as they
    are), else the whole app. Streamlit refuses a fragment's rerun during a full run, and from a
    fragment nested in the one rerunning: then the app reruns, as it always did."""
    with contextlib.suppress(StreamlitAPIException, RuntimeError):
        st.rerun(scope="fragment")
    st.rerun()


def stop_if_asked() -> None:
    """Let a pending stop or rerun happen now: Streamlit raises its own control exception at the
    next message, which unwinds the page (the job it followed is unsubscribed)."""
    if stop_requested():
        st.empty()


def queued_notice(slot: object) -> Callable[[int | None], None]:
    """Shows "queued (k ahead)" in `slot` (k unknown: a live stream waiting for its first
    frame while every worker is busy)."""

    def on_wait(ahead: int | None) -> None:
        where = "waiting for a free worker" if ahead is None else f"queued ({ahead} ahead)"
        slot.info(  # type: ignore[attr-defined]
            f"{where}: the server renders a few episodes at a time; this one "
            "starts as soon as a worker is free",
            icon=":material/hourglass_top:",
        )

    return on_wait


# --- the producers: what a job runs in its pool slot ------------------------------------------


def recording_producer(request: RecordingRequest, agents: Sequence[LoadedAgent]) -> Produce:
    """`produce` for a job that records `request` with `agents` (borrowed for the job): paced,
    frame by frame, when the request can be (`record_live`), else in a worker held for the
    whole recording; when nothing renders, the returns alone (with the reason) unless the
    request is video-only. Runs in the job's thread: no Streamlit calls here."""

    def produce(
        on_frame: Callable[[Any], None], on_wait: Callable[[int | None], None]
    ) -> Recording:
        cluster = cluster_recorders()
        if cluster is not None:
            try:
                return _record_on_cluster(cluster, request, agents, on_frame, on_wait)
            except ParetoscopeError as error:  # the cluster failing (the request: again here)
                log.warning("%s: this recording is made on this server instead", error)
        one_policy_thread()  # this job's thread renders too: the renderer needs the cores
        record_live = getattr(request, "record_live", None)
        if get_spec(request.env_id).camera is None:
            # Envs that draw themselves render in a worker held for the whole recording, as
            # before pacing: paced, they made a later Decide replay on the same server wait
            # (tests/e2e/test_dashboard_browser.py, cause not found yet).
            record_live = None
        with contextlib.ExitStack() as stack:
            if record_live is None:
                stack.enter_context(shared_pool().slot(on_wait))
            borrowed = stack.enter_context(borrow_all(agents))
            try:
                if record_live is not None:
                    return record_live(
                        borrowed, shared_pool().gate, on_frame, lambda: on_wait(None)
                    )
                return request.record(borrowed, on_frame)
            except RenderingUnavailable as error:
                return _without_video(request, borrowed, on_frame, error)

    return produce


def _without_video(
    request: RecordingRequest,
    agents: Sequence[Any],
    on_frame: Callable[[Any], None],
    error: RenderingUnavailable,
) -> Recording:
    """The returns alone, with why nothing was drawn (a video-only request: the error)."""
    if request.video_only:
        raise error
    recording = request.record(agents, on_frame, render=False)
    return replace(recording, meta={**recording.meta, "why": str(error)})


# A cluster's frames more than this many seconds behind their pace are relayed from then on at
# the pace again (after a resumed stream), not all at once.
CATCH_UP = 0.5
# Seconds between two frames from the cluster that the trace notes (for benchmarks).
SLOW_RELAY = 1.0
_relays = itertools.count()  # each relayed stream is its own in the frame budget


def _record_on_cluster(
    cluster: ClusterRecorders,
    request: RecordingRequest,
    agents: Sequence[LoadedAgent],
    on_frame: Callable[[Any], None],
    on_wait: Callable[[int | None], None],
) -> Recording:
    """`request` recorded by an actor on the Ray cluster, its frames relayed at the video's
    pace (the first at once; the actor runs a few frames ahead, `FRAMES_AHEAD`), the job asked
    meanwhile whether anyone still follows (`on_wait` raises then, and the actor stops). The
    stream counts in this server's frame budget as its own streams do, and the actor draws by
    the same rules (`LivePace`: the pages' rate, rough frames in a crowd). This server
    simulates and draws nothing; where the node cannot draw, the returns alone are recorded
    here, as on a server without a renderer."""
    every = getattr(request, "every", None)
    fps = None if every is None else playback_fps(request.env_id, int(every))
    gate = shared_pool().gate
    crowd = gate.live_streams()  # before this one, as a stream of this server's own chooses
    started: list[float] = []  # when frame 0 was (or would have been) relayed

    relayed = f"cluster:{request.key()}#{next(_relays)}"
    arrived: list[float] = []  # when the last frame came from the cluster

    def relay(frame: Any) -> None:
        on_wait(None)
        now = time.monotonic()
        if not arrived or now - arrived[0] > SLOW_RELAY:
            # For benchmarks: a stream's first frame, or one that came late, by how much.
            gap = None if not arrived else now - arrived[0]
            mark("cluster frame", stream=relayed, index=frame.index, gap=gap)
        arrived[:] = [now]
        if fps is not None:
            if not started or now - (started[0] + frame.index / fps) > CATCH_UP:
                started[:] = [now - frame.index / fps]
            while (wait := started[0] + frame.index / fps - time.monotonic()) > 0:
                time.sleep(min(wait, MOVE_POLL))
                on_wait(None)
        on_frame(frame)

    with borrow_all(agents) as borrowed, gate.relayed(relayed, fps or 1.0):
        pace = LivePace(gate.shown_rate(), smooth_frames(crowd))
        mark("cluster asked", stream=relayed)
        try:
            return cluster.record(
                request,
                borrowed,
                relay,
                on_actor=lambda _: mark("cluster actor", stream=relayed),
                check=lambda: on_wait(None),
                pace=pace,
                jpeg_quality=JPEG_QUALITY,  # what the feeds send: sent as is
            )
        except RenderingUnavailable as error:
            return _without_video(request, borrowed, on_frame, error)


def compute_in_pool(key: str, compute: Callable[[], Result]) -> Result:
    """`compute()` as a job on the board, in a pool slot like a rollout (viewers asking for the
    same `key` share it); waits for it. No Streamlit calls: safe inside cached functions."""
    return compute_with_progress(key, lambda _report: compute())


def compute_with_progress(
    key: str,
    compute: Callable[[Callable[[int, int], None]], Result],
    on_progress: Callable[[int, int], None] | None = None,
) -> Result:
    """`compute_in_pool` for work that reports `(done, total)` through the call it is given:
    each report reaches `on_progress` in the caller's thread (where a page may draw it); a
    viewer who joins the shared job sees its reports from then on."""

    def produce(on_frame: Callable[[Any], None], on_wait: Callable[[int | None], None]) -> Result:
        with shared_pool().slot(on_wait):
            return compute(lambda done, total: on_frame((done, total)))

    job = shared_board().follow(key, produce, lambda _: None)
    try:
        state = job.wait(0, None, timeout=0.5)
        shown = 0
        while not state.done:
            if on_progress is not None and state.frames != shown:
                shown = state.frames
                on_progress(*state.latest)
            state = job.wait(state.frames, state.ahead, timeout=0.5)
    finally:
        job.unsubscribe()
    if state.error is not None:
        raise state.error
    result: Result = state.result
    return result


# --- showing ------------------------------------------------------------------------------------


def _follow(
    library: RecordingLibrary, request: RecordingRequest, agents: Sequence[LoadedAgent]
) -> Job:
    key = request.key()
    return shared_board().follow(
        key, recording_producer(request, agents), lambda finished: library.put(key, finished)
    )


@contextlib.contextmanager
def recording_started(
    library: RecordingLibrary, request: RecordingRequest, agents: Sequence[LoadedAgent]
) -> Iterator[Job | None]:
    """Start recording `request` now, unless the library has it, and follow it for the block:
    a page that draws something else first (Explore's front) hands the job to
    `show_recording_live` afterwards, so the first frame is drawn meanwhile. The job is left
    (cancelled if nobody else follows) when the block ends, however it ends."""
    if library.get(request.key()) is not None:
        yield None
        return
    job = _follow(library, request, agents)
    try:
        yield job
    finally:
        job.unsubscribe()


def show_recording(
    recording: Recording,
    objective_names: Sequence[str],
    horizon: int,
    file_name: str,
    chart: bool = True,
    key: str = "video",
) -> None:
    """The finished recording: the MP4 (looping, ready to replay), a download, the reward chart
    of its first lane."""
    if recording.meta.get("stopped"):
        st.warning(inert(recording.meta["stopped"], MESSAGE_LIMIT), icon=":material/warning:")
    if recording.video:
        mark("video")
        episode_video(
            recording.video,
            label=f"Episode {file_name.removesuffix('.mp4')}",
            coordinates=f"paretoscope:{key}",
        )
        if recording.speed_text:  # a fast or short episode is slowed down: say so
            st.caption(f"Video: {recording.speed_text}")
        st.download_button(
            "Download MP4",
            recording.video,
            file_name=file_name,
            mime="video/mp4",
            key=f"{key}_download",
            on_click="ignore",
        )
    else:
        why = recording.meta.get("why", "rendering failed")
        st.warning("video unavailable: " + inert(why, MESSAGE_LIMIT))
    if chart and recording.length:
        steps, cumulative = recording.frame_steps[0], recording.cumulative(0)
        # A finished episode's step axis is its own length: a 6-step episode drawn on the
        # horizon's 0-1000 looked blank.
        # A picture by default (cheap for every viewer's browser); the interactive chart (hover
        # for values, zoom) on request.
        if st.toggle("Interactive reward chart", key=f"{key}_interactive"):
            st.plotly_chart(
                episode_figure(objective_names, steps, cumulative, recording.length),
                key=f"{key}_episode",
                width="stretch",
            )
        else:
            st.image(
                episode_svg(objective_names, steps, cumulative, recording.length), width="stretch"
            )


def _chart(slot: Any, objective_names: Sequence[str], steps: Sequence[Any], horizon: int) -> None:
    """The reward chart of a stream's first lane, `steps` (its frame steps so far), in `slot`."""
    frames = np.asarray([int(step.step) for step in steps])
    totals = np.asarray([np.asarray(step.cumulative_return, float) for step in steps])
    slot.image(episode_svg(objective_names, frames, totals, horizon), width="stretch")


@dataclass
class LivePlaces:
    """Where a stream is drawn: its notices, its picture, its reward chart; with the server's
    feed route (`paretoscope.dashboard.frame_feed`) the picture is painted by the feed `feed` of
    `job`
    (a page run's own, or the page's `channel`, whose picture the page draws itself), and the
    notices have a place of their own."""

    notice: Any
    picture: Any
    chart: Any
    job: Job
    feed: str | None = None
    channel: bool = False

    def close(self) -> None:
        """Stop a page run's feed (its picture keeps its last frame until the page redraws
        it); a channel goes on, to be pointed at the page's next job."""
        if self.feed is not None and not self.channel:
            frame_feed.shared_feeds().close(self.feed)
        self.feed = None

    def clear(self) -> None:
        """Close and draw nothing in these places (a channel: nothing streams)."""
        if self.channel and self.feed is not None:
            frame_feed.shared_feeds().follow(self.feed, None)
        self.close()
        for place in (self.notice, self.picture, self.chart):
            if place is not None:
                place.empty()


def live_channel(where: Any, horizon: int) -> str | None:
    """Draw in `where` (first in a column that shows one episode at a time) the page's live
    picture, the same at every run, painted from this session's channel; returns the channel,
    for `live_places` and `follow_channel`. None (nothing drawn) without the feed route."""
    if not frame_feed.installed():
        return None
    token = frame_feed.shared_feeds().channel(session_id(), "episode", session_is_active)
    live_frames(where, frame_feed.feed_url(token), horizon, "Live episode", channel=True)
    return token


def follow_channel(channel: str | None, job: Job | None) -> None:
    """Point `channel` (from `live_channel`) at `job`; None: the page shows a stored one."""
    if channel is not None:
        frame_feed.shared_feeds().follow(channel, job)


def _place(job: Job, horizon: int, file_name: str, channel: str | None = None) -> LivePlaces:
    """Places for `job`'s stream, here on the page; with a feed, its picture drawn now (or, on
    a `channel`, already drawn by the page)."""
    if channel is not None:
        follow_channel(channel, job)
        return LivePlaces(st.empty(), None, st.empty(), job, channel, channel=True)
    if not frame_feed.installed():
        picture = st.empty()
        return LivePlaces(picture, picture, st.empty(), job)
    notice, picture, chart = st.empty(), st.empty(), st.empty()
    token = frame_feed.shared_feeds().open(job, session_id())
    label = f"Live episode {file_name.removesuffix('.mp4')}"
    live_frames(picture, frame_feed.feed_url(token), horizon, label)
    return LivePlaces(notice, picture, chart, job, token)


@contextlib.contextmanager
def live_places(
    where: Any, job: Job | None, horizon: int, file_name: str, channel: str | None = None
) -> Iterator[LivePlaces | None]:
    """Place `job`'s stream now in `where` (a container), for `show_recording_live` later in
    the block: Explore places its picture before drawing its front, so the browser asks for the
    first frames while the front is drawn (on its `channel`, from `live_channel`: they are sent
    at once). The feed closes when the block ends, however it ends."""
    if job is None:
        follow_channel(channel, None)
        yield None
        return
    with where:
        places = _place(job, horizon, file_name, channel)
    try:
        yield places
    finally:
        places.close()


def show_recording_live(
    library: RecordingLibrary,
    request: RecordingRequest,
    agents: Sequence[LoadedAgent],
    objective_names: Sequence[str],
    horizon: int,
    file_name: str,
    widget_key: str = "video",
    chart: bool = True,
    progress_total: int | None = None,
    started: Job | None = None,
    places: LivePlaces | None = None,
) -> Recording | None:
    """Play `request`'s recording if the library has it; else follow the job that records it
    (`started`, from `recording_started`, or one started now), showing its frames as they come
    (in `places`, from `live_places`, or places made here; and a progress bar out of
    `progress_total` frames, when given), and rerun when it is stored. Returns the recording
    when it is shown."""
    key = request.key()
    recording = library.get(key)
    if recording is not None:
        if places is not None:
            places.clear()
        show_recording(recording, objective_names, horizon, file_name, chart, widget_key)
        return recording
    progress = st.progress(0.0, text="Rendering…") if progress_total else None
    frame_throttle = Throttle(MOST)
    chart_throttle = Throttle(CHART_RATE)
    # A started job left meanwhile (a fragment rerun after the page's block ended) is not used.
    own = started is None or started.cancelled
    job = _follow(library, request, agents) if own else started
    assert job is not None
    own_places = places is None or places.job is not job
    if own_places:
        channel = None
        if places is not None:
            channel = places.feed if places.channel else None
            places.clear()
        places = _place(job, horizon, file_name, channel)
    assert places is not None
    feed, notice_slot, image_slot, chart_slot = (
        places.feed,
        places.notice,
        places.picture,
        places.chart,
    )
    notice = queued_notice(notice_slot)
    followed = touched = time.monotonic()
    sees_moves = internals.pending_request() is not None
    try:
        frames_seen = 0
        frames_shown = 0
        charted = 0  # frame steps charted so far; -1 once the whole episode is
        first_lane: list[Any] = []
        ahead_seen: int | None = None
        noticed = 0.0
        while True:
            # Woken by each new frame, and at least every MOVE_POLL s to look for a move.
            state = job.wait(frames_seen, ahead_seen, timeout=MOVE_POLL)
            stop_if_asked()
            if move_waits():
                return None  # this run ends; the viewer's move runs next
            # While queued, the notice is renewed every second: each update is also where
            # Streamlit itself stops a run whose viewer moved on. A live stream has no place in
            # a line: it says so only if its first frame is late.
            queued = not state.frames and not state.done
            late = time.monotonic() - followed > FIRST_FRAME_PATIENCE
            renew = state.ahead != ahead_seen or time.monotonic() - noticed > 1.0
            if queued and (state.ahead is not None or late) and renew:
                notice(state.ahead)
                noticed = time.monotonic()
            ahead_seen = state.ahead
            poll_due = time.monotonic() - touched > UNSEEN_MOVE_POLL
            if not sees_moves and feed is not None and not noticed and poll_due:
                notice_slot.empty()  # nothing shown there: a message, and nothing changes
                touched = time.monotonic()
            if state.frames != frames_seen and state.latest is not None:
                frames_seen = state.frames
                record = state.latest.record
                if progress is not None and progress_total:
                    progress.progress(min(1.0, frames_seen / progress_total), text="Rendering…")
                image = state.latest.image
                if feed is not None and noticed:
                    notice_slot.empty()  # the feed paints the frames; the notice goes
                    noticed = 0.0
                if feed is None and image is not None:
                    # Fewer frames a second each while many streams play.
                    frame_throttle.rate = live_shown_rate()
                    if frame_throttle.ready() or record.done:
                        if not frames_shown:
                            mark("frame")
                        frames_shown += 1
                        image_slot.image(
                            image,
                            caption=f"step {record.step} / {horizon}",
                            output_format="JPEG",
                            width="stretch",
                        )
                whole = getattr(state.latest, "episode", None)
                if chart and whole is not None and charted >= 0:
                    # The whole episode was simulated ahead: its chart, once.
                    _chart(chart_slot, objective_names, whole, horizon)
                    charted = -1
                if chart and charted >= 0 and (chart_throttle.ready() or record.done):
                    first_lane = [records[0] for records in list(job.history)]
                if chart and charted >= 0 and len(first_lane) > charted:
                    charted = len(first_lane)
                    _chart(chart_slot, objective_names, first_lane, horizon)
            if state.done:
                if state.error is not None:
                    raise state.error
                break
    finally:
        if own_places:
            places.close()
        if own:
            job.unsubscribe()
    rerun_view()
    return None  # pragma: no cover - a rerun does not return
