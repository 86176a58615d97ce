"""Two episodes' MP4s side by side, started together and restarted together.

The Choose page shows the two policies of a question on the same seed; played in step, the
viewer compares them at the same moment of the episode. Each video is an episode player like
`episode_video`'s (same look, same test id, controls under the pointer); one script starts both
once both can play (or after a second and a half, whichever comes first) and, once both have
ended, starts both again (an episode that ends sooner holds its last frame meanwhile, as a
side-by-side recording does).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import streamlit as st

from paretoscope.dashboard.streamlit_internals import media_url
from paretoscope.dashboard.widgets.episode_video import PICTURE_STYLE, TEST_ID

PAIR_SCRIPT = """(() => {
  const row = document.currentScript.previousElementSibling;
  const videos = Array.from(row.querySelectorAll('video'));
  let started = false;
  const play = () => videos.forEach((video) => {
    video.currentTime = 0;
    video.play().catch(() => {});
  });
  const start = () => { if (!started) { started = true; play(); } };
  const ready = () => videos.every((video) => video.readyState >= 3);
  videos.forEach((video) => {
    // Controls only under the pointer or with the keyboard's focus, as `episode_video`'s.
    const show = () => { video.controls = true; };
    const hide = () => { if (document.activeElement !== video) video.controls = false; };
    video.addEventListener('pointerenter', show);
    video.addEventListener('focus', show);
    video.addEventListener('pointerleave', hide);
    video.addEventListener('blur', () => { video.controls = false; });
    video.addEventListener('canplay', () => { if (ready()) start(); });
    video.addEventListener('ended', () => { if (videos.every((other) => other.ended)) play(); });
  });
  if (ready()) start();
  setTimeout(start, 1500);
})();"""


def pair_markup(urls: Sequence[str], labels: Sequence[str]) -> str:
    """Both players (each with its caption `labels`) in one row, and the script that keeps them
    in step."""
    cells = "".join(
        '<figure style="flex:1;margin:0;min-width:0">'
        f'<figcaption style="text-align:center;font-weight:600">{html.escape(label)}</figcaption>'
        f'<video data-testid="{TEST_ID}" src="{html.escape(url)}" muted playsinline '
        f'preload="auto" tabindex="0" aria-label="{html.escape(label)}" '
        f'style="{PICTURE_STYLE}"></video></figure>'
        for url, label in zip(urls, labels, strict=True)
    )
    return (
        f'<div style="display:flex;gap:1rem;align-items:flex-start">{cells}</div>'
        f"<script>{PAIR_SCRIPT}</script>"
    )


def pair_video(videos: Sequence[bytes], labels: Sequence[str], key: str) -> None:
    """Draw `videos` (MP4s) side by side, playing in step; `key` names their place on the page."""
    urls = [
        media_url(video, "video/mp4", f"paretoscope:{key}_{index}")
        for index, video in enumerate(videos)
    ]
    if any(url is None for url in urls):  # a bare script run: Streamlit's own players
        for column, video, label in zip(st.columns(len(videos)), videos, labels, strict=True):
            column.caption(label)
            column.video(video, format="video/mp4", autoplay=True, muted=True)
        return
    st.html(pair_markup([str(url) for url in urls], labels), unsafe_allow_javascript=True)
