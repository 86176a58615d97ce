"""The live video: frames streamed into the page while an episode runs, then the finished MP4.

`live_rollout` is what every page that shows an episode uses: a recording already in the
library plays at once; otherwise frames appear as they are rendered (progressive `st.image`
updates), the MP4 is encoded at the same time, and when the episode ends the page reruns so the
finished video (and its point on the front) replaces the stream.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import streamlit as st

from core.assets import RolloutRecording
from core.render import RenderingUnavailable
from dashboard import services
from dashboard.figures import episode_figure
from dashboard.services import LoadedAgent, RolloutLibrary, RolloutRequest, Throttle, frame_steps

# Frames shown per second while streaming (the MP4 gets every frame).
STREAM_RATE = 12.0
CHART_RATE = 2.0


def show_recording(
    recording: RolloutRecording,
    objective_names: Sequence[str],
    horizon: int,
    file_name: str,
    chart: bool = True,
    key: str = "video",
) -> None:
    """The finished episode: the MP4 (looping, ready to replay), a download, the reward chart."""
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
) -> int:
    """Show `frames` in one image slot as they come (at most STREAM_RATE a second); returns how
    many there were. `on_each` sees every frame (e.g. an encoder)."""
    slot = st.empty()
    throttle = Throttle(STREAM_RATE)
    count = 0
    last = None
    for frame in frames:
        count += 1
        last = frame
        if on_each is not None:
            on_each(frame)
        if throttle.ready():
            slot.image(
                frame,
                caption=caption(count) if caption else None,
                output_format="JPEG",
                width="stretch",
            )
    if last is not None:
        slot.image(
            last, caption=caption(count) if caption else None, output_format="JPEG", width="stretch"
        )
    return count


def rollout_producer(
    loaded: LoadedAgent, request: RolloutRequest
) -> Callable[[Callable[[object], None]], RolloutRecording]:
    """`produce` for `live_rollout`: the rendered episode, or its returns alone (with a warning
    saying why) when rendering is unavailable."""

    def produce(on_frame: Callable[[object], None]) -> RolloutRecording:
        # Looked up on the module at call time, as the page scripts do on every rerun.
        try:
            return services.record_rollout(loaded, request, on_frame)
        except RenderingUnavailable as error:
            st.warning(f"video unavailable: {error}")
            return services.record_returns_only(loaded, request, str(error))

    return produce


def live_rollout(
    library: RolloutLibrary,
    key: str,
    produce: Callable[[Callable[[object], None]], RolloutRecording],
    objective_names: Sequence[str],
    horizon: int,
    file_name: str,
    widget_key: str = "video",
    chart: bool = True,
) -> RolloutRecording | None:
    """Play the recording `key` if it exists; else stream a new one made by
    `produce(on_frame)`, store it and rerun. Returns the recording when it is shown."""
    recording = library.get(key)
    if recording is not None:
        show_recording(recording, objective_names, horizon, file_name, chart, widget_key)
        return recording
    image_slot = st.empty()
    chart_slot = st.empty()
    frame_throttle = Throttle(STREAM_RATE)
    chart_throttle = Throttle(CHART_RATE)
    steps: list[int] = []
    totals: list[np.ndarray] = []

    def on_frame(frame: object) -> None:
        record = frame.record  # type: ignore[attr-defined]
        steps.append(int(record.step))
        totals.append(np.asarray(record.cumulative_return, dtype=np.float64))
        if frame_throttle.ready() or record.done:
            image_slot.image(
                frame.frame,  # type: ignore[attr-defined]
                caption=f"step {record.step} / {horizon}",
                output_format="JPEG",
                width="stretch",
            )
        if chart and (chart_throttle.ready() or record.done):
            chart_slot.plotly_chart(
                episode_figure(objective_names, np.asarray(steps), np.asarray(totals), horizon),
                width="stretch",
            )

    recording = produce(on_frame)
    library.put(key, recording)
    st.session_state["_last_streamed"] = key
    st.rerun()
    return None  # pragma: no cover - st.rerun does not return
