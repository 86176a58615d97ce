"""The live video: frames streamed into the page while an episode runs, then the finished MP4.

`live_rollout` is what every page that shows an episode uses: a recording already in the
library plays at once; otherwise frames appear as they are rendered (progressive `st.image`
updates), the MP4 is encoded at the same time, and when the episode ends the page reruns so the
finished video (and its point on the front) replaces the stream.

Episodes are recorded by background jobs (`dashboard.jobs`) in the server's bounded pool
(`dashboard.pool`); the page follows its job: "queued (k ahead)" while it waits for a worker,
then the frames. Viewers asking for the same episode follow the same job. A viewer who moves
on (a rerun) or leaves (the session stops) stops following at once (`stop_if_asked`); a job
nobody follows is cancelled: a waiting one leaves the line, a running one stops at its next
frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import streamlit as st

from core.assets import RolloutRecording
from core.render import RenderingUnavailable
from dashboard import services
from dashboard.figures import episode_figure
from dashboard.jobs import shared_board
from dashboard.pool import WaitCallback
from dashboard.services import LoadedAgent, RolloutLibrary, RolloutRequest, Throttle, frame_steps

# Frames shown per second while streaming (the MP4 gets every frame).
STREAM_RATE = 12.0
CHART_RATE = 2.0

Producer = Callable[[Callable[[object], None], WaitCallback], RolloutRecording]


def stop_requested() -> bool:
    """True when Streamlit asked this script run to stop or rerun (the viewer moved on, or the
    session closed) and has not acted on it yet."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    run_context = get_script_run_ctx(suppress_warning=True)
    requests = getattr(run_context, "script_requests", None)
    state = getattr(getattr(requests, "_state", None), "value", "CONTINUE")
    if state == "RERUN":
        # A rerun of other fragments does not interrupt this run (Streamlit's own rule).
        rerun = getattr(requests, "_rerun_data", None)
        return not (
            bool(getattr(rerun, "fragment_id_queue", None))
            and not getattr(rerun, "is_fragment_scoped_rerun", False)
        )
    return state == "STOP"


def stop_if_asked() -> None:
    """Let a pending stop or rerun happen now: Streamlit raises its own control exception at the
    next message, which unwinds the rollout (its pool slot, renderer and encoder are freed)."""
    if stop_requested():
        st.empty()


def queued_notice(slot: object) -> WaitCallback:
    """`on_wait` for the pool: "queued (k ahead)" in `slot`; each update is also the point where
    a waiting request notices that its viewer moved on."""

    def on_wait(ahead: int) -> None:
        slot.info(  # type: ignore[attr-defined]
            f"queued ({ahead} ahead): the server renders a few episodes at a time; this one "
            "starts as soon as a worker is free",
            icon=":material/hourglass_top:",
        )

    return on_wait


def show_recording(
    recording: RolloutRecording,
    objective_names: Sequence[str],
    horizon: int,
    file_name: str,
    chart: bool = True,
    key: str = "video",
) -> None:
    """The finished episode: the MP4 (looping, ready to replay), a download, the reward chart."""
    if recording.meta.get("stopped"):
        st.warning(str(recording.meta["stopped"]))
    if recording.video:
        st.video(recording.video, format="video/mp4", autoplay=True, loop=True, muted=True)
        st.download_button(
            "Download MP4",
            recording.video,
            file_name=file_name,
            mime="video/mp4",
            key=f"{key}_download",
            on_click="ignore",
        )
    else:
        st.warning("video unavailable: " + str(recording.meta.get("why", "rendering failed")))
    if chart and recording.length:
        cumulative = np.cumsum(np.asarray(recording.rewards), axis=0)
        st.plotly_chart(
            episode_figure(objective_names, frame_steps(recording), cumulative, horizon),
            key=f"{key}_episode",
            width="stretch",
        )


def stream_frames_into_page(
    frames: Iterator[np.ndarray],
    on_each: Callable[[np.ndarray], None] | None = None,
    caption: Callable[[int], str] | None = None,
    slot: object | None = None,
) -> int:
    """Show `frames` in one image slot as they come (at most STREAM_RATE a second); returns how
    many there were. `on_each` sees every frame (e.g. an encoder). A pending stop or rerun
    stops the stream at the next frame."""
    slot = st.empty() if slot is None else slot
    throttle = Throttle(STREAM_RATE)
    count = 0
    last = None
    for frame in frames:
        stop_if_asked()
        count += 1
        last = frame
        if on_each is not None:
            on_each(frame)
        if throttle.ready():
            slot.image(  # type: ignore[attr-defined]
                frame,
                caption=caption(count) if caption else None,
                output_format="JPEG",
                width="stretch",
            )
    if last is not None:
        slot.image(  # type: ignore[attr-defined]
            last, caption=caption(count) if caption else None, output_format="JPEG", width="stretch"
        )
    return count


def rollout_producer(loaded: LoadedAgent, request: RolloutRequest) -> Producer:
    """`produce` for `live_rollout`: the rendered episode, or its returns alone (with a warning
    saying why) when rendering is unavailable."""

    def produce(
        on_frame: Callable[[object], None], on_wait: WaitCallback | None = None
    ) -> RolloutRecording:
        # Looked up on the module at call time, as the page scripts do on every rerun. Runs in a
        # job's thread: no Streamlit calls here (the recording's "why" is shown with it).
        try:
            return services.record_rollout(loaded, request, on_frame, on_wait=on_wait)
        except RenderingUnavailable as error:
            return services.record_returns_only(loaded, request, str(error), on_wait=on_wait)

    return produce


def live_rollout(
    library: RolloutLibrary,
    key: str,
    produce: Producer,
    objective_names: Sequence[str],
    horizon: int,
    file_name: str,
    widget_key: str = "video",
    chart: bool = True,
) -> RolloutRecording | None:
    """Play the recording `key` if it exists; else follow the job that records it with
    `produce(on_frame, on_wait)` (started if none runs), showing its frames as they come, and
    rerun when it is stored. Returns the recording when it is shown."""
    recording = library.get(key)
    if recording is not None:
        show_recording(recording, objective_names, horizon, file_name, chart, widget_key)
        return recording
    image_slot = st.empty()
    chart_slot = st.empty()
    frame_throttle = Throttle(STREAM_RATE)
    chart_throttle = Throttle(CHART_RATE)
    notice = queued_notice(image_slot)
    job = shared_board().follow(key, produce, lambda finished: library.put(key, finished))
    try:
        frames_seen = 0
        ahead_seen: int | None = None
        noticed = 0.0
        while True:
            state = job.wait(frames_seen, ahead_seen, timeout=0.25)
            stop_if_asked()
            # While queued, the notice is renewed every second: each update is also where
            # Streamlit itself stops a run whose viewer moved on.
            queued = state.ahead is not None and not state.frames
            if queued and (state.ahead != ahead_seen or time.monotonic() - noticed > 1.0):
                notice(state.ahead)  # type: ignore[arg-type]
                noticed = time.monotonic()
            ahead_seen = state.ahead
            if state.frames != frames_seen and state.latest is not None:
                frames_seen = state.frames
                record = state.latest.record
                if frame_throttle.ready() or record.done:
                    image_slot.image(
                        state.latest.frame,
                        caption=f"step {record.step} / {horizon}",
                        output_format="JPEG",
                        width="stretch",
                    )
                if chart and (chart_throttle.ready() or record.done):
                    history = list(job.history)
                    steps = np.asarray([int(record.step) for record in history])
                    totals = np.asarray(
                        [np.asarray(record.cumulative_return, float) for record in history]
                    )
                    chart_slot.plotly_chart(
                        episode_figure(objective_names, steps, totals, horizon), width="stretch"
                    )
            if state.done:
                if state.error is not None:
                    raise state.error
                break
    finally:
        job.unsubscribe()
    st.session_state["_last_streamed"] = key
    st.rerun()
    return None  # pragma: no cover - st.rerun does not return
