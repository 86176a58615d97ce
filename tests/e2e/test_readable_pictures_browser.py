"""Pictures and text a viewer can read, at a laptop's and a small laptop's window: the episode
player is never shown wider than its video was rendered (a scaled-up picture is blurry) nor
taller than 70% of the window, the captions written on Compare's side-by-side tiles are at
least 12 px as shown, and so is every caption of the page."""

from __future__ import annotations

import pytest

from paretoscope.video import caption_font_size
from tests.e2e.conftest import EPISODE_VIDEO, screenshot

TIMEOUT_MS = 120_000
# The player's size as shown and as rendered, the window's height, and every caption's font.
MEASURE = """(selector) => {
  const video = document.querySelector(selector);
  const captions = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')];
  return {shown: [video.clientWidth, video.clientHeight],
          rendered: [video.videoWidth, video.videoHeight],
          window: window.innerHeight,
          captions: captions.map((c) => parseFloat(getComputedStyle(c).fontSize))};
}"""
READY = """(selector) => { const v = document.querySelector(selector);
                           return !!v && v.videoWidth > 0 && v.clientWidth > 0; }"""


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [(1440, 900), (1024, 768)], ids=lambda v: f"{v[0]}x{v[1]}")
def test_compare_tiles_are_shown_at_most_their_size_with_readable_captions(
    server: str,
    browser,
    viewport: tuple[int, int],  # noqa: ANN001
) -> None:
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    try:
        page.goto(f"{server}/compare?size=240", timeout=TIMEOUT_MS)
        page.get_by_text("best per column highlighted").wait_for(timeout=TIMEOUT_MS)
        page.wait_for_function(READY, arg=EPISODE_VIDEO, timeout=TIMEOUT_MS, polling=200)
        measured = page.evaluate(MEASURE, EPISODE_VIDEO)
        screenshot(page, f"compare-tiles-{viewport[0]}x{viewport[1]}")
    finally:
        context.close()
    (shown_width, shown_height), (width, height) = measured["shown"], measured["rendered"]
    assert height == 240 and width >= 2 * 240, measured  # two 240-px tiles side by side
    assert shown_width <= width and shown_height <= height, measured  # never scaled up
    assert shown_height <= 0.7 * measured["window"] + 1, measured
    # The tiles' captions are drawn into the video at caption_font_size(240) px, and shown at
    # the player's scale.
    assert caption_font_size(height) * shown_width / width >= 12, measured
    assert measured["captions"] and min(measured["captions"]) >= 12, measured
