"""A live stream's picture, painted from its feed (`paretoscope.dashboard.frame_feed`) by a script
on the
page: one `<canvas>` showing the newest frame received, and a caption with its step.

The script reads the feed's response as it comes (`paretoscope.dashboard.frame_feed`'s framing),
paints
only the newest complete frame of what arrived (a browser that fell behind skips, never
queues), and stops reading once Streamlit removes the element (the viewer moved on). The
picture stays hidden until its first frame. Each painted frame is named in the canvas's
``data-frame`` (the feed's token, the episode, the frame's number) and its episode in
``data-episode``, for tests and benchmarks.

A channel's picture (Explore's, drawn the same at every run and kept by the browser) shows
each episode its feed announces: frames of an episode the page left are dropped. While it
streams it stands in for the episode player of its column (the player, of the episode before,
is hidden); it steps aside when a new player comes into the column (the episode's video after
the page's next run) or when the feed announces an episode with nothing to stream and the
column has a player (a stored recording).

A canvas, not an `<img>` whose source is each frame's blob URL: decoded with
`createImageBitmap` and drawn, a frame costs headless Chromium about a third less CPU (12 ms
against 18 ms a 320 x 320 frame, all its processes, software rendering)."""

from __future__ import annotations

import html
from typing import Any

from paretoscope.dashboard.widgets.episode_video import PICTURE_STYLE
from paretoscope.dashboard.widgets.episode_video import TEST_ID as PLAYER_ID

# The attribute the browser tests and benchmarks find the live picture by.
TEST_ID = "liveFrame"

PAINT_FEED = """(() => {
  const figure = document.currentScript.previousElementSibling;
  const canvas = figure.querySelector('canvas');
  const context = canvas.getContext('2d');
  const caption = figure.querySelector('figcaption');
  const name = figure.dataset.feed.split('/').pop();
  const channel = figure.dataset.channel === '1';
  const column = channel ? figure.closest('[data-testid="stColumn"]') : null;
  const PLAYER = 'video[data-testid="PLAYER_ID"]';
  const controller = new AbortController();
  let episode = 0;  // the newest episode the feed announced (a page run's feed: 1)
  let received = 0;
  let painted = 0;
  // A channel's picture stands in for the column's player while its episode streams (the
  // player, the episode before, is hidden), and steps aside when a new player comes (this
  // episode's video, or a stored one the page now shows).
  const live = (on) => {
    figure.hidden = !on;
    if (column) column.toggleAttribute('data-paretoscope-live', on);
  };
  if (column && !document.getElementById('paretoscope-live-style')) {
    const style = document.createElement('style');
    style.id = 'paretoscope-live-style';
    style.textContent = `[data-paretoscope-live] ${PLAYER} {display: none}`;
    document.head.appendChild(style);
  }
  if (column) {
    new MutationObserver((changes) => {
      if (figure.hidden) return;
      for (const change of changes) {
        for (const node of change.addedNodes) {
          if (node.nodeType === 1 && (node.matches(PLAYER) || node.querySelector(PLAYER))) {
            live(false);
            return;
          }
        }
      }
    }).observe(column, {childList: true, subtree: true});
  }
  const paint = (jpeg, step, of) => {
    const order = ++received;
    createImageBitmap(new Blob([jpeg], {type: 'image/jpeg'})).then((bitmap) => {
      // Decodes may end out of order; a frame of an episode the page left is not shown.
      if (order > painted && of === episode && figure.isConnected) {
        painted = order;
        if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
          canvas.width = bitmap.width;
          canvas.height = bitmap.height;
        }
        context.drawImage(bitmap, 0, 0);
        live(true);
        caption.textContent = `step ${step} / ${figure.dataset.horizon}`;
        canvas.dataset.episode = `${name}:${of}`;
        canvas.dataset.frame = `${name}:${of}:${order}`;
      }
      bitmap.close();
    }).catch(() => {});
  };
  const announce = (next, streams) => {
    if (next <= episode) return;  // a keep-alive
    episode = next;
    // A stored recording is shown now: its player, where the column has one already (else
    // the one that comes), takes the place of the picture.
    if (!streams && column && column.querySelector(PLAYER)) live(false);
  };
  const gone = setInterval(() => {
    if (figure.isConnected) return;
    clearInterval(gone);
    controller.abort();
  }, 250);
  (async () => {
    const response = await fetch(figure.dataset.feed, {signal: controller.signal,
                                                       cache: 'no-store'});
    if (!response.ok || !response.body) return;
    const reader = response.body.getReader();
    let buffer = new Uint8Array(0);
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
      let newest = null;
      while (buffer.length >= 12) {
        const header = new DataView(buffer.buffer, buffer.byteOffset, 12);
        const size = header.getUint32(0);
        if (buffer.length < 12 + size) break;
        const step = header.getUint32(4);
        const of = header.getUint32(8);
        if (size === 0) {
          announce(of, step === 1);
          newest = null;
        } else {
          if (of > episode) episode = of;
          newest = [buffer.slice(12, 12 + size), step, of];
        }
        buffer = buffer.subarray(12 + size);
      }
      if (newest) paint(...newest);
    }
  })().catch(() => {});
})();""".replace("PLAYER_ID", PLAYER_ID)


def live_frames(where: Any, feed_url: str, horizon: int, label: str, channel: bool = False) -> None:
    """Draw in `where` (a Streamlit container) the live picture of the feed at `feed_url` (an
    episode of `horizon` steps); `label` is its text alternative. A `channel`'s picture is
    drawn the same at every run (the same arguments give the same element, which Streamlit
    keeps), in a column with the episode's player."""
    where.html(
        f'<figure data-feed="{html.escape(feed_url)}" data-horizon="{int(horizon)}" '
        f'data-channel="{int(channel)}" hidden '
        'style="margin:0">'
        f'<canvas data-testid="{TEST_ID}" role="img" aria-label="{html.escape(label)}" '
        f'width="0" height="0" style="{PICTURE_STYLE}"></canvas>'
        '<figcaption style="text-align:center;font-size:0.875rem;opacity:0.6;'
        'padding-top:0.25rem"></figcaption></figure>'
        f"<script>{PAINT_FEED}</script>",
        unsafe_allow_javascript=True,
    )
