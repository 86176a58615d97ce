"""A live stream's picture, painted from its feed (`dashboard.frame_feed`) by a script on the
page: one `<canvas>` showing the newest frame received, and a caption with its step.

The script reads the feed's response as it comes (a 4-byte JPEG length, the 4-byte step, the
JPEG), paints only the newest complete frame of what arrived (a browser that fell behind skips,
never queues), and stops reading once Streamlit removes the element (the viewer moved on). The
picture stays hidden until its first frame. Each painted frame is named in the canvas's
``data-frame`` (the feed's token and the frame's number), for tests and benchmarks.

A canvas, not an `<img>` whose source is each frame's blob URL: decoded with
`createImageBitmap` and drawn, a frame costs headless Chromium about a third less CPU (12 ms
against 18 ms a 320 x 320 frame, all its processes, software rendering)."""

from __future__ import annotations

import html
from typing import Any

# The attribute the browser tests and benchmarks find the live picture by.
TEST_ID = "liveFrame"

PAINT_FEED = """(() => {
  const figure = document.currentScript.previousElementSibling;
  const canvas = figure.querySelector('canvas');
  const context = canvas.getContext('2d');
  const caption = figure.querySelector('figcaption');
  const name = figure.dataset.feed.split('/').pop();
  const controller = new AbortController();
  let received = 0;
  let painted = 0;
  const paint = (jpeg, step) => {
    const order = ++received;
    createImageBitmap(new Blob([jpeg], {type: 'image/jpeg'})).then((bitmap) => {
      if (order > painted && figure.isConnected) {  // decodes may end out of order
        painted = order;
        if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
          canvas.width = bitmap.width;
          canvas.height = bitmap.height;
        }
        context.drawImage(bitmap, 0, 0);
        figure.hidden = false;
        caption.textContent = `step ${step} / ${figure.dataset.horizon}`;
        canvas.dataset.frame = `${name}:${order}`;
      }
      bitmap.close();
    }).catch(() => {});
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
      while (buffer.length >= 8) {
        const header = new DataView(buffer.buffer, buffer.byteOffset, 8);
        const size = header.getUint32(0);
        if (buffer.length < 8 + size) break;
        newest = [buffer.slice(8, 8 + size), header.getUint32(4)];
        buffer = buffer.subarray(8 + size);
      }
      if (newest) paint(...newest);
    }
  })().catch(() => {});
})();"""


def live_frames(where: Any, feed_url: str, horizon: int, label: str) -> None:
    """Draw in `where` (a Streamlit container) the live picture of the feed at `feed_url` (an
    episode of `horizon` steps); `label` is its text alternative."""
    where.html(
        f'<figure data-feed="{html.escape(feed_url)}" data-horizon="{int(horizon)}" hidden '
        'style="margin:0">'
        f'<canvas data-testid="{TEST_ID}" role="img" aria-label="{html.escape(label)}" '
        'width="0" height="0" style="display:block;width:100%;border-radius:0.5rem"></canvas>'
        '<figcaption style="text-align:center;font-size:0.875rem;opacity:0.6;'
        'padding-top:0.25rem"></figcaption></figure>'
        f"<script>{PAINT_FEED}</script>",
        unsafe_allow_javascript=True,
    )
