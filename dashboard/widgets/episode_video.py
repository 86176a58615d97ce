"""An episode's MP4 as a `<video autoplay muted loop>` that is sure to start.

`st.video(autoplay=True)` does not always start. Its player remembers, per element id, that it
has autoplayed, and the id is made from the video's content and options: two byte-identical
episodes (a random agent at two preferences) share one id, so the second is drawn paused at
0 s. Its loop is a script restart at each end, not the browser's own. And Chromium itself
sometimes leaves an autoplay video paused at 0 s without a single play event when the page
draws it while still loading (3 of 6 first loads of a minecart page, measured with a plain
`<video autoplay>`); `play()` then starts it. So the player here starts itself once it can
play, unless it already has.

The file is served by Streamlit's media endpoint exactly as `st.video` serves it (registered
for this session under `coordinates`, dropped when a run no longer shows it), through
`paretoscope.dashboard.streamlit_internals.media_url`; without it, `st.video` plays it."""

from __future__ import annotations

import html

import streamlit as st

from paretoscope.dashboard.streamlit_internals import media_url

# The attribute the browser tests and benchmarks find the episode's player by.
TEST_ID = "episodeVideo"

# An episode's picture (its video, and its live stream's canvas) is shown at the size it was
# rendered (the sidebar's "Video size"), narrower only where its column is, and no taller than
# 70% of the window, its aspect kept: never scaled up, so never blurred. Scaling every frame up
# is also a playing video's largest cost in the browser (a 320 px HalfCheetah MP4, headless
# Chromium, software rendering: 0.06 cores at its size, 0.13 at 1260 px wide).
PICTURE_STYLE = (
    "display:block;max-width:100%;max-height:70vh;height:auto;margin:0 auto;border-radius:0.5rem"
)

# Started once it can play, unless it already has: a viewer who pauses it is not overruled.
# Its controls show while the pointer is over it or it has the keyboard's focus: Chromium's
# media controls fade and spin as a video starts, about half again the CPU of the video's own
# first seconds (0.57 against 0.37-0.41 CPU-s, headless, software rendering), at every move.
PLAYER_SCRIPT = """(() => {
  const video = document.currentScript.previousElementSibling;
  let started = false;
  video.addEventListener('play', () => { started = true; });
  const start = () => { if (!started && video.paused) video.play().catch(() => {}); };
  if (video.readyState >= 3) start(); else video.addEventListener('canplay', start, {once: true});
  setTimeout(start, 1000);
  const show = () => { video.controls = true; };
  video.addEventListener('pointerenter', show);
  video.addEventListener('focus', show);
  video.addEventListener('pointerleave', () => {
    if (document.activeElement !== video) video.controls = false;
  });
  video.addEventListener('blur', () => { video.controls = false; });
})();"""


def player_markup(url: str, label: str) -> str:
    """The player for the MP4 at `url`, with its script; `label` is read out by screen
    readers."""
    return (
        f'<video data-testid="{TEST_ID}" src="{html.escape(url)}" autoplay muted loop '
        f'playsinline tabindex="0" preload="auto" aria-label="{html.escape(label)}" '
        f'style="{PICTURE_STYLE}"></video>'
        f"<script>{PLAYER_SCRIPT}</script>"
    )


def episode_video(video: bytes, label: str, coordinates: str) -> None:
    """Draw `video` (an MP4) playing, muted and looping, with controls on hover or focus (it
    takes the keyboard's focus in turn). `coordinates` names the place on the page (unique
    among the videos a page shows): the file is this session's for as long as a run draws it
    there. `label` is read out by screen readers."""
    url = media_url(video, "video/mp4", coordinates)
    if url is None:  # a bare script run (no server), or no media hook: Streamlit's own player
        st.video(video, format="video/mp4", autoplay=True, loop=True, muted=True)
        return
    st.html(player_markup(url, label), unsafe_allow_javascript=True)
