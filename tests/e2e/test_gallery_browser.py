"""The Gallery page in a real browser, on the bundled demo's HalfCheetah behaviour set: N
tiles, each a different policy, playing in lockstep (their times within one frame of each
other), and the hover link between a tile and its point on the front, both ways."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from paretoscope.catalog import bundled_assets_dir
from tests.e2e.conftest import screenshot, serving, start_server
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

ENV, AGENT, TILES = "MO-HalfCheetah-v2", "halfcheetah-behaviour", 9
# Nine 1000-step episodes recorded on a small shared machine (over 600 s when it is busy).
RECORDING_SECONDS = 900
GALLERY_PATH = f"/gallery?env={ENV}&agent={AGENT}&size=240"  # the smallest video size

# In the gallery's frame: every tile's time, paused state, and one frame's length.
TILE_TIMES = """() => ({
  times: window.__gallery.videos.map((v) => v ? v.currentTime : null),
  paused: window.__gallery.videos.map((v) => v ? v.paused : null),
  frame: window.__gallery.frame,
})"""
# Whether the frame shows `count` tiles, all of them playing (and, if `embedding`, its behaviour
# embedding drawn).
ALL_PLAYING = """([count, embedding]) => !!(window.__gallery
  && window.__gallery.allPlayingAt !== null
  && window.__gallery.videos.length === count && window.__gallery.videos.every((v) => v)
  && (!embedding || document.getElementById('embedding').data))"""
# The pixel of tile i's point in plot `id` (the front, the embedding), inside the frame.
POINT_PIXEL = """([id, i]) => {
  const gd = document.getElementById(id);
  const trace = gd.data.findIndex((t) => t.uid === 'tiles');
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return [xa._offset + xa.l2p(gd.data[trace].x[i]) + gd.getBoundingClientRect().left,
          ya._offset + ya.l2p(gd.data[trace].y[i]) + gd.getBoundingClientRect().top];
}"""


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Iterator[str]:
    started = start_server(bundled_assets_dir(), tmp_path_factory.mktemp("gallery-cache"))
    with serving(started) as url:
        yield url


def gallery_frame(page, url: str):  # noqa: ANN001, ANN201 - Playwright's page and frame
    """Open the gallery and wait for its component's frame with all its tiles playing."""
    page.goto(url + GALLERY_PATH, timeout=120_000)

    # Once every tile is recorded the page draws the gallery once more, coloured by cluster, in
    # a new frame, and then names the clusters under it: the last thing its run draws.
    page.get_by_text("Behaviour clusters (k-means").wait_for(timeout=RECORDING_SECONDS * 1000)
    return playing_frame(page, TILES, 120)


def playing_frame(page, tiles: int, timeout: float, embedding: bool = False):  # noqa: ANN001, ANN201
    """The gallery component's frame once all `tiles` play in it (within `timeout` seconds),
    and, if `embedding`, its behaviour embedding is drawn."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for candidate in page.frames:
            if "gallery" not in candidate.url or "index.html" not in candidate.url:
                continue
            try:
                if candidate.evaluate(ALL_PLAYING, [tiles, embedding]):
                    return candidate
            except Exception:  # a frame replaced while it is read
                continue
        # Playwright's own wait: it handles the page's events (new frames) meanwhile.
        page.wait_for_timeout(20)
    raise AssertionError(f"the gallery's {tiles} tiles did not all play within {timeout:g} s")


def test_gallery_tiles_play_in_lockstep_and_link_to_the_front(page, demo_server: str) -> None:  # noqa: ANN001
    frame = gallery_frame(page, demo_server)
    screenshot(page, "gallery-playing")
    tiles = frame.locator('[data-testid="galleryTile"]')
    assert tiles.count() == TILES
    sources = frame.evaluate("() => window.__gallery.videos.map((v) => v.currentSrc)")
    assert len(set(sources)) == TILES  # nine different videos
    # Lockstep: sampled while they play, every tile's time within one frame of the others'.
    last = -1.0
    for _ in range(5):
        now = wait_until(
            lambda last=last: (
                (t := frame.evaluate("() => window.__gallery.playhead()")) > last + 0.3 and t
            ),
            30,
            "the playhead to move on",
        )
        sample = frame.evaluate(TILE_TIMES)
        times = sample["times"]
        assert not any(sample["paused"]), sample
        assert max(times) - min(times) <= sample["frame"] + 1e-6, sample
        last = now if now > last else -1.0
    # Hovering a tile rings its point on the front (drawn once plotly has loaded) ...
    frame.wait_for_function("() => !!document.getElementById('front').data")
    hover_tile(frame, "front", 3)
    # ... and hovering a point lights its tile.
    hover_point(page, frame, "front", 6)
    # A tile opens Explore at its preference.
    href = tiles.nth(6).get_attribute("href")
    assert href is not None and "pref=" in href and "/gallery" not in href


# In plot `id`: the ring's point and tile i's point.
RING_AND_POINT = """([id, i]) => {
  const gd = document.getElementById(id);
  const lit = gd.data.find((t) => t.uid === 'lit');
  const tiles = gd.data.find((t) => t.uid === 'tiles');
  return [Array.from(lit.x), Array.from(lit.y), [tiles.x[i]], [tiles.y[i]]];
}"""


def hover_tile(frame, plot: str, index: int) -> None:  # noqa: ANN001 - Playwright's frame
    """Hover tile `index` and see its point, and only it, ringed in `plot`."""
    frame.locator('[data-testid="galleryTile"]').nth(index).hover()
    frame.wait_for_function(
        "([id, i]) => document.getElementById(id).dataset.lit === String(i)", arg=[plot, index]
    )
    ring_x, ring_y, point_x, point_y = frame.evaluate(RING_AND_POINT, [plot, index])
    assert (ring_x, ring_y) == (point_x, point_y)


def hover_point(page, frame, plot: str, index: int) -> None:  # noqa: ANN001 - Playwright
    """Hover tile `index`'s point in `plot` (an element id in the gallery's frame) and see the
    tile, and that tile only, lit."""
    page.mouse.move(0, 0)
    frame.wait_for_function("() => document.querySelectorAll('.tile.lit').length === 0")
    frame.locator(f"#{plot}").scroll_into_view_if_needed()
    x, y = frame.evaluate(POINT_PIXEL, [plot, index])
    origin = frame.frame_element().bounding_box()
    page.mouse.move(origin["x"] + x, origin["y"] + y)
    frame.wait_for_function(
        "(i) => document.querySelectorAll('.tile.lit').length === 1 && "
        "document.querySelector('.tile.lit').dataset.index === String(i)",
        arg=index,
        timeout=30_000,
    )


def test_the_behaviour_embedding_links_to_the_tiles(page, demo_server: str) -> None:  # noqa: ANN001
    gallery_frame(page, demo_server)
    page.get_by_text("Behaviour in detail").click()
    # The gallery is drawn again, with the embedding under its tiles.
    frame = playing_frame(page, TILES, 120, embedding=True)
    # Hovering a tile rings its point in the embedding ...
    hover_tile(frame, "embedding", 2)
    # ... and hovering a point there lights its tile (and rings it on the front).
    hover_point(page, frame, "embedding", 5)
    assert frame.evaluate("() => document.getElementById('front').dataset.lit") == "5"
