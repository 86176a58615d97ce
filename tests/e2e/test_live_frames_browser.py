"""The live picture's script (`paretoscope.dashboard.widgets.live_frames`) in Chromium, reading a
feed
written by the server's own code (`paretoscope.dashboard.frame_feed.frame_bytes`, `marker`): frames
cut
across reads anywhere, only the newest complete one painted (its pixels, its size, its step),
hidden until the first, and the read stopped once the page removes the picture. A channel's
picture stands in for its column's player while its episode streams, steps aside for a new
player or a stored recording, and shows no frame of an episode the page left."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from paretoscope.dashboard.frame_feed import frame_bytes, marker
from paretoscope.dashboard.widgets.episode_video import TEST_ID as PLAYER_ID
from paretoscope.dashboard.widgets.live_frames import TEST_ID, live_frames

# A stand-in for `fetch`: the feed's bytes (window.__feed, base64) in pieces of
# window.__piece bytes, one piece a window.__every ms, from when the page asks; an abort stops
# it and is remembered (window.__aborted).
FAKE_FETCH = """
window.__aborted = false;
window.fetch = (url, options) => {
  window.__asked = url;
  const bytes = Uint8Array.from(atob(window.__feed), (c) => c.charCodeAt(0));
  let at = 0;
  const body = new ReadableStream({
    start(controller) {
      const next = () => {
        if (options.signal.aborted) return;
        if (at >= bytes.length) { if (!window.__keepOpen) controller.close(); return; }
        controller.enqueue(bytes.slice(at, at + window.__piece));
        at += window.__piece;
        setTimeout(next, window.__every);
      };
      options.signal.addEventListener('abort', () => {
        window.__aborted = true;
        controller.error(new DOMException('aborted', 'AbortError'));
      });
      setTimeout(next, window.__every);
    },
  });
  return Promise.resolve(new Response(body, {status: 200}));
};
"""

PICTURE = """
() => {
  const canvas = document.querySelector('canvas[data-testid="TEST_ID"]');
  const figure = canvas.closest('figure');
  const middle = canvas.width ? canvas.getContext('2d').getImageData(
    canvas.width >> 1, canvas.height >> 1, 1, 1).data[0] : null;
  return {frame: canvas.dataset.frame || null, hidden: figure.hidden, width: canvas.width,
          height: canvas.height, caption: figure.querySelector('figcaption').textContent,
          label: canvas.getAttribute('aria-label'), middle: middle, asked: window.__asked,
          aborted: window.__aborted};
}
""".replace("TEST_ID", TEST_ID)


class _Body:
    """Stands for a Streamlit container: keeps what it is asked to draw."""

    html_body = ""

    def html(self, body: str, **_: Any) -> None:
        self.html_body = body


def _page_with_picture(page: Any, feed: bytes, piece: int, every_ms: int, keep_open: bool) -> None:
    settings = (
        f"window.__feed = '{base64.b64encode(feed).decode()}'; window.__piece = {piece}; "
        f"window.__every = {every_ms}; window.__keepOpen = {str(keep_open).lower()};"
    )
    page.add_init_script(settings + FAKE_FETCH)
    page.goto("about:blank")  # a new document: the stand-in is in place before the picture
    body = _Body()
    live_frames(body, "/_paretoscope/frames/abc", 500, 'Live episode "x" <b>')
    page.set_content(f"<!doctype html><html><body>{body.html_body}</body></html>")


def _frames(*sizes: tuple[int, int, int]) -> bytes:
    """Frames of the given (step, height, width), each a flat grey of level 40 x step (mod 256)."""
    return b"".join(
        frame_bytes(np.full((height, width, 3), (40 * step) % 256, np.uint8), step)
        for step, height, width in sizes
    )


def test_frames_cut_anywhere_are_painted_newest_first(page: Any) -> None:
    feed = _frames((1, 24, 40), (2, 30, 50), (3, 36, 60))
    # 5 bytes a read: every header and JPEG is split across reads.
    _page_with_picture(page, feed, piece=5, every_ms=1, keep_open=False)
    page.wait_for_function(
        "() => document.querySelector('figcaption').textContent === 'step 3 / 500'",
        timeout=20_000,
    )
    shown = page.evaluate(PICTURE)
    assert shown["frame"].startswith("abc:") and not shown["hidden"]
    assert (shown["width"], shown["height"]) == (60, 36)
    assert abs(shown["middle"] - 120) <= 3  # the third frame's grey, not another's
    assert shown["asked"] == "/_paretoscope/frames/abc"
    assert shown["label"] == 'Live episode "x" <b>'  # escaped in the markup, whole in the page


def test_one_read_of_many_frames_paints_only_the_newest(page: Any) -> None:
    """A browser that fell behind gets several frames in one read: it skips to the newest."""
    feed = _frames((1, 24, 40), (2, 30, 50), (3, 36, 60))
    _page_with_picture(page, feed, piece=len(feed), every_ms=500, keep_open=True)
    page.evaluate(
        """() => {
      window.__painted = [];
      const canvas = document.querySelector('canvas[data-testid="TEST_ID"]');
      new MutationObserver(() => window.__painted.push(
          document.querySelector('figcaption').textContent)).observe(
        canvas, {attributes: true, attributeFilter: ['data-frame']});
    }""".replace("TEST_ID", TEST_ID)
    )
    # Once the newest frame is painted, any older one painted for the same read came first.
    page.wait_for_function("() => window.__painted.includes('step 3 / 500')", timeout=10_000)
    assert page.evaluate("() => window.__painted") == ["step 3 / 500"]


def test_hidden_until_its_first_frame_and_stops_reading_once_removed(page: Any) -> None:
    feed = _frames((7, 24, 40))
    _page_with_picture(page, feed, piece=len(feed), every_ms=1500, keep_open=True)
    before = page.evaluate(PICTURE)
    assert before["hidden"] and before["frame"] is None
    page.wait_for_function("() => document.querySelector('figcaption').textContent !== ''")
    assert page.evaluate(PICTURE)["caption"] == "step 7 / 500"
    page.evaluate("() => document.querySelector('figure').remove()")
    page.wait_for_function("() => window.__aborted === true", timeout=5_000)


def _page_with_channel(page: Any, feed: bytes) -> None:
    """A channel's picture in a column that shows a player (the episode before), as Explore
    draws them; the feed in 5-byte reads, left open."""
    settings = (
        f"window.__feed = '{base64.b64encode(feed).decode()}'; window.__piece = 5; "
        "window.__every = 1; window.__keepOpen = true;"
    )
    page.add_init_script(settings + FAKE_FETCH)
    page.goto("about:blank")
    body = _Body()
    live_frames(body, "/_paretoscope/frames/abc", 500, "Live episode", channel=True)
    page.set_content(
        '<!doctype html><html><body><div data-testid="stColumn">'
        f'{body.html_body}<video data-testid="{PLAYER_ID}" id="before"></video>'
        "</div></body></html>"
    )
    page.evaluate(
        """() => {
      window.__painted = [];
      const canvas = document.querySelector('canvas[data-testid="TEST_ID"]');
      new MutationObserver(() => window.__painted.push(canvas.dataset.episode + ' ' +
          document.querySelector('figcaption').textContent)).observe(
        canvas, {attributes: true, attributeFilter: ['data-frame']});
    }""".replace("TEST_ID", TEST_ID)
    )


def _frame(step: int, episode: int) -> bytes:
    return frame_bytes(np.full((24, 40, 3), 40 * step % 256, np.uint8), step, episode)


SHOWN = """() => ({
  picture: !document.querySelector('figure').hidden,
  players: [...document.querySelectorAll('video')].map(
    (video) => getComputedStyle(video).display !== 'none'),
})"""


def test_a_channel_stands_in_for_the_player_until_a_new_player_comes(page: Any) -> None:
    _page_with_channel(page, marker(1, streams=True) + _frame(4, 1))
    assert page.evaluate(SHOWN) == {"picture": False, "players": [True]}
    page.wait_for_function("() => window.__painted.length === 1", timeout=20_000)
    assert page.evaluate("() => window.__painted") == ["abc:1 step 4 / 500"]
    # While it streams, the episode before's player is out of sight.
    assert page.evaluate(SHOWN) == {"picture": True, "players": [False]}
    # The page's next run brings the episode's video: the picture steps aside for it.
    page.evaluate(
        """() => {
      const video = document.createElement('video');
      video.dataset.testid = 'PLAYER_ID';
      document.querySelector('[data-testid="stColumn"]').appendChild(video);
    }""".replace("PLAYER_ID", PLAYER_ID)
    )
    page.wait_for_function("() => document.querySelector('figure').hidden", timeout=5_000)
    assert page.evaluate(SHOWN) == {"picture": False, "players": [True, True]}


def test_a_channel_drops_late_frames_of_an_episode_left_and_yields_to_a_stored_one(
    page: Any,
) -> None:
    feed = (
        _frame(1, 1)
        + marker(2, streams=True)
        + _frame(2, 1)  # sent before the move was seen: not shown
        + _frame(3, 2)
        + marker(3, streams=False)  # the page shows a stored recording now
    )
    _page_with_channel(page, feed)
    page.wait_for_function(
        "() => document.querySelector('figure').hidden && window.__painted.length >= 2",
        timeout=20_000,
    )
    assert page.evaluate("() => window.__painted") == [
        "abc:1 step 1 / 500",
        "abc:2 step 3 / 500",
    ]
    assert page.evaluate(SHOWN) == {"picture": False, "players": [True]}
