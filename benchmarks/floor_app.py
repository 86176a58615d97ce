"""The floor of `bench_dashboard.py --floor` and `bench_load.py --floor`: what Streamlit and
Chromium alone cost for what those benchmarks wait for on the Explore page, with nothing of
paretoscope's but its episode player (a plain `<video>` the benchmarks find by its test id).

``streamlit run benchmarks/floor_app.py -- A.mp4 B.mp4``: the Explore page's title, its
preference slider (same label and steps), the caption naming the preference and a video, A
at even steps of the slider and B at odd ones, so that every move plays another MP4.

``streamlit run benchmarks/floor_app.py -- --stream``: a live rollout with no rollout: a
preference not seen before on the server streams a made-up 500-frame episode (320x320 JPEGs,
made once) as the dashboard does, frame due now at 20 frames a second of playback shown at
`paretoscope.pacing.display.shown_rate` of the streams playing, then its MP4 (made once) plays; a
seen preference plays the MP4 at once.
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import streamlit as st

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

FRAMES, FPS, SIZE = 500, 20.0, 320


@st.cache_resource
def videos(paths: tuple[str, ...]) -> list[bytes]:
    return [Path(path).read_bytes() for path in paths]


@st.cache_resource
def made_up_episode() -> tuple[list[bytes], bytes]:
    """(JPEG frames, their MP4): a bar sweeping over a gradient, made once per server."""
    import imageio.v3 as iio

    y, x = np.mgrid[0:SIZE, 0:SIZE]
    pictures = []
    for index in range(FRAMES):
        image = np.stack([x * 255 // SIZE, y * 255 // SIZE, np.full_like(x, 90)], -1)
        bar = (index * 3) % SIZE
        image[:, bar : bar + 12] = 255
        pictures.append(image.astype(np.uint8))
    jpegs = [iio.imwrite("<bytes>", picture, extension=".jpg") for picture in pictures]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "episode.mp4"
        iio.imwrite(path, np.stack(pictures), fps=FPS, codec="libx264")
        return jpegs, path.read_bytes()


@st.cache_resource
def server_state() -> dict:
    """Preferences streamed to the end on this server, and streams playing now."""
    return {"seen": set(), "playing": 0, "lock": threading.Lock()}


def play(video: bytes) -> None:
    """The dashboard's episode player (a plain `<video>` the benchmarks find by its test id)."""
    from paretoscope.dashboard.widgets.episode_video import episode_video

    episode_video(video, "episode", "floor")


def stream(weight: float) -> None:
    from paretoscope.pacing.display import shown_rate

    jpegs, video = made_up_episode()
    state = server_state()
    if weight in state["seen"]:
        play(video)
        return
    slot = st.empty()
    with state["lock"]:
        state["playing"] += 1
    try:
        started = time.monotonic()
        while (index := int((time.monotonic() - started) * FPS)) < FRAMES:
            slot.image(io.BytesIO(jpegs[index]), caption=f"step {index} / {FRAMES}")
            time.sleep(1.0 / shown_rate(state["playing"]))
    finally:
        with state["lock"]:
            state["playing"] -= 1
    state["seen"].add(weight)
    st.rerun()


st.title("Explore")
left, middle, right = st.columns([2, 7, 2], vertical_alignment="center")
weight = middle.slider("Preference between a and b", 0.0, 1.0, 0.5, step=0.05)
st.caption(f"Preference a {1.0 - weight:.2f}, b {weight:.2f}")
if "--stream" in sys.argv[1:]:
    stream(round(weight, 2))
else:
    played = videos(tuple(sys.argv[1:]))
    if played:
        play(played[round(weight * 20) % len(played)])
