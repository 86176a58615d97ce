"""The floor of `bench_dashboard.py --floor`: what Streamlit and Chromium alone cost for what
the benchmark waits for on the Explore page, with nothing of paretoscope's.

``streamlit run benchmarks/floor_app.py -- A.mp4 B.mp4``: the Explore page's title, its
preference slider (same label and steps), the caption naming the preference and a video, A
at even steps of the slider and B at odd ones, so that every move plays another MP4.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st


@st.cache_resource
def videos(paths: tuple[str, ...]) -> list[bytes]:
    return [Path(path).read_bytes() for path in paths]


st.title("Explore")
left, middle, right = st.columns([2, 7, 2], vertical_alignment="center")
weight = middle.slider("Preference between a and b", 0.0, 1.0, 0.5, step=0.05)
st.caption(f"Preference a {1.0 - weight:.2f}, b {weight:.2f}")
played = videos(tuple(sys.argv[1:]))
if played:
    st.video(played[round(weight * 20) % len(played)], autoplay=True, loop=True, muted=True)
